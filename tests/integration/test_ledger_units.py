"""The pieces around the shared ledger: the pre-push hook's choices, `init --share`,
the cheap check that a ledger ref moved, and the store's records."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from genesis_git.app.initialize import enable_share
from genesis_git.hooks import run as hookrun
from genesis_git.hooks.runtime import HookRepo
from genesis_git.store.connect import connect
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import outbox, view
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger import sync as S

from helpers import git, make_repo


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A clone with sharing on, a store, one story, and a bare remote ``origin``."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".genesis.toml": "[ledger]\nshare = true\n"})
    git(repo, "remote", "add", "origin", f"file://{bare}")
    monkeypatch.chdir(repo)
    from genesis_git.app.facade import Genesis

    with Genesis(repo) as g:
        from genesis_git.stories.tables import set_record

        set_record(g.workspace.caught_up().conn, "p", "STORY-1", title="一个故事")
    return repo, bare


def _pre_push(repo: Path, stdin: str, args: list[str], monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    hook_repo = HookRepo(str(repo), str(repo / ".git"), str(repo / ".git"))
    assert hookrun.pre_push(hook_repo, args) == 0
    return capsys.readouterr().err


def test_pre_push_pushes_the_ledger_and_leaves_its_own_push_alone(
        shared: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, bare = shared
    line = f"refs/heads/main {'1' * 40} refs/heads/main {'0' * 40}\n"
    own = f"refs/genesis/ledger {'1' * 40} refs/genesis/ledger {'0' * 40}\n"
    assert _pre_push(repo, own, ["origin", str(bare)], monkeypatch, capsys) == ""
    assert git(bare, "for-each-ref") == ""  # a push of the ledger itself does nothing more
    assert _pre_push(repo, line, [str(bare), str(bare)], monkeypatch, capsys) == ""
    assert git(bare, "for-each-ref") == ""  # a push to a URL: no remote to track it under
    assert _pre_push(repo, line, ["origin", str(bare)], monkeypatch, capsys) == ""
    assert git(bare, "rev-parse", R.LEDGER_REF).strip() == git(repo, "rev-parse",
                                                                R.LEDGER_REF).strip()


def test_pre_push_is_bounded_in_time_and_says_so_in_one_line(
        shared: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, bare = shared
    monkeypatch.setenv("GENESIS_PREPUSH_TIMEOUT", "0.0001")
    err = _pre_push(repo, f"refs/heads/main {'1' * 40} refs/heads/main {'0' * 40}\n",
                    ["origin", str(bare)], monkeypatch, capsys)
    assert err.splitlines() == ["genesis: warning: the story ledger was not pushed (no answer "
                                "from origin within 0.0001 s); `genesis sync` retries"]
    monkeypatch.setenv("GENESIS_PREPUSH_TIMEOUT", "soon")  # a bad value: the default applies
    assert _pre_push(repo, f"refs/heads/main {'1' * 40} refs/heads/main {'0' * 40}\n",
                     ["origin", str(bare)], monkeypatch, capsys) == ""


def test_pre_push_does_nothing_when_sharing_is_off(
        shared: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, bare = shared
    (repo / ".genesis.toml").write_text("[ledger]\nshare = false\n")
    assert _pre_push(repo, f"refs/heads/main {'1' * 40} refs/heads/main {'0' * 40}\n",
                     ["origin", str(bare)], monkeypatch, capsys) == ""
    assert git(bare, "for-each-ref") == ""


@pytest.mark.parametrize(("before", "after", "changed"), [
    ("", "\n# the story ledger is shared through the git remote (genesis sync)\n[ledger]\n"
         "share = true\n", True),
    ("[ledger]\nshare = false\n", "[ledger]\nshare = true\n", True),
    ("[ledger]\nshare = true  # team decision\n", "[ledger]\nshare = true  # team decision\n",
     False),
    ("[story]\nrequire_story = true\n\n[ledger]\n", "[story]\nrequire_story = true\n\n[ledger]\n"
                                                   "share = true\n", True),
    ("# [ledger]\n# share = false\n", "# [ledger]\n# share = false\n\n# the story ledger is "
     "shared through the git remote (genesis sync)\n[ledger]\nshare = true\n", True),
])
def test_enable_share_edits_the_config_once(tmp_path: Path, before: str, after: str,
                                            changed: bool) -> None:
    cfg = tmp_path / ".genesis.toml"
    if before:
        cfg.write_text(before)
    assert enable_share(cfg) is changed
    assert cfg.read_text() == after
    assert enable_share(cfg) is False


def test_signature_moves_only_when_a_ledger_ref_moves(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    common = repo / ".git"
    first = view.signature(common)
    assert view.signature(common) == first
    git(repo, "commit", "-q", "--allow-empty", "-m", "x")  # a branch moves: no matter
    assert view.signature(common) == first
    G.append_records(repo, [R.Record.new("story.created", story_id="S-1")])
    second = view.signature(common)
    assert second != first
    git(repo, "pack-refs", "--all")
    assert view.signature(common) != second  # the ref left its loose file
    (common / "reftable").mkdir()
    assert view.signature(common) == ""  # no cheap look: always ask git


def test_refresh_quietly_turns_a_failure_into_one_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    conn = connect(tmp_path / "g.db")
    conn.execute("DROP TABLE ledger_records")

    class Where:
        root = repo
        common_dir = repo / ".git"
        project_id = "r"

    G.append_records(repo, [R.Record.new("story.created", story_id="S-1")])
    view.refresh_quietly(conn, Where())
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("genesis: warning: the ledger view was not "
                                               "updated: no such table: ledger_records")


def test_records_of_the_store_carry_the_git_identity(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "config", "user.name", "Zoë 张")
    git(repo, "config", "user.email", "zoe@example.com")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GENESIS_HOME"):
        monkeypatch.delenv(var, raising=False)
    db = repo / ".git" / "genesis" / "genesis.db"
    db.parent.mkdir()
    conn = connect(db)
    monkeypatch.chdir(tmp_path)  # the identity comes from the store's clone, not the cwd
    with conn:
        rid = outbox.emit(conn, "story.title", {"title": "t", "empty": None}, story_id="S-1")
    line = conn.execute("SELECT line FROM ledger_records WHERE id=?", (rid,)).fetchone()[0]
    rec = R.Record.from_json(line)
    assert (rec.author_name, rec.author_email) == ("Zoë 张", "zoe@example.com")
    assert rec.payload == {"title": "t"}  # unknown values are left out
    assert outbox.author_text(conn) == "Zoë 张 <zoe@example.com>"
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Env Name")
    assert outbox.identity(conn)[0] == "Env Name"  # as git does for a commit


def test_a_private_record_is_never_pending(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    conn = connect(tmp_path / "g.db")
    with conn:
        outbox.emit(conn, "note.written", {"content": "mine"}, session_id="s-1", private=True)
        outbox.emit(conn, "note.written", {"content": "ours"}, session_id="s-1")
    assert [r.payload["content"] for r in view.pending(conn)] == ["ours"]
    assert view.flush(conn, repo) == 1
    assert view.flush(conn, repo) == 0
    text = "".join(git(repo, "show", f"{R.LEDGER_REF}:{path}") for path in git(
        repo, "ls-tree", "-r", "--name-only", R.LEDGER_REF).split() if path.endswith(".jsonl"))
    assert "ours" in text and "mine" not in text


def test_sync_helpers_read_the_remote_config(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    assert S.default_remote(repo) is None
    git(repo, "remote", "add", "upstream", "file:///nowhere")
    assert S.default_remote(repo) == "upstream"  # the only remote
    git(repo, "remote", "add", "origin", "file:///elsewhere")
    assert S.default_remote(repo) == "origin"
    git(repo, "config", "branch.main.remote", "upstream")
    assert S.default_remote(repo) == "upstream"  # the branch's own upstream first
    assert S.ensure_fetch_refspec(repo, "origin") is True
    assert S.ensure_fetch_refspec(repo, "origin") is False
    assert S.remove_fetch_refspecs(repo) == ["origin"]
    assert "+refs/heads/*:refs/remotes/origin/*" in git(repo, "config", "--get-all",
                                                        "remote.origin.fetch")
    with pytest.raises(Exception, match="no remote named 'nope'"):
        from genesis_git.app.facade import Genesis

        with Genesis(repo) as g:
            g.stories.sync("nope")


def test_store_json_of_a_record_survives_a_round_trip(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    rec = R.Record.new("artifact.added", story_id="S-1", author_name="a", author_email="a@x",
                       payload={"role": "risk", "content": "风险"})
    new = view.store_records(conn, [rec, rec])
    assert new == [rec]
    assert view.store_records(conn, [rec]) == []
    line = conn.execute("SELECT line FROM ledger_records").fetchone()[0]
    assert json.loads(line)["payload"]["content"] == "风险"
