"""One convention for every command: ``-k/--top``, words as the query, capital
metavariables and an example in every help, the exit-code rule, progress on a terminal
only, and the man page generated from the help."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.cli import docs, manpage
from genesis_git.cli.examples import EXAMPLES
from genesis_git.kernel import progress

from helpers import ROOT, commit_files, genesis_cmd, git, make_repo, read_pty

ESC = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run(cwd: Path, *args: str, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PYTHONPATH=str(ROOT), GENESIS_HOOKS_INDEX="off", **(env or {}))
    return subprocess.run([*genesis_cmd(), *args], cwd=cwd, capture_output=True, text=True,
                          env=full, timeout=300)


def _outcome(proc: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    return proc.returncode, proc.stdout, proc.stderr


# -- help: metavariables and examples ---------------------------------------------------------

def _entries() -> list[docs.Entry]:
    return list(docs.iter_commands())


def test_every_command_has_an_example_and_every_example_a_command() -> None:
    paths = [e.path for e in _entries()]
    assert sorted(EXAMPLES) == sorted(paths)
    for entry in _entries():
        text = docs._help_text(entry)
        assert "\n  Examples:\n" in text, entry.path
        shown = text.split("\n  Examples:\n", 1)[1].split()
        assert shown[0] in ("genesis", "git", "claude"), (entry.path, shown)


def test_help_names_every_value_in_capitals() -> None:
    offenders = []
    for entry in _entries():
        text = docs._help_text(entry)
        usage = text.splitlines()[0]
        words = usage.split("[OPTIONS]", 1)[-1].replace("COMMAND [ARGS]...", "").split()
        offenders += [f"{entry.path}: {w}" for w in words
                      if w.strip("[].") != w.strip("[].").upper()]
        offenders += [f"{entry.path}: {m}" for m in re.findall(
            r"\{[a-z_]+\}|<(?:int|str|float|text|path|integer)(?: range)?>", text)]
        for param in entry.command.params:
            if getattr(param, "hidden", False) or getattr(param, "is_flag", False):
                continue
            metavar = param.make_metavar(entry.context)
            if metavar != metavar.upper() and "|" not in metavar:
                offenders.append(f"{entry.path}: {param.name} {metavar}")
    assert offenders == []


def test_the_metavariables_read_as_the_help_says() -> None:
    helps = {e.path: docs._help_text(e) for e in _entries()}
    assert helps["genesis search"].startswith("Usage: genesis search [OPTIONS] QUERY...\n")
    assert helps["genesis story context"].startswith(
        "Usage: genesis story context [OPTIONS] STORY_ID\n")
    assert helps["genesis session retract"].startswith(
        "Usage: genesis session retract [OPTIONS] NOTE\n")
    assert helps["genesis sync"].startswith("Usage: genesis sync [OPTIONS] [REMOTE]\n")
    for path in ("genesis search", "genesis impact", "genesis design search"):
        assert re.search(r"^  -k, --top N +", helps[path], re.MULTILINE), path
    assert " -n" not in helps["genesis design search"]  # the old spelling works, unlisted
    assert "--role ROLE" in helps["genesis session note"]
    assert "--with-code N" in helps["genesis story context"]


def _parse(argv: list[str]) -> object:
    """Parse ``argv`` (after ``genesis``) the way the command line does, down to the command."""
    from typer.main import get_command

    from genesis_git.cli.main import app

    command = get_command(app)
    name, ctx = "genesis", None
    while True:
        ctx = command.make_context(name, list(argv), parent=ctx)
        if not hasattr(command, "resolve_command"):
            return command
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, command, argv = command.resolve_command(ctx, rest)


def test_every_example_is_a_valid_command_line() -> None:
    for lines in EXAMPLES.values():
        for line in lines:
            words = shlex.split(line.split("||")[0])
            if words[0] != "genesis":
                continue
            assert _parse(words[1:]) is not None, line


# -- words, -k/--top and the exit-code rule ----------------------------------------------------

@pytest.fixture
def shopped(shop: Path) -> Path:
    write_to = shop / "src" / "orders.py"
    write_to.parent.mkdir(parents=True, exist_ok=True)
    write_to.write_text("def order_total(items):\n    return sum(items)\n", encoding="utf-8")
    assert _run(shop, "session", "start").returncode == 0
    return shop


def test_search_takes_words_and_top_has_one_spelling(shopped: Path) -> None:
    words = _run(shopped, "search", "order", "total", "-k", "3")
    quoted = _run(shopped, "search", "--top", "3", "order total")
    assert words.returncode == 0, words.stderr
    assert words.stdout == quoted.stdout and len(words.stdout.splitlines()) == 3
    impact = _run(shopped, "impact", "--top", "2", "--json", "order", "total")
    assert impact.returncode == 0, impact.stderr
    assert len(json.loads(impact.stdout)["files"]) <= 2


def test_nothing_found_exits_1_with_nothing_on_stdout(shopped: Path) -> None:
    assert _outcome(_run(shopped, "search", "zebra", "pelican")) == (
        1, "", "genesis: no results: no chunk matches the query terms\n")
    as_json = _run(shopped, "search", "--json", "zebra")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["results"] == []
    assert _outcome(_run(shopped, "impact", "zebra")) == (
        1, "", "genesis: nothing in the index matches 'zebra'\n")
    assert _run(shopped, "search", "order").returncode == 0


def test_a_query_with_nothing_to_search_for_is_a_usage_error(shopped: Path) -> None:
    assert _outcome(_run(shopped, "search", "the", "of", "and")) == (
        2, "", "genesis: error: the query 'the of and' has only stopwords: nothing to search "
               "for (add a word that names what you are looking for)\n")


def test_session_status_answers_with_its_exit_code(repo: Path) -> None:
    assert _outcome(_run(repo, "session", "status")) == (
        1, "", "genesis: no active session (start one with `genesis session start`)\n")
    assert _outcome(_run(repo, "session", "status", "--json")) == (1, '{\n  "active": null\n}\n',
                                                                   "")
    assert _run(repo, "session", "start").returncode == 0
    status = _run(repo, "session", "status")
    assert (status.returncode, status.stderr) == (0, "") and status.stdout


def test_an_unknown_role_suggests_the_closest(repo: Path) -> None:
    assert _outcome(_run(repo, "session", "note", "keep it", "--role", "decisoin")) == (
        2, "", "genesis: error: unknown role 'decisoin' (did you mean 'decision'? choose from "
               "analysis, doc_change, note, decision, risk, test_model)\n")
    far = _run(repo, "session", "note", "keep it", "--role", "zzz")
    assert far.returncode == 2 and "did you mean" not in far.stderr


def test_design_search_without_a_card_exits_1(repo: Path) -> None:
    proc = _run(repo, "design", "search", "-n", "2", "dark", "card")  # -n: the old spelling
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.splitlines()[-1] == "genesis: no results"


# -- the man page ------------------------------------------------------------------------------

def test_the_man_page_is_generated_from_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    page = (ROOT / manpage.PAGE).read_text(encoding="utf-8")
    assert page == manpage.generate(), (
        "docs/genesis.1 is out of date: python -m genesis_git.cli.docs --man > docs/genesis.1")
    docs.main(["--man"])
    assert capsys.readouterr().out == page
    with pytest.raises(SystemExit) as exc:
        docs.main(["--bogus"])
    assert exc.value.code == 2
    for entry in _entries():
        assert f'.SS "{entry.path}"' in page or entry.path == "genesis"


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_the_man_page_reads_in_an_80_column_terminal(tmp_path: Path) -> None:
    proc = subprocess.run(["man", "-l", str(ROOT / manpage.PAGE)], capture_output=True,
                          env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat",
                                   LANG="C.UTF-8"), timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = re.sub(r".\x08", "", proc.stdout.decode("utf-8"))
    assert text.startswith("GENESIS(1)")
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "SEE ALSO"):
        assert f"\n{heading}\n" in text
    assert "   genesis search\n       Usage: genesis search [OPTIONS] QUERY...\n" in text
    assert "-k, --top N" in text  # an ASCII hyphen, to copy
    wide = [ln for ln in text.splitlines()
            if len(ln) > 80 and ln.isascii()]
    assert wide == []


# -- progress ------------------------------------------------------------------------------------

def _pty_stderr(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal and stdout on a pipe."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL)
    os.close(slave)
    err = read_pty(master)
    out = proc.stdout.read() if proc.stdout else b""
    if proc.stdout:
        proc.stdout.close()
    return proc.wait(timeout=300), out.decode(), err.decode("utf-8", "replace")


SHOW = """\
import sys, time
from genesis_git.cli.progress import shown
from genesis_git.kernel.progress import report, finished
with shown(delay=0.3):
    report("quick work", 1, 10)
    finished()
    report("long work", 3, 10)
    time.sleep(float(sys.argv[1]))
    print("result")
