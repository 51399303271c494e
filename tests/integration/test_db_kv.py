"""``db/kv.py``: genesis_kv by namespace and key, on a real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.store import kv
from genesis_git.store.connect import connect, transaction


def test_namespaced_values_round_trip_and_stay_apart(tmp_path: Path) -> None:
    conn = connect(tmp_path / "genesis.db")
    with transaction(conn):
        kv.put(conn, "meta", "s-1", "abc")
        kv.put_json(conn, "state", "s-1", {"key": "k", "files": 3})
        kv.put_json(conn, "lastmod", "", {"head": "h"})
        kv.put(conn, "state", "s-2", "{not json")
    assert kv.get(conn, "meta", "s-1") == "abc"
    assert kv.get(conn, "state", "s-1") == '{"key": "k", "files": 3}'
    assert kv.get_json(conn, "state", "s-1") == {"key": "k", "files": 3}
    assert kv.get_json(conn, "lastmod") == {"head": "h"}
    assert kv.get_json(conn, "state", "s-2") is None  # damaged: as if missing
    assert kv.get(conn, "meta", "s-2") is None
    # the stored keys are those earlier versions wrote
    assert sorted(r[0] for r in conn.execute("SELECT key FROM genesis_kv")) == [
        "lastmod", "meta:s-1", "state:s-1", "state:s-2"]
    with transaction(conn):
        kv.delete(conn, "state", ["s-1", "s-9"])
    assert kv.get(conn, "state", "s-1") is None and kv.get(conn, "meta", "s-1") == "abc"
    with pytest.raises(ValueError, match="no colon"):
        kv.get(conn, "a:b", "c")


def test_keep_newest_trims_one_namespace_only(tmp_path: Path) -> None:
    conn = connect(tmp_path / "genesis.db")
    with transaction(conn):
        for i in range(6):
            kv.put(conn, "cochange", f"h{i}", str(i))
            conn.execute("UPDATE genesis_kv SET updated_at=? WHERE key=?",
                         (f"2026-01-0{i + 1}", f"cochange:h{i}"))
        kv.put(conn, "meta", "s", "x")
        kv.keep_newest(conn, "cochange", 4)
    assert sorted(r[0] for r in conn.execute("SELECT key FROM genesis_kv")) == [
        "cochange:h2", "cochange:h3", "cochange:h4", "cochange:h5", "meta:s"]
