"""What a person sees: the console script in a real pseudo-terminal 80 columns wide, in a
pipe, on an ASCII-only stream, with colours asked for or refused, and through a pager.

The repository holds a path with brackets, a long path, a section in brackets and a story
whose title has a tag; its note and a commit subject carry escape codes.  The story is made
by real commits that fire the really installed hooks.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from genesis_git.render.terminal import cells

from helpers import git, read_pty, write

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")
LONG = "docs/reference/shell-completion/generated/for-every-shell/bash-zsh-fish-completion.md"
ESC_NOTE = "keep the \x1b[31mslug\x1b[0m\x07 route\rHIDDEN\nsecond line"
FILES = {
    "app/[slug]/page.tsx": "export default function Page() {\n  // render the slug page\n"
                           "  return slug;\n}\n",
    "docs/CHANGELOG.md": "# Changelog\n\n## [unreleased]\n\nshell completion for bash and "
                         "shell scripts\n",
    LONG: "# Completion\n\nThe bash completion script, with zsh and fish completion next to it "
          "and every shell option listed.\n",
    "docs/req/orders.md": "# 订单需求\n\ncafé orders — the naïve total\n",
}


def _script() -> list[str]:
    """The console script of this environment (``python -m genesis_git`` without one)."""
    script = Path(sys.executable).with_name("genesis")
    return [str(script)] if script.exists() else [sys.executable, "-m", "genesis_git"]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("term-home")
    out = {k: v for k, v in os.environ.items()
           if not k.startswith(("GENESIS_", "GIT_")) and k not in (
               "NO_COLOR", "FORCE_COLOR", "PAGER", "LESS", "COLUMNS", "LINES")}
    out.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1",
               GENESIS_HOME=str(home / "genesis"), GENESIS_HOOKS_INDEX="off",
               GENESIS_PAGER="cat", TERM="xterm", PYTHONPATH=str(ROOT), LANG="C.UTF-8",
               GENESIS_TEST_RUN=os.environ.get("GENESIS_TEST_RUN", ""))
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        out[var] = "Test User"
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        out[var] = "test@example.com"
    return out


def run(root: Path, env: dict[str, str], *args: str, **extra: str
        ) -> subprocess.CompletedProcess[str]:
    """The console script with stdout and stderr piped."""
    return subprocess.run([*_script(), *args], cwd=root, env={**env, **extra}, text=True,
                          capture_output=True, timeout=120, encoding="utf-8")


def tty(root: Path, env: dict[str, str], *args: str, cols: int = 80, **extra: str
        ) -> tuple[int, str, str]:
    """The console script with stdout on a pseudo-terminal ``cols`` wide: its exit code,
    what the terminal received (CR LF read as LF), stderr."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    proc = subprocess.Popen([*_script(), *args], cwd=root, env={**env, **extra}, stdout=slave,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = read_pty(master).decode("utf-8")
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8")
    proc.stderr.close()
    return proc.wait(timeout=120), out.replace("\r\n", "\n"), err


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    """The repository: hooks installed, a session with a note holding escape codes, and
    two commits of STORY-3 (one subject with an escape sequence)."""
    path = tmp_path_factory.mktemp("term") / "repo"
    path.mkdir()
    for rel, text in FILES.items():
        write(path, rel, text)
    git(path, "init", "-q", "-b", "main", env=env)
    git(path, "add", "-A", env=env)
    git(path, "commit", "-q", "-m", "initial", env=env)
    for args in (("hooks", "install"), ("session", "start"),
                 ("session", "note", ESC_NOTE, "--role", "decision")):
        proc = run(path, env, *args)
        assert proc.returncode == 0, proc.stderr
    write(path, "app/[slug]/page.tsx", FILES["app/[slug]/page.tsx"] + "// slug done\n")
    git(path, "commit", "-qam", "STORY-3: [wip] render the slug", env=env)
    write(path, "docs/CHANGELOG.md", FILES["docs/CHANGELOG.md"] + "\nmore\n")
    git(path, "commit", "-qam", "STORY-3: clear \x1b[2Jthe \x1b]0;owned\x07screen", env=env)
    return path


def visible(out: str) -> list[str]:
    return [ANSI.sub("", line) for line in out.splitlines() if ANSI.sub("", line).strip()]


