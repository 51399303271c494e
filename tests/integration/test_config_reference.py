"""The pages and the file written from the settings' declaration cannot drift from it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from genesis_git.config import reference
from genesis_git.config.schema import SETTINGS, declared
from genesis_git.kernel.environment import ENV_VARIABLES

from helpers import ROOT

PAGES = ROOT / "docs" / "reference"


@pytest.mark.parametrize("page", reference.PAGES)
def test_the_committed_reference_page_is_up_to_date(page: str) -> None:
    committed = (PAGES / f"{page}.md").read_text(encoding="utf-8")
    assert committed == reference.generate(page), f"docs/reference/{page}.md is out of date: run make docs"


@pytest.mark.parametrize("page", reference.PAGES)
def test_the_generator_prints_the_page(page: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git.config.reference", page],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == reference.generate(page)


def test_the_generator_refuses_an_unknown_page() -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git.config.reference", "nope"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "usage: python -m genesis_git.config.reference {configuration|environment}\n"
    with pytest.raises(ValueError, match="unknown page 'nope'"):
        reference.generate("nope")


def test_make_docs_writes_both_pages() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for page in reference.PAGES:
        assert (f"-m genesis_git.config.reference {page} > docs/reference/{page}.md"
                in makefile)


def test_the_configuration_page_lists_every_key_under_its_section() -> None:
    page = reference.configuration_page()
    sections = re.split(r"^## \[(\w+)\]$", page, flags=re.MULTILINE)[1:]
    found = {(sections[i], key) for i in range(0, len(sections), 2)
             for key in re.findall(r"^\| `(\w+)` \|", sections[i + 1], re.MULTILINE)}
    assert found == {(s.section, s.key) for s in declared()}


def test_the_environment_page_lists_every_variable() -> None:
    page = reference.environment_page()
    listed = re.findall(r"^\| `(GENESIS_\w+)` \|", page, re.MULTILINE)
    expected = [v.name for v in ENV_VARIABLES]
    expected += [s.variable for s in declared() if s.variable is not None]
    assert listed == expected
    assert "GENESIS_CLASSIFY_RULES" not in listed  # a table has no variable


def test_the_default_file_shows_every_key_with_its_meaning_commented_out() -> None:
    text = reference.default_config_text()
    assert all(line == "" or line.startswith("# ") for line in text.splitlines())
    for s in declared():
        assert f"# {s.key}: {s.doc}\n# {s.key} = " in text
    # its section and key lines, uncommented, are the defaults
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    body = "\n".join(line[2:] for line in text.splitlines()
                     if re.fullmatch(r"# (\[\w+\]|\w+ = .*)", line))
    parsed = tomllib.loads(body)
    assert parsed == {section: {s.key: s.default for s in declared(section)}
                      for section in {s.section for s in declared()}}


def test_the_readme_table_has_one_row_per_key() -> None:
    rows = reference.reference_table().splitlines()[2:]
    keys = [re.findall(r"^\| `([\w.]+)` \|", row) for row in rows]
    assert keys == [[name] for name in SETTINGS]
