"""What must never leave a clone through the shared ledger: the ledger itself to a remote
that was not named for it, a secret written in a note, and a note that is not UTF-8.
Real clones of a real bare remote over ``file://``, with the hooks installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from genesis_git.app.workspaces import Workspaces
from genesis_git.mcp.server import build_server
from genesis_git.stories.ledger import records as R

from clones import clone, commit, context, env_of, g, gen, make_remote
from helpers import git

pytestmark = pytest.mark.slow

TOKEN = "ghp_" + "Zq7Lw2Xc9Vb4Nm1Kj8Hg" + "5Fd3Sa6Pe0Ry4Tu7Io2U"
OTHER_TOKEN = "ghp_" + "Aa1Bb2Cc3Dd4Ee5Ff6Gg" + "7Hh8Ii9Jj0Kk1Ll2Mm3N"
AWS = "AKIA" + "Q3EXAMPLEZ7WN4RT"
KEY = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u\n"


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit on main, sharing on, no [ledger] remotes."""
    return make_remote(tmp_path)


def bare(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(path))
    return path


def objects(repo: Path) -> bytes:
    """Every object the repository holds (loose or packed), as bytes."""
    return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                          capture_output=True, check=True).stdout


def genesis_refs(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/genesis/").split()


def push(clone_: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", "push", "-q", *args], cwd=clone_, text=True,
                          capture_output=True, env=env_of(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


# -- point 7: the ledger goes only to the remotes named for it --------------------------------

def test_a_second_remote_gets_no_ledger_from_push_or_sync(remote: Path, tmp_path: Path) -> None:
    public = bare(tmp_path, "public")
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "note", "the team's private reasoning about discounts")
    commit(ana, "app/orders.py", "def total(items):\n    return sum(items) or 0\n",
           "STORY-12: totals")
    g(ana, "remote", "add", "public", f"file://{public}")
    push(ana, "public", "main")  # the pre-push hook fires for public
    assert genesis_refs(public) == []
    push(ana, "-u", "public", "main")  # public even becomes the branch's upstream
    synced = gen(ana, "sync", "public")
    assert "public does not get the ledger ([ledger] remotes = origin): nothing was pushed" \
        in synced.stderr
    gen(ana, "sync")  # no remote named: the ledger remote, not the upstream
    assert genesis_refs(public) == []
    assert b"private reasoning" not in objects(public)
    assert git(public, "rev-parse", "main").strip() == g(ana, "rev-parse", "HEAD").strip()
    # origin, the remote the ledger is shared with, has it all
    assert R.LEDGER_REF in genesis_refs(remote)
    assert b"private reasoning" in objects(remote)
    status = gen(ana, "hooks", "status").stdout
    assert "ledger: pushed to origin; never to public" in status.splitlines()


def test_a_push_that_names_the_ledger_refs_for_another_remote_is_warned(
        remote: Path, tmp_path: Path) -> None:
    public = bare(tmp_path, "public")
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "note", "a note")
    commit(ana, "app/orders.py", "x = 1\n", "STORY-12: totals")
    push(ana, "origin", "main")
    g(ana, "remote", "add", "public", f"file://{public}")
    spelled = push(ana, "public", "refs/genesis/ledger:refs/genesis/ledger")
    assert spelled.stderr.splitlines() == [
        "genesis: warning: this push sends the story ledger (refs/genesis/ledger) to public, "
        "which is not in [ledger] remotes (origin)"]
    assert genesis_refs(public) == ["refs/genesis/ledger"]  # git sends what was named
    plain = push(ana, "public", "main")
    assert plain.stderr == ""


def test_init_share_names_the_remotes_and_only_they_get_the_ledger(tmp_path: Path) -> None:
    origin = bare(tmp_path, "origin")
    backup = bare(tmp_path, "backup")
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", f"file://{origin}", str(seed))
    for key, value in (("user.name", "Ana"), ("user.email", "ana@example.com"),
                       ("commit.gpgsign", "false")):
        git(seed, "config", key, value)
    commit(seed, "app.py", "x = 1\n", "initial")
    push(seed, "origin", "main")
    g(seed, "remote", "add", "backup", f"file://{backup}")
    bad = gen(seed, "init", "--share", "--remote", "nope", check=False)
    assert (bad.returncode, bad.stderr) == (
        2, "genesis: error: no remote named 'nope' (see `git remote -v`)\n")
    alone = gen(seed, "init", "--remote", "backup", check=False)
    assert alone.returncode == 2
    assert alone.stderr.startswith("genesis: error: --remote names where the ledger is shared")
    assert not (seed / ".genesis.toml").exists()
    out = gen(seed, "init", "--share", "--remote", "backup").stdout
    assert "ledger: shared through the git remote (backup)" in out
    toml = (seed / ".genesis.toml").read_text(encoding="utf-8")
    assert 'remotes = ["backup"]' in toml.splitlines()
    gen(seed, "hooks", "install")
    gen(seed, "session", "note", "kept for the backup only")
    commit(seed, "app.py", "x = 2\n", "STORY-3: change x")
    push(seed, "origin", "main")
    assert genesis_refs(origin) == []
    push(seed, "backup", "main")
    assert R.LEDGER_REF in genesis_refs(backup)
    assert b"kept for the backup only" in objects(backup)
    assert b"kept for the backup only" not in objects(origin)
    status = gen(seed, "hooks", "status").stdout.splitlines()
    assert "ledger: pushed to backup; never to origin" in status


def test_a_named_remote_that_is_missing_gets_nothing_and_origin_neither(
        remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    (ana / ".genesis.toml").write_text('[ledger]\nshare = true\nremotes = ["backup"]\n',
                                       encoding="utf-8")
    gen(ana, "session", "note", "for the backup remote only")
    commit(ana, "app/orders.py", "def total(items):\n    return sum(items) or 0\n",
           "STORY-12: totals")
    push(ana, "origin", "main")
    synced = gen(ana, "sync")  # no ledger remote here: origin is fetched, never pushed
    assert synced.stderr.splitlines()[-1] == (
        "genesis: origin does not get the ledger ([ledger] remotes = backup): nothing was pushed")
    assert genesis_refs(remote) == []
    assert gen(ana, "hooks", "status").stdout.splitlines()[-1] == (
        "ledger: pushed to backup (not a remote here); never to origin")
    backup = bare(tmp_path, "backup")
    g(ana, "remote", "add", "backup", f"file://{backup}")
    gen(ana, "sync")
    assert b"for the backup remote only" not in objects(remote)
    assert b"for the backup remote only" in objects(backup)


def test_init_share_without_a_name_writes_the_remote_it_sees(remote: Path,
                                                               tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana", init=False)
    gen(ana, "init", "--share")
    lines = (ana / ".genesis.toml").read_text(encoding="utf-8").splitlines()
    assert lines[lines.index("[ledger]") + 1:lines.index("[ledger]") + 3] == [
        'remotes = ["origin"]', "share = true"]


def test_hooks_status_when_the_ledger_is_not_shared(tmp_path: Path) -> None:
    repo = tmp_path / "solo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    gen(repo, "init")
    assert gen(repo, "hooks", "status").stdout.splitlines()[-1] == (
        "ledger: not shared, it stays in this clone (`genesis init --share` shares it)")


# -- point 8: a secret in a note never leaves the clone ----------------------------------------

def test_a_secret_never_reaches_the_remote(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    said = gen(ana, "session", "note", f"CI uses {TOKEN} for the release job")
    assert said.stderr.splitlines()[-1] == (
        "genesis: warning: the note looks like it holds a GitHub token: kept private in this "
        "clone, never shared (--allow-secret shares it)")
    assert "(private)" in said.stdout
    gen(ana, "session", "note", "rotate the key", "--section", f"aws {AWS}")
    gen(ana, "session", "note", f"deploy key:\n{KEY}", "--role", "risk")
    gen(ana, "session", "note", "db at postgres://orders:Hunter2x9@db.internal/orders")
    gen(ana, "session", "note", "the public part of the decision", "--role", "decision")
    gen(ana, "session", "note", f"shared on purpose {OTHER_TOKEN}", "--allow-secret")
    commit(ana, "app/orders.py", "def total(items):\n    return sum(items) or 0\n",
           "STORY-12: totals")
    push(ana, "origin", "main")
    gen(ana, "sync")
    held = objects(remote)
    for secret in (TOKEN, AWS, "OPENSSH PRIVATE KEY", "Hunter2x9"):
        assert secret.encode() not in held, secret
    assert b"the public part of the decision" in held
    assert OTHER_TOKEN.encode() in held  # --allow-secret shares it
    # the secret notes are bound to the story in this clone, kept private
    ctx = context(ana)
    kept = [a for items in ctx["artifacts"].values() for a in items if not a["shared"]]
    assert len(kept) == 4
    bo = clone(remote, tmp_path, "bo")
    seen = [a["summary"] for items in context(bo)["artifacts"].values() for a in items]
    assert sorted(seen) == sorted(["the public part of the decision",
                                   f"shared on purpose {OTHER_TOKEN}"])


def test_the_mcp_tool_keeps_a_secret_note_private(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    server, _tools = build_server(Workspaces(limit=1))

    async def drive() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool("session_note", {"text": f"token {TOKEN}",
                                                            "repo": str(ana)}),
                    await client.call_tool("session_note", {"text": f"token {OTHER_TOKEN}",
                                                            "allow_secret": True,
                                                            "repo": str(ana)}),
                    await client.call_tool("session_note", {"text": "bad \udcff byte",
                                                            "repo": str(ana)})]

    kept, allowed, broken = anyio.run(drive)
    assert broken.is_error
    assert broken.content[0].text.startswith("the note is not valid UTF-8 (at character 5)")
    assert not kept.is_error and not allowed.is_error
    assert kept.structured_content["private"] is True
    assert kept.structured_content["secret"] == {"rule": "github-token",
                                                 "what": "a GitHub token"}
    assert kept.content[0].text.endswith(
        "Warning: the note looks like it holds a GitHub token: kept private in this clone, "
        "never shared (allow_secret=true shares it)")
    assert TOKEN not in kept.content[0].text
    assert allowed.structured_content["private"] is False
    assert allowed.structured_content["secret"] is None


# -- point 15: a note that is not UTF-8 -------------------------------------------------------

def run_bytes(cwd: Path, *args: str | bytes, stdin: bytes | None = None
              ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=cwd,
                          input=stdin, capture_output=True, env=env_of(), timeout=120)


@pytest.mark.parametrize(("args", "stdin", "message"), [
    ((b"caf\xe9 au lait",), None, b"the note is not valid UTF-8 (at character 4)"),
    (("-F", "-"), b"ok then \xff\xfe", b"standard input is not valid UTF-8 (byte 9)"),
    (("--file", "note.txt"), None, b"note.txt is not valid UTF-8 (byte 3)"),
    ((b"fine", "--section", b"\x80bad"), None, b"the --section is not valid UTF-8"),
])
def test_a_note_that_is_not_utf8_is_one_line_and_exit_2(
        tmp_path: Path, args: tuple[str | bytes, ...], stdin: bytes | None,
        message: bytes) -> None:
    repo = tmp_path / "solo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    gen(repo, "init")
    (repo / "note.txt").write_bytes(b"ab\xc3(\n")
    proc = run_bytes(repo, "session", "note", *args, stdin=stdin)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == b""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(b"genesis: error: " + message), proc.stderr
    assert b"Traceback" not in proc.stderr
    # nothing was recorded, not even a session started
    listed = run_bytes(repo, "session", "artifacts")
    assert (listed.returncode, listed.stderr.split(b" (")[0]) == (
        1, b"genesis: error: no active session in this worktree")


def test_a_note_read_from_a_file_or_stdin(tmp_path: Path) -> None:
    repo = tmp_path / "solo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    gen(repo, "init")
    (repo / "note.md").write_text("订单 discount_code\nsecond line\n", encoding="utf-8")
    assert run_bytes(repo, "session", "note", "-F", "note.md").returncode == 0
    assert run_bytes(repo, "session", "note", "-F", "-", stdin="从 stdin".encode()
                     ).returncode == 0
    both = run_bytes(repo, "session", "note", "x", "-F", "note.md")
    assert (both.returncode, both.stderr) == (
        2, b"genesis: error: give the note as an argument or with --file, not both\n")
    missing = run_bytes(repo, "session", "note", "-F", "gone.md")
    assert missing.returncode == 2
    assert missing.stderr.startswith(b"genesis: error: cannot read gone.md: ")
    import json

    notes = json.loads(run_bytes(repo, "session", "artifacts", "--json").stdout)
    assert [a["summary"] for a in notes["artifacts"]] == ["订单 discount_code\nsecond line",
                                                          "从 stdin"]


def test_hooks_status_with_a_broken_configuration_still_lists_the_hooks(tmp_path: Path) -> None:
    repo = tmp_path / "solo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / ".genesis.toml").write_text("[ledger\nshare = true\n", encoding="utf-8")
    out = gen(repo, "hooks", "status")
    lines = out.stdout.splitlines()
    assert lines[1] == "  commit-msg    missing"
    assert lines[-1].startswith("ledger: unknown, the configuration cannot be read (")