# -- point 1: data is never markup, and loses its control characters --------------------------

def test_brackets_in_paths_titles_and_sections_appear_exactly(root: Path,
                                                              env: dict[str, str]) -> None:
    rc, out, err = tty(root, env, "search", "slug")
    assert rc == 0, err
    assert visible(out)[0].startswith("app/[slug]/page.tsx:2: // render the slug page")
    rc, out, err = tty(root, env, "story", "list")
    assert rc == 0, err
    assert visible(out)[0].startswith("STORY-3  in_progress")
    assert visible(out)[0].endswith("  [wip] render the slug")
    rc, out, err = tty(root, env, "search", "bash shell", "--explain", "--path", "docs/CHA*")
    assert rc == 0, err
    lines = visible(out)
    assert lines[0].startswith("docs/CHANGELOG.md:5: shell completion for bash")
    assert any(re.fullmatch(r"    lines 3-\d+, in Changelog > \[unreleased\]", line)
               for line in lines), lines
    assert any(re.search(r"= bm25 \d+\.\d+ \[(shell|bash) \d+\.\d\d, (shell|bash) \d+\.\d\d\]",
                         line) for line in lines), lines


def test_escape_codes_in_a_note_and_a_subject_never_reach_the_terminal(
        root: Path, env: dict[str, str]) -> None:
    for args in (("story", "context", "STORY-3"), ("story", "context", "STORY-3", "--markdown"),
                 ("session", "artifacts"), ("story", "show", "STORY-3")):
        rc, out, err = tty(root, env, "--color", "never", *args)
        assert rc == 0, err
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out.replace("\n", "")), (args, out)
    rc, out, _ = tty(root, env, "--color", "never", "story", "context", "STORY-3")
    assert "STORY-3: clear the screen" in out and "STORY-3: [wip] render the slug" in out
    assert "    - keep the slug routeHIDDEN\n      second line — Test User, " in out
    data = run(root, env, "story", "context", "STORY-3", "--json").stdout
    assert "keep the \\u001b[31mslug\\u001b[0m\\u0007 route\\rHIDDEN\\nsecond line" in data


# -- point 2: 80 columns, lines like grep, nothing to copy is cut ---------------------------

def test_at_80_columns_each_result_is_one_line_and_a_long_path_stays_whole(
        root: Path, env: dict[str, str]) -> None:
    rc, out, err = tty(root, env, "search", "completion", "-k", "3")
    assert rc == 0, err
    lines = visible(out)
    long_at = next(i for i, line in enumerate(lines) if line.startswith(LONG + ":"))
    assert lines[long_at] == f"{LONG}:3:"  # the path and its line whole, alone
    assert lines[long_at + 1].startswith("    The bash completion script")
    assert re.search(r"  [A-Z]+ \d\.\d{4}$", lines[long_at + 1])
    assert cells(lines[long_at + 1]) <= 80
    for line in lines[:long_at] + lines[long_at + 2:]:
        assert re.match(r"\S+:\d+: .*  [A-Z]+ \d\.\d{4}$", line) and cells(line) <= 80, line


# -- point 3: an ASCII-only stream ------------------------------------------------------------

@pytest.mark.parametrize("extra", [{"PYTHONIOENCODING": "ascii"},
                                   {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                                    "PYTHONCOERCECLOCALE": "0"}])
