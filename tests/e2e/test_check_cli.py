"""``genesis check`` through the console script: the three outputs, the exit codes, an
80-column terminal, an ASCII-only stream, data that looks like markup, the pre-push hook
of real clones pushing to a real bare remote, the CI recipes of the how-to run as
written, a story's evidence bound by the real hooks, and the MCP tool."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from clones import clone, g, gen
from helpers import commit_files, genesis_cmd, git, make_repo, write

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HOWTO = ROOT / "docs" / "how-to" / "review-a-change.md"
ORDER = "class Order:\n    def total(self):\n        return {n}\n"
SCHEMA = "from models.order import Order\n\n\ndef dump(o: Order):\n    return {{'total': {n}}}\n"
ODD = "api/we|ird`<b>x</b>` ü.py"  # a path that is markup in Markdown and not ASCII


def history(root: Path, partner: str = "api/order_schema.py") -> None:
    """Five commits that changed models/order.py with ``partner``."""
    for n in range(1, 6):
        commit_files(root, f"order total {n}", {"models/order.py": ORDER.format(n=n),
                                                partner: SCHEMA.format(n=n)})


def cli(cwd: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", {"models/order.py": ORDER.format(n=0),
                                         "api/order_schema.py": SCHEMA.format(n=0),
                                         ODD: SCHEMA.format(n=0), "README.md": "# shop\n"})
    history(root)
    history(root, ODD)
    write(root, "models/order.py", ORDER.format(n=99))
    git(root, "add", "-A")
    return root


def test_text_json_markdown_and_exit_codes(shop: Path) -> None:
    text = cli(shop, "check", "--staged", env={**os.environ, "COLUMNS": "80"})
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "staged (1 file): 2 files probably missing"
    assert "api/order_schema.py" in text.stdout
    assert all(len(line) <= 80 for line in lines), lines
    assert '"api/we|ird`<b>x</b>` \\303\\274.py"' not in text.stdout  # quotePath=false: as is
    assert "api/we|ird`<b>x</b>` ü.py" in text.stdout

    data = json.loads(cli(shop, "check", "--staged", "--json").stdout)
    assert data["schema"] == "genesis.check/1"
    assert data["change"]["files"] == [{"path": "models/order.py", "status": "M"}]
    first = data["missing"][0]
    assert set(first) == {"path", "score", "confidence", "reasons"}
    assert first["confidence"] >= data["min_confidence"] == 0.5
    assert first["reasons"][0]["source"] == "co-change"

    md = cli(shop, "check", "--staged", "--markdown").stdout
    assert md.startswith("### genesis check: 2 files this change may have forgotten")
    row = next(line for line in md.splitlines() if "ird" in line)
    assert "<b>" not in row and "&lt;b&gt;" in row  # no HTML gets into a comment
    assert row.count("|") - row.count("\\|") == 4  # the path's bar cannot split the table
    assert "\\`" in row

    assert cli(shop, "check", "--staged", "--fail-on", "0.5").returncode == 6
    assert cli(shop, "check", "--staged", "--fail-on", "0.99").returncode == 0


def test_nothing_missing_prints_nothing_on_stdout(shop: Path) -> None:
    for rel in ("api/order_schema.py", ODD):
        write(shop, rel, SCHEMA.format(n=99))
    git(shop, "add", "-A")
    for args in ((), ("--markdown",)):
        proc = cli(shop, "check", "--staged", *args)
        assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
        assert proc.stderr.startswith("genesis: nothing missing in staged (3 files)")
    data = json.loads(cli(shop, "check", "--staged", "--json").stdout)
    assert data["missing"] == []


def test_bad_input_is_one_line(shop: Path) -> None:
    cases = [(("nope",), 1, "genesis: error: not a revision or range: 'nope'"),
             (("--staged", "HEAD"), 2, "--staged and a revision cannot be used together"),
             (("--min-confidence", "3"), 2, "--min-confidence must be between 0 and 1"),
             (("--source", "gossip"), 2, "unknown source 'gossip'"),
             (("--json", "--markdown"), 2, "cannot be used together")]
    for args, code, line in cases:
        proc = cli(shop, "check", *args)
        assert proc.returncode == code, (args, proc.stderr)
        assert line in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout == ""


def test_an_ascii_only_stream(shop: Path) -> None:
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
    for fmt in ((), ("--markdown",), ("--json",)):
        proc = cli(shop, "check", "--staged", *fmt, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        proc.stdout.encode("ascii")
    assert "\\u00fc" in cli(shop, "check", "--staged", "--json", env=env).stdout


# -- the pre-push hook -------------------------------------------------------------------------

@pytest.fixture
def remote(tmp_path: Path) -> Path:
    seed = make_repo(tmp_path / "seed", {"models/order.py": ORDER.format(n=0),
                                         "api/order_schema.py": SCHEMA.format(n=0)})
    history(seed)
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


def push(clone_: Path, *extra: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    from clones import env_of

    return subprocess.run(["git", "push", "origin", "HEAD:main", *extra], cwd=clone_,
                          text=True, capture_output=True, env={**env_of(), **(env or {})})


def test_pre_push_warns_only_when_asked_and_never_blocks(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    write(ana, "models/order.py", ORDER.format(n=50))
    g(ana, "commit", "-qam", "order total 50")
    quiet = push(ana)
    assert quiet.returncode == 0 and "forgotten" not in quiet.stderr  # off by default

    write(ana, ".genesis.toml", "[check]\npre_push = true\n")
    write(ana, "models/order.py", ORDER.format(n=51))
    g(ana, "add", "-A")
    g(ana, "commit", "-qm", "order total 51")
    warned = push(ana)
    assert warned.returncode == 0, warned.stderr
    assert re.search(r"genesis: warning: the commits pushed may have forgotten 1 file "
                     r"\(genesis check [0-9a-f]{12}\.\.[0-9a-f]{12}\):\n", warned.stderr), warned.stderr
    assert "api/order_schema.py  (co-change: changed with models/order.py" in warned.stderr
    assert g(ana, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")


def test_pre_push_with_unreadable_settings_says_so_once_and_pushes(remote: Path,
                                                                    tmp_path: Path) -> None:
    cy = clone(remote, tmp_path, "cy")
    write(cy, ".genesis.toml", "[check\npre_push = true\n")  # not TOML
    write(cy, "models/order.py", ORDER.format(n=70))
    g(cy, "add", "models/order.py")
    g(cy, "commit", "-qm", "order total 70")
    pushed = push(cy)
    assert pushed.returncode == 0, pushed.stderr
    said = [line for line in pushed.stderr.splitlines() if line.startswith("genesis:")]
    assert len(said) == 1, said
    assert said[0].startswith("genesis: warning: genesis's settings could not be read (")
    assert said[0].endswith("); no pre-push check or ledger push this time")
    assert g(cy, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")


def test_pre_push_refuses_only_at_fail_on(remote: Path, tmp_path: Path) -> None:
    bo = clone(remote, tmp_path, "bo")
    write(bo, ".genesis.toml", "[check]\npre_push = true\nfail_on = 0.5\n")
    write(bo, "models/order.py", ORDER.format(n=60))
    g(bo, "add", "-A")
    g(bo, "commit", "-qm", "order total 60")
    before = git(remote, "rev-parse", "main")
    refused = push(bo)
    assert refused.returncode != 0
    assert "genesis: error: push refused: a file reached check.fail_on (0.5)" in refused.stderr
    assert git(remote, "rev-parse", "main") == before
    assert push(bo, env={"GENESIS_HOOKS": "0"}).returncode == 0  # the documented way out
    # a complete change goes through with the check on
    write(bo, "models/order.py", ORDER.format(n=61))
    write(bo, "api/order_schema.py", SCHEMA.format(n=61))
    g(bo, "commit", "-qam", "order total 61")
    done = push(bo)
    assert done.returncode == 0 and "forgotten" not in done.stderr, done.stderr


# -- the CI recipes of the how-to ---------------------------------------------------------------

def _block(after: str) -> str:
    """The first ```yaml block after the heading ``after`` in the how-to."""
    text = HOWTO.read_text(encoding="utf-8")
    return text.split(after, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


def _fake(bin_dir: Path, name: str) -> Path:
    """A stand-in for ``name`` that records its arguments and the body file it was given."""
    log = bin_dir / f"{name}.log"
    script = bin_dir / name
    script.write_text("#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + str(log) + "\n"
                      "for a in \"$@\"; do case $a in *check.md) cat \"${a#body@}\" >> "
                      + str(log) + ";; esac; done\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return log


def _pull_request(remote: Path, tmp_path: Path, complete: bool) -> Path:
    work = clone(remote, tmp_path, "cy", init=False)
    g(work, "checkout", "-q", "-b", "feature")
    write(work, "models/order.py", ORDER.format(n=70))
    if complete:
        write(work, "api/order_schema.py", SCHEMA.format(n=70))
    g(work, "commit", "-qam", "order total 70")
    return work


def _ci_env(tmp_path: Path, extra: dict[str, str]) -> dict[str, str]:
    from clones import env_of

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    venv_bin = str(Path(genesis_cmd()[0]).parent)
    return {**env_of(), "PATH": f"{bin_dir}{os.pathsep}{venv_bin}{os.pathsep}"
            + os.environ["PATH"], **extra}


@pytest.mark.parametrize("complete", [False, True])
def test_github_actions_recipe(remote: Path, tmp_path: Path, complete: bool) -> None:
    block = _block("### GitHub Actions")
    step = block.split("- name: What did this change forget?", 1)[1]
    script = "\n".join(line[10:] for line in step.split("run: |\n", 1)[1].splitlines())
    assert "genesis check --markdown" in script and "gh pr comment" in script
    work = _pull_request(remote, tmp_path, complete)
    env = _ci_env(tmp_path, {"BASE": "origin/main", "PR": "7", "GH_TOKEN": "t"})
    log = _fake(tmp_path / "bin", "gh")
    proc = subprocess.run(["sh", "-e", "-c", script], cwd=work, env=env, text=True,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    if complete:
        assert not log.exists()  # a complete pull request gets no comment
    else:
        posted = log.read_text(encoding="utf-8")
        assert posted.startswith("pr comment 7 --body-file genesis-check.md\n")
        assert "### genesis check: 1 file this change may have forgotten" in posted
        assert "api/order\\_schema.py" in posted


def test_gitlab_ci_recipe(remote: Path, tmp_path: Path) -> None:
    block = _block("### GitLab CI")
    body = block.split("  script:\n", 1)[1]
    items = re.split(r"\n    - ", "\n" + body.rstrip())[1:]
    commands = [re.sub(r"^\|\n", "", item).replace("\n      ", "\n") for item in items]
    commands = [c for c in commands if not c.startswith("pip install")]
    assert len(commands) == 3 and "curl" in commands[-1]
    work = _pull_request(remote, tmp_path, complete=False)
    g(work, "update-ref", "-d", "refs/remotes/origin/main")  # the job fetches it itself
    env = _ci_env(tmp_path, {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                             "GENESIS_GITLAB_TOKEN": "t", "CI_API_V4_URL": "https://gl/api/v4",
                             "CI_PROJECT_ID": "3", "CI_MERGE_REQUEST_IID": "9"})
    log = _fake(tmp_path / "bin", "curl")
    for command in commands:
        proc = subprocess.run(["sh", "-e", "-c", command], cwd=work, env=env, text=True,
                              capture_output=True, timeout=120)
        assert proc.returncode == 0, (command, proc.stderr)
    posted = log.read_text(encoding="utf-8")
    assert "PRIVATE-TOKEN: t" in posted and "body@genesis-check.md" in posted
    assert "https://gl/api/v4/projects/3/merge_requests/9/notes" in posted
    assert "api/order\\_schema.py" in posted


# -- the story and the MCP tool ----------------------------------------------------------------

def test_the_story_lends_the_files_its_notes_name(remote: Path, tmp_path: Path) -> None:
    dee = clone(remote, tmp_path, "ana")
    write(dee, "api/invoice.py", "def invoice():\n    return 0\n")
    g(dee, "add", "-A")
    g(dee, "commit", "-qm", "invoice")
    gen(dee, "session", "start")
    gen(dee, "session", "note", "the invoice in api/invoice.py must show the total",
        "--role", "decision")
    write(dee, "models/order.py", ORDER.format(n=80))
    write(dee, "api/order_schema.py", SCHEMA.format(n=80))
    g(dee, "commit", "-qam", "STORY-7: order totals on invoices")
    data = json.loads(gen(dee, "check", "HEAD", "--json").stdout)
    assert data["change"]["stories"] == ["STORY-7"]
    item = next(m for m in data["missing"] if m["path"] == "api/invoice.py")
    assert item["reasons"][0]["source"] == "story"
    assert "STORY-7's requirement or notes name it" in item["reasons"][0]["detail"]
    without = json.loads(gen(dee, "check", "HEAD", "--json", "--source", "co-change").stdout)
    assert "api/invoice.py" not in {m["path"] for m in without["missing"]}


def test_the_mcp_tool_answers_as_the_command(shop: Path) -> None:
    from test_mcp import RawClient

    client = RawClient(shop)
    try:
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}})
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        got = client.call("check", {"staged": True})
        assert not got.get("isError"), got
        assert got["structuredContent"] == json.loads(
            cli(shop, "check", "--staged", "--json").stdout)
        assert got["content"][0]["text"].startswith("staged (1 file): 2 files probably missing")
        bad = client.call("check", {"rev": "nope"})
        assert bad["isError"] and "not a revision or range" in bad["content"][0]["text"]
    finally:
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=60) == 0
