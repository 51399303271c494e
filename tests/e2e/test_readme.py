"""The README cannot drift from the code: config keys, exit codes, the two commands."""

from __future__ import annotations

import re

from genesis_git.config.settings import reference_table
from genesis_git.kernel.errors import ExitCode

from helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_config_reference_lists_every_key_with_its_default() -> None:
    assert reference_table() in README, "README's configuration table is out of date"


def test_exit_codes_table_matches_the_code() -> None:
    section = README.split("## Exit codes", 1)[1]
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", section, re.MULTILINE)}
    assert documented == {int(c) for c in ExitCode}


def test_exactly_two_setup_commands() -> None:
    setup = README.split("## Two commands", 1)[1].split("##", 1)[0]
    commands = [line.split("#")[0].strip() for line in setup.splitlines()
                if line.startswith("make ")]
    assert commands == ["make demo", "make test"]


def test_every_cli_reference_link_resolves() -> None:
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_the_hooks_path_advice_runs_as_written(repo, tmp_path) -> None:
    """Troubleshooting's `genesis hooks install --hooks-path …` works when copied as is."""
    import shlex
    import subprocess
    import sys

    from helpers import git

    advice = [c for c in re.findall(r"`(genesis hooks install [^`]*)`", README) if "--hooks-path" in c]
    assert advice, "the README no longer says how to install into core.hooksPath"
    hooks_dir = tmp_path / "shared-hooks"
    git(repo, "config", "core.hooksPath", str(hooks_dir))
    for command in advice:
        args = shlex.split(command)[1:]
        proc = subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=repo,
                              capture_output=True, text=True)
        assert proc.returncode == 0, (command, proc.stderr)
        assert (hooks_dir / "commit-msg").is_file()
