"""The README and the guides cannot drift from the code: the two commands, links, commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from genesis_git.cli import docs

from helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
# the pages whose shell examples a reader copies: the README, the tutorial, the guides
GUIDES = [ROOT / "README.md", ROOT / "docs" / "tutorial.md",
          *sorted((ROOT / "docs" / "how-to").glob("*.md")),
          *sorted((ROOT / "docs" / "explanation").glob("*.md"))]


def test_the_readme_stays_short() -> None:
    assert len(README.splitlines()) <= 250


def test_exactly_two_setup_commands() -> None:
    setup = README.split("## Two commands", 1)[1].split("##", 1)[0]
    commands = [line.split("#")[0].strip() for line in setup.splitlines()
                if line.startswith("make ")]
    assert commands == ["make demo", "make test"]


def test_every_link_of_the_readme_resolves() -> None:
    headings = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-")
                for h in re.findall(r"^#+ (.+)$", README, re.MULTILINE)}
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert links, "the README links to nothing"
    for target in links:
        if "://" in target:
            continue
        if target.startswith("#"):
            assert target[1:] in headings, target
        else:
            assert (ROOT / target.split("#")[0]).exists(), target


def test_the_readme_links_every_page_of_the_docs() -> None:
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    pages.discard("docs/index.md")  # the site's home: the README is the repository's
    linked = set(re.findall(r"\]\((docs/[^)#]+)", README))
    assert pages - linked == set()


# -- every `genesis …` line of a shell example is a command with the options it uses ----------

def shell_commands(text: str) -> list[list[str]]:
    """The `genesis …` commands of the ```sh blocks, one argv each (pipes and && split)."""
    out: list[list[str]] = []
    for block in re.findall(r"^```(?:sh|bash)\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            try:
                words = shlex.split(line, comments=True)
            except ValueError:  # an unbalanced quote
                words = line.split("#")[0].split()
            argv: list[str] = []
            for word in [*words, "&&"]:
                if word in ("&&", "|", ";", "||"):
                    if argv and argv[0] == "genesis":
                        out.append(argv)
                    argv = []
                else:
                    argv.append(word)
    return out


def problems(argv: list[str], commands: dict[str, Any]) -> list[str]:
    """What is wrong with ``argv``: an unknown command, or an option its command lacks."""
    shown = " ".join(argv)
    path, found = "genesis", []
    words = iter(argv[1:])
    for word in words:
        command = commands[path]
        if word == "--":
            break
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            params = {o: p for p in command.params
                      for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}
            if name == "--help":
                continue
            if name not in params:
                found.append(f"{shown}: {path} has no option {name}")
            elif "=" not in word and not (params[name].is_flag or params[name].count):
                next(words, None)  # the option's value
        elif hasattr(command, "list_commands"):
            if f"{path} {word}" not in commands:
                found.append(f"{shown}: {path} has no command {word}")
                break
            path = f"{path} {word}"
    eager = any(w.startswith("-") for w in argv[1:])  # --help, --version, --install-completion
    if hasattr(commands[path], "list_commands") and not eager and not found:
        found.append(f"{shown}: {path} needs a command")
    return found


def test_shell_examples_use_real_commands_and_options() -> None:
    commands = {entry.path: entry.command for entry in docs.iter_commands()}
    seen, wrong = 0, []
    for page in GUIDES:
        for argv in shell_commands(page.read_text(encoding="utf-8")):
            seen += 1
            wrong += [f"{page.relative_to(ROOT)}: {p}" for p in problems(argv, commands)]
    assert seen > 50, "the shell examples were not found"
    assert wrong == []


def test_the_command_checker_finds_what_is_wrong() -> None:
    commands = {entry.path: entry.command for entry in docs.iter_commands()}
    text = ("```sh\ngenesis -C /tmp search 'x' --files --json -k 5   # fine\n"
            "genesis serch x\ngenesis search x --filez\ngenesis story\n"
            "genesis init && genesis hooks install --hooks-path\n```\n")
    argvs = shell_commands(text)
    assert [a[:2] for a in argvs] == [["genesis", "-C"], ["genesis", "serch"],
                                     ["genesis", "search"], ["genesis", "story"],
                                     ["genesis", "init"], ["genesis", "hooks"]]
    found = [p for argv in argvs for p in problems(argv, commands)]
    assert found == ["genesis serch x: genesis has no command serch",
                     "genesis search x --filez: genesis search has no option --filez",
                     "genesis story: genesis story needs a command"]


def test_the_hooks_path_advice_runs_as_written(repo: Path, tmp_path: Path) -> None:
    """Troubleshooting's `genesis hooks install --hooks-path …` works when copied as is."""
    import subprocess
    import sys

    from helpers import git

    page = (ROOT / "docs" / "how-to" / "troubleshooting.md").read_text(encoding="utf-8")
    advice = [c for c in re.findall(r"`(genesis hooks install [^`]*)`", page) if "--hooks-path" in c]
    assert advice, "troubleshooting no longer says how to install into core.hooksPath"
    hooks_dir = tmp_path / "shared-hooks"
    git(repo, "config", "core.hooksPath", str(hooks_dir))
    for command in advice:
        args = shlex.split(command)[1:]
        proc = subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=repo,
                              capture_output=True, text=True)
        assert proc.returncode == 0, (command, proc.stderr)
        assert (hooks_dir / "commit-msg").is_file()
