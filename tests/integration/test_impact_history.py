"""History signals from a real repository: co-change (ROSE), similar commits, churn, stories."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from genesis_git.git.repo import find_repo
from genesis_git.impact import history as H
from genesis_git.impact.history import (
    History,
    churn_scores,
    cochange_scores,
    load_history,
    similar_commit_scores,
    story_records,
    story_scores,
)
from genesis_git.store import stories as story_rows
from genesis_git.store.connect import connect

from helpers import commit_files, git, make_repo


def commit(root: Path, message: str, files: dict[str, str]) -> None:
    commit_files(root, message, dict(files))


@pytest.fixture
def history_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "h", {"a.py": "a0\n", "b.py": "b0\n", "c.py": "c0\n",
                                      "CHANGES.rst": "0\n"})
    commit(root, "Add discount codes to orders\n\nSigned-off-by: X <x@y.z>",
           {"a.py": "a1\n", "b.py": "b1\n"})
    commit(root, "Fix rounding of totals", {"a.py": "a2\n", "b.py": "b2\n"})
    commit(root, "Document login", {"a.py": "a3\n", "c.py": "c1\n"})
    commit(root, "Reformat everything", {f"gen/f{i}.py": f"{i}\n" for i in range(25)})
    git(root, "checkout", "-q", "-b", "side")
    commit(root, "Side work on c and b", {"c.py": "c9\n", "b.py": "b9\n"})
    git(root, "checkout", "-q", "main")
    return root


def test_transactions_follow_heads_ancestry_only(history_repo: Path) -> None:
    hist = load_history(None, find_repo(history_repo))
    assert hist.changes == 5  # the side branch is not HEAD's history
    subjects = hist.subjects
    assert subjects == ["Reformat everything", "Document login", "Fix rounding of totals",
                        "Add discount codes to orders", "initial"]
    names = [sorted(hist.files[i] for i in tx) for tx in hist.transactions]
    assert names[1:4] == [["a.py", "c.py"], ["a.py", "b.py"], ["a.py", "b.py"]]
    assert len(names[0]) == 25
    assert "signed" not in hist.message_tokens[3].split()  # trailers are dropped


def test_rose_confidence_and_support(history_repo: Path) -> None:
    hist = load_history(None, find_repo(history_repo))
    single, pair = hist.counts()
    assert "gen/f0.py" not in single  # a 25-file transaction is not a coupling signal
    w = hist.weights()
    assert single["a.py"] == pytest.approx(w[1] + w[2] + w[3] + w[4])
    assert pair["a.py"]["b.py"] == pytest.approx(w[2] + w[3] + w[4])
    co = cochange_scores(hist, {"a.py": 1.0}, ["b.py", "c.py", "a.py"])
    assert co["b.py"][0] == pytest.approx(pair["a.py"]["b.py"] / (single["a.py"] + 1))
    assert co["b.py"][0] > co["c.py"][0] > 0
    assert co["b.py"][1] == ["a.py"]
    assert "a.py" not in co  # a seed is not its own neighbour
    assert cochange_scores(hist, {"a.py": 1.0}, ["b.py"], min_support=10.0) == {}
    assert cochange_scores(hist, {"nowhere.py": 1.0}, ["b.py"]) == {}
    churn = churn_scores(hist, ["a.py", "b.py", "zzz.py"])
    assert set(churn) == {"a.py", "b.py"} and churn["a.py"] > churn["b.py"]


def test_similar_commits_lend_their_files(history_repo: Path) -> None:
    hist = load_history(None, find_repo(history_repo))
    sim = similar_commit_scores(hist, {"discount": 1.0, "code": 1.0, "order": 0.5},
                                ["a.py", "b.py", "c.py"])
    assert set(sim) == {"a.py", "b.py"}
    assert sim["a.py"][0] == pytest.approx(sim["b.py"][0])
    assert sim["a.py"][1][0].endswith(" Add discount codes to orders")
    assert similar_commit_scores(hist, {"unrelated": 1.0}, ["a.py"]) == {}
    assert similar_commit_scores(History(None, [], [], 0), {"x": 1.0}, ["a.py"]) == {}


def test_history_is_cached_by_head_in_genesis_kv(history_repo: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connect(tmp_path / "store.db")
    repo = find_repo(history_repo)
    head = repo.head_sha()
    first = load_history(conn, repo)
    row = conn.execute("SELECT value FROM genesis_kv WHERE key=?", (f"cochange:{head}",)).fetchone()
    assert row is not None and json.loads(row[0])["version"] == H.CACHE_VERSION

    def no_log(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("history was read again")

    monkeypatch.setattr(repo, "log", no_log)
    H.forget_histories()  # what the store keeps, not what this process keeps
    again = load_history(conn, repo)
    assert (again.files, again.transactions, again.subjects) == (
        first.files, first.transactions, first.subjects)
    monkeypatch.undo()
    commit(history_repo, "More work", {"b.py": "b3\n"})
    moved = load_history(conn, repo)
    assert moved.changes == 6 and moved.head != head
    keys = [r[0] for r in conn.execute("SELECT key FROM genesis_kv WHERE key LIKE 'cochange:%'")]
    assert sorted(keys) == sorted([f"cochange:{head}", f"cochange:{moved.head}"])


def test_old_heads_are_evicted_and_damaged_entries_rebuilt(history_repo: Path,
                                                            tmp_path: Path) -> None:
    conn = connect(tmp_path / "store.db")
    repo = find_repo(history_repo)
    for i in range(H.CACHE_KEEP + 2):
        commit(history_repo, f"step {i}", {"c.py": f"{i}\n"})
        load_history(conn, repo)
    n = conn.execute("SELECT COUNT(*) FROM genesis_kv WHERE key LIKE 'cochange:%'").fetchone()[0]
    assert n == H.CACHE_KEEP
    conn.execute("UPDATE genesis_kv SET value='{broken' WHERE key=?",
                 (f"cochange:{repo.head_sha()}",))
    assert load_history(conn, repo).subjects[0] == f"step {H.CACHE_KEEP + 1}"


def test_a_repository_without_commits_has_no_history(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "empty", {"a.py": "x\n"}, commit=False)
    hist = load_history(None, find_repo(root))
    assert (hist.head, hist.transactions) == (None, [])


def test_story_scores_favour_similar_stories() -> None:
    stories = [("STORY-1", "订单 discount code for orders", ["app/order.py", "db/schema.sql"]),
               ("STORY-2", "user login lockout", ["app/user.py"]),
               ("STORY-3", "discount banner", ["web/banner.html", "gone.py"])]
    scores = story_scores(stories, {"discount": 1.0, "code": 1.0, "order": 0.5},
                          ["app/order.py", "db/schema.sql", "app/user.py", "web/banner.html"])
    assert set(scores) == {"app/order.py", "db/schema.sql", "web/banner.html"}
    assert scores["app/order.py"][0] > scores["web/banner.html"][0]
    assert scores["app/order.py"][1] == ["STORY-1"]
    assert story_scores([], {"x": 1.0}, ["a"]) == {}
    assert story_scores(stories, {"nothing": 1.0}, ["app/order.py"]) == {}


def test_story_records_read_the_ledger_and_unreadable_tables_give_none(tmp_path: Path) -> None:
    assert story_records(sqlite3.connect(":memory:")) == []  # no ledger tables: none, no error
    conn = connect(tmp_path / "genesis.db")
    story_rows.add_record(conn, "S-1", "shop", "add a discount code", "draft", None, "ann",
                          "2026-01-01T00:00:00Z")
    story_rows.add_artifact(conn, "S-1", "decision", None, None, "app/order.py", None, None,
                            None, "codes are upper case", "note:1", "ann",
                            "2026-01-01T00:00:00Z", None)
    conn.commit()
    assert story_records(conn) == [
        ("S-1", "add a discount code\ncodes are upper case", ["app/order.py"])]
