"""Globs and CODEOWNERS read as GitHub reads them (git's wildmatch, through pathspec)."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.index.classify import CodeOwners, artifact_type, component, glob_match

# (pattern, paths it matches, paths it does not), the cases of GitHub's CODEOWNERS page
CASES = [
    ("*.js", ["app.js", "src/deep/app.js"], ["app.jsx", "app.js.map"]),
    ("*.[ch]", ["main.c", "include/x.h"], ["main.cc", "main.ch", "main.o"]),
    ("docs/*", ["docs/getting-started.md"], ["docs/build-app/troubleshooting.md", "x/docs/a.md",
                                              "docs"]),
    ("/docs/", ["docs/a.md", "docs/deep/b.md"], ["src/docs/a.md", "docs"]),
    ("apps/", ["apps/a.py", "src/apps/deep/b.py"], ["apps", "myapps/a.py"]),
    ("docs/**", ["docs/a.md", "docs/x/y/z.md"], ["src/docs/a.md"]),
    ("**/logs", ["logs/a.txt", "build/logs/b.txt", "logs"], ["logsx/a.txt"]),
    ("/build/logs/", ["build/logs/a.log"], ["x/build/logs/a.log"]),
    ("src/**/test_*.py", ["src/test_a.py", "src/x/y/test_b.py"], ["tests/test_c.py"]),
    ("README.md", ["README.md", "sub/README.md"], ["README.mdx"]),
]


@pytest.mark.parametrize(("pattern", "yes", "no"), CASES, ids=[c[0] for c in CASES])
def test_a_glob_matches_as_github_reads_it(pattern: str, yes: list[str], no: list[str]) -> None:
    assert [p for p in yes if not glob_match(p, pattern)] == []
    assert [p for p in no if glob_match(p, pattern)] == []


def test_a_blank_or_negated_pattern_alone_matches_nothing() -> None:
    assert not glob_match("a.py", "")
    assert not glob_match("a.py", "!a.py")
    assert not glob_match("a.py", "# a comment")


def test_codeowners_last_matching_rule_wins() -> None:
    owners = CodeOwners(
        "# the default owners\n"
        "*       @global\n"
        "*.js    @js-owner\n"
        "docs/*  @docs\n"
        "/build/logs/ @doctocat\n"
        "apps/   @octocat\n"
        "*.[ch]  @c-team\n"
        "/apps/github @hubot\n"
        "[Section]\n"
        "lonely-pattern-without-owner\n")
    assert owners.owner("README.md") == "@global"
    assert owners.owner("src/app.js") == "@js-owner"
    assert owners.owner("docs/getting-started.md") == "@docs"
    assert owners.owner("docs/build-app/troubleshooting.md") == "@global"  # not a direct child
    assert owners.owner("build/logs/a.log") == "@doctocat"
    assert owners.owner("x/build/logs/a.log") == "@global"  # anchored at the root
    assert owners.owner("src/apps/main.py") == "@octocat"  # a folder at any depth
    assert owners.owner("lib/util.c") == "@c-team"
    assert owners.owner("apps/github/x.py") == "@hubot"  # later than apps/
    assert owners.owner("apps/other/x.py") == "@octocat"
    assert owners.owner("lonely-pattern-without-owner") == "@global"
    assert CodeOwners("").owner("a.py") is None


def test_codeowners_several_owners_and_no_owner_for_unmatched_paths() -> None:
    owners = CodeOwners("/src/ @ana @bo\n*.md docs@example.com\n")
    assert owners.owner("src/a.py") == "@ana @bo"
    assert owners.owner("notes/a.md") == "docs@example.com"
    assert owners.owner("tools/run.sh") is None


def test_config_globs_follow_the_same_rules() -> None:
    assert artifact_type("src/a.c", None, {"*.[ch]": "api"}) == "API"
    assert artifact_type("notes/x/a.md", None, {"notes/*": "ARCH"}) == "OTHER"
    assert artifact_type("notes/a.md", None, {"notes/*": "ARCH"}) == "ARCH"
    assert component("web/ui/app.tsx", {"/web/": "frontend"}) == "frontend"
    assert component("tools/web/app.tsx", {"/web/": "frontend"}) == "tools"


def test_the_examples_codeowners_file_still_reads_the_same() -> None:
    shop = Path(__file__).resolve().parents[2] / "examples" / "shop"
    owners = CodeOwners((shop / "CODEOWNERS").read_text(encoding="utf-8"))
    assert all(owner is None or owner.startswith("@") for owner in
               (owners.owner(p.relative_to(shop).as_posix()) for p in shop.rglob("*")
                if p.is_file()))