def test_an_ascii_stream_degrades_and_never_fails(root: Path, env: dict[str, str],
                                                  extra: dict[str, str]) -> None:
    proc = subprocess.run([*_script(), "story", "context", "STORY-3"], cwd=root,
                          env={**env, **extra}, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("ascii")  # nothing but ASCII reached the stream
    assert "second line -- Test User, " in text
    proc = subprocess.run([*_script(), "search", "café 订单"], cwd=root, env={**env, **extra},
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "\tcaf\\xe9 orders -- the na\\xefve total" in proc.stdout.decode("ascii")
    proc = subprocess.run([*_script(), "story", "context", "STORY-9—x"], cwd=root,
                          env={**env, **extra}, capture_output=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.decode("ascii").startswith("genesis: error: unknown story 'STORY-9--x'")
    proc = subprocess.run([*_script(), "story", "context", b"STORY-9\xff"], cwd=root,
                          env={**env, **extra}, capture_output=True, timeout=120)
    assert proc.returncode == 2  # bytes that are no UTF-8: one line, no internal error
    assert proc.stderr.decode("ascii").splitlines() == [
        "genesis: error: an argument is not valid UTF-8 (give it as UTF-8 text)"]


# -- point 4: colours, -q, -v and the pager ---------------------------------------------------

def test_colour_follows_the_option_then_no_color_and_force_color(root: Path,
                                                                 env: dict[str, str]) -> None:
    painted = "\x1b[35mapp/[slug]/page.tsx\x1b[0m"
    assert painted in tty(root, env, "search", "slug")[1]
    assert "\x1b[" not in tty(root, env, "search", "slug", NO_COLOR="1")[1]
    assert "\x1b[" not in tty(root, env, "--color", "never", "search", "slug",
                              FORCE_COLOR="1")[1]
    assert run(root, env, "search", "slug").stdout.startswith("app/[slug]/page.tsx:1-5\t")
    assert run(root, env, "search", "slug", FORCE_COLOR="1").stdout.startswith(painted)
    assert run(root, env, "--color", "always", "search", "slug",
               NO_COLOR="1").stdout.startswith(painted)
    bad = run(root, env, "--color", "sometimes", "search", "slug")
    assert bad.returncode == 2
    assert "Invalid value for '--color': 'sometimes' is not one of auto, always, never" in \
        bad.stderr


def test_quiet_drops_notes_and_verbose_adds_detail(root: Path, env: dict[str, str]) -> None:
    none = run(root, env, "search", "nothing-matches-this-word")
    assert none.stderr.startswith("genesis: no results")
    quiet = run(root, env, "-q", "search", "nothing-matches-this-word")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (none.returncode, "", "")
    loud = run(root, env, "-v", "search", "slug")
    assert loud.stdout == run(root, env, "search", "slug").stdout
    assert re.search(r"^genesis: searched \d+ files \(\d+ chunks\) in hybrid mode; candidates: "
                     r"lexical \d+, .*; terms: slug$", loud.stderr, re.M), loud.stderr
    assert re.search(r"^genesis: search took \d+\.\d\d s$", loud.stderr, re.M), loud.stderr
    both = run(root, env, "-q", "-v", "search", "slug")
    assert both.returncode == 2 and "cannot be used together" in both.stderr


def test_the_pager_runs_on_a_terminal_only(root: Path, env: dict[str, str]) -> None:
    mark = {"GENESIS_PAGER": "sed s/^/PAGED:/"}
    rc, out, _ = tty(root, env, "story", "context", "STORY-3", **mark)
    assert rc == 0 and all(line.startswith("PAGED:") for line in out.splitlines()), out
    assert out.splitlines()[0] == "PAGED:STORY-3: [wip] render the slug"
    rc, out, _ = tty(root, env, "--no-pager", "story", "context", "STORY-3", **mark)
    assert rc == 0 and out.startswith("STORY-3: [wip] render the slug\n")
    assert run(root, env, "story", "context", "STORY-3", **mark).stdout.startswith("STORY-3:")
    rc, out, _ = tty(root, env, "story", "context", "STORY-3", GENESIS_PAGER="cat")
    assert out.startswith("STORY-3:")
    pager_env = {k: v for k, v in env.items() if k != "GENESIS_PAGER"}
    rc, out, _ = tty(root, pager_env, "story", "context", "STORY-3", PAGER="sed s/^/P2:/")
    assert out.startswith("P2:STORY-3:")
    # leaving the pager before the end is no failure
    rc, out, err = tty(root, env, "story", "context", "STORY-3", GENESIS_PAGER="head -n 1")
    assert (rc, out, err) == (0, "STORY-3: [wip] render the slug\n", "")


def test_design_cards_are_lines_with_their_ids_whole(tmp_path: Path, env: dict[str, str]) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main", env=env)
    for args in (("design", "init"), ("design", "ingest", "rules")):
        assert run(lib, env, *args).returncode == 0
    rc, out, err = tty(lib, env, "design", "search", "contrast")
    assert rc == 0, err
    results = [line for line in visible(out) if re.match(r"\d+\. ", line)]
    assert results and all(re.match(r"\d+\. DSG-\d{4}  \d+\.\d+  \S", line) for line in results)
    assert "…" not in out and "┃" not in out