"""


@pytest.mark.parametrize(("seconds", "bar"), [(1.2, True), (0.0, False)])
def test_a_bar_shows_only_for_work_longer_than_the_delay(tmp_path: Path, seconds: float,
                                                         bar: bool) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS="80")
    code, out, err = _pty_stderr([sys.executable, "-c", SHOW, str(seconds)], tmp_path, env)
    assert (code, out) == (0, "result\n")
    assert ("long work 3/10" in err) is bar
    assert "quick work" not in err
    piped = subprocess.run([sys.executable, "-c", SHOW, str(seconds)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, "result\n", "")


def test_the_bar_on_an_ascii_only_stream_is_ascii(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS="80",
               PYTHONIOENCODING="ascii")
    code, out, err = _pty_stderr([sys.executable, "-c", SHOW, "1.2"], tmp_path, env)
    assert (code, out) == (0, "result\n")
    assert "long work 3/10" in err and err.isascii() and "\\u" not in err


def test_story_rebuild_reports_its_stages(repo: Path) -> None:
    from genesis_git.app.facade import Genesis

    for n in range(3):
        commit_files(repo, f"STORY-{n}: change {n}", {f"f{n}.txt": f"{n}\n"})
    seen: list[tuple[str, int, int | None]] = []
    with progress.listening(lambda what, done, total: seen.append((what, done, total))):
        with Genesis() as g:
            result = g.stories.rebuild()
    assert result["story_commits"] == 3
    assert [s[0] for s in seen] == [
        "story rebuild: reading git log",
        "story rebuild: reading the files each story commit changed",
        "story rebuild: binding the story commits", ""]
    assert seen[1][2] == 3
    piped = _run(repo, "story", "rebuild")
    assert piped.returncode == 0 and piped.stderr == "" and not ESC.search(piped.stdout)


@pytest.mark.slow
def test_the_first_search_of_a_large_tree_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "large", commit=False)
    for i in range(2000):
        body = "".join(f"def handler_{i}_{j}(order, total):\n    return order.total + {j}\n"
                       for j in range(20))
        (root / f"pkg{i % 40}").mkdir(exist_ok=True)
        (root / f"pkg{i % 40}" / f"module_{i}.py").write_text(body, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a large tree")
    args = ["search", "-k", "3", "handler_7_3"]
    # the bar at once: how long 2,000 files take to index is the machine's, not the test's
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS="80",
               GENESIS_HOOKS_INDEX="off", GENESIS_HOME=str(tmp_path / "home-terminal"),
               GENESIS_TEST_PROGRESS_DELAY="0")
    code, out, err = _pty_stderr([*genesis_cmd(), *args], root, env)
    assert code == 0, err
    assert "indexing" in err and "/2,000" in err  # the bar, with its count
    assert not ESC.search(out) and out.startswith("pkg7/module_7.py:")
    # the same first search with stderr on a pipe: the same stdout, no bar
    plain = _run(root, *args, env={"GENESIS_HOME": str(tmp_path / "home-pipe")})
    assert plain.returncode == 0 and plain.stdout == out
    assert plain.stderr.startswith("genesis: no session yet: started ")
    assert "\r" not in plain.stderr and not ESC.search(plain.stderr)
    assert "indexing" not in plain.stderr
