"""The search base built batch by batch is the file the in-memory build writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import session_index as si
from genesis_git.search.base import arrayfile
from genesis_git.search.base import build as basebuild
from genesis_git.search.base import stream as basestream
from genesis_git.search.session_index import (
    Base,
    PathSet,
    clear_memory,
    load_chunks,
    save_base,
    session_index,
)
from genesis_git.search.termindex import term_hash

from helpers import make_repo

FILES = {
    "src/orders.py": "".join(f"def order_{i}(total, items):\n    return total + {i}\n\n\n"
                             for i in range(40)),
    "docs/guide.md": "".join(f"# Part {i}\n\norder total discount code {i} 订单 表\n\n"
                             for i in range(30)),
    "db/schema.sql": "CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n  total NUMERIC\n);\n",
    "empty.txt": "",
    "copy/orders.py": "".join(f"def order_{i}(total, items):\n    return total + {i}\n\n\n"
                              for i in range(40)),
}


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, genesis_env: Path):
    root = make_repo(tmp_path / "shop", FILES)
    monkeypatch.chdir(root)
    clear_memory()
    ctx = open_context()
    return ctx, ensure_session(ctx)


@pytest.mark.parametrize(("batch", "slices", "workers"),
                         [(1, 1, 1), (3, 4, 2), (7, 64, 3), (10_000, 2, 2)])
def test_streamed_base_is_the_in_memory_base_byte_for_byte(
        session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int, slices: int,
        workers: int) -> None:
    ctx, sid = session
    monkeypatch.setattr(basestream, "WORKERS", workers)
    monkeypatch.setattr(basestream, "SHARE_MIN", 1)
    monkeypatch.setattr(basestream.os, "cpu_count", lambda: 4)
    forks: list[int] = []
    real_fork = basestream._fork_share

    def counting_fork(*args, **kwargs):  # type: ignore[no-untyped-def]
        forks.append(real_fork(*args, **kwargs))
        return forks[-1]

    monkeypatch.setattr(basestream, "_fork_share", counting_fork)
    rows, blobs, stamps = si._read_map(ctx.conn, sid)
    paths = [r[0] for r in rows]
    memory = Base("hash-t1-256", load_chunks(ctx.conn, blobs, "hash-t1-256"), PathSet.build(paths))
    assert memory.chunks.n > 60
    save_base(tmp_path / "memory.idx", memory)
    monkeypatch.setattr(basebuild, "BATCH_CHUNKS", batch)
    monkeypatch.setattr(basestream, "MERGE_SLICES", slices)
    real = basestream.stream_chunks

    def small(conn, blob_ids, embedder, folder, batch_chunks=batch, slices=slices):  # type: ignore[no-untyped-def]
        return real(conn, blob_ids, embedder, folder, batch_chunks, slices)

    monkeypatch.setattr(basestream, "stream_chunks", small)
    streamed = si.stream_base(ctx.conn, tmp_path / "streamed.idx", "hash-t1-256", blobs, stamps,
                              paths)
    assert streamed is not None
    assert (tmp_path / "streamed.idx").read_bytes() == (tmp_path / "memory.idx").read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".build"]  # spill files removed
    assert len(forks) == workers - 1  # the other shares were indexed by child processes
    term = memory.chunks.content.postings(term_hash("order"))
    docs, tf = streamed.chunks.content.postings(term_hash("order"))
    assert docs.shape[0] > 40 and np.array_equal(docs, term[0]) and np.array_equal(tf, term[1])


def test_a_search_builds_the_base_by_streaming(session, genesis_env: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, sid = session
    calls: list[int] = []
    real = basestream.stream_chunks

    def counting(conn, blob_ids, embedder, folder, batch_chunks=2, slices=3):  # type: ignore[no-untyped-def]
        calls.append(len(blob_ids))
        return real(conn, blob_ids, embedder, folder, batch_chunks, slices)

    monkeypatch.setattr(basestream, "stream_chunks", counting)
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    assert idx.rebuilt and calls == [4]  # two copies of one file are one blob; empty.txt none
    meta, data = arrayfile.load(genesis_env / "search" / f"{sid}.idx")
    assert meta["n_paths"] == 5 and len(idx.map.paths) == 4  # empty.txt has no chunk
    assert isinstance(data["c_docs"], np.ndarray) and data["emb_t"].shape[1] == idx.chunk_ids.shape[0]


def test_a_spilled_array_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw.bin"
    raw.write_bytes(np.arange(3, dtype=np.int32).tobytes())
    with pytest.raises(ValueError, match="wrong size"):
        arrayfile.save(tmp_path / "x.idx",
                       {"a": arrayfile.Spilled(raw, np.dtype(np.int32), (4,))}, {})
    assert not (tmp_path / "x.idx").exists() and not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("gap", [0, 64, 1 << 20])
def test_ranges_are_read_from_the_file_as_the_map_holds_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gap: int) -> None:
    rng = np.random.default_rng(7)
    docs = rng.integers(0, 1 << 30, 50_000).astype(np.int32)
    tf = rng.integers(1, 9, 50_000).astype(np.uint16)
    file = tmp_path / "a.idx"
    arrayfile.save(file, {"pad": np.zeros(3, dtype=np.int8), "docs": docs, "tf": tf}, {"x": 1})
    meta, data = arrayfile.load(file)
    assert meta["x"] == 1 and set(meta["positions"]) == {"pad", "docs", "tf"}
    monkeypatch.setattr(arrayfile, "GAP", gap)
    starts = np.sort(rng.choice(49_000, 300, replace=False))
    counts = np.minimum(rng.integers(0, 40, 300), np.diff(np.append(starts, 50_000)))
    expected = np.concatenate([docs[a:a + n] for a, n in zip(starts, counts, strict=True)])
    got = arrayfile.read_ranges(file, meta["positions"]["docs"], np.dtype(np.int32), starts,
                                counts)
    assert got.dtype == np.int32 and np.array_equal(got, expected)
    got = arrayfile.read_ranges(file, meta["positions"]["tf"], np.dtype(np.uint16), starts,
                                counts)
    assert np.array_equal(got, np.concatenate([tf[a:a + n] for a, n in
                                               zip(starts, counts, strict=True)]))
    empty = arrayfile.read_ranges(file, 0, np.dtype(np.int32), starts[:3], np.zeros(3, int))
    assert empty.shape == (0,)


def test_a_saved_index_reads_many_postings_from_its_file(session) -> None:
    ctx, sid = session
    part = session_index(ctx.conn, sid, "hash-t1-256").chunk_parts[0]
    assert part.content.source is not None  # the base was read from its file
    terms = np.arange(0, part.content.hashes.shape[0], 3)
    docs, tf, counts = part.content.gather(terms)
    memory = basebuild.TermIndex(part.content.hashes, part.content.ptr, np.array(part.content.docs),
                                 np.array(part.content.tf), part.content.dl)
    assert memory.source is None
    d2, t2, c2 = memory.gather(terms)
    assert docs.shape[0] > 100 and np.array_equal(docs, d2) and np.array_equal(tf, t2)
    assert np.array_equal(counts, c2)


def test_a_search_waits_for_the_running_background_build(session, genesis_env: Path) -> None:
    import threading
    import time

    from genesis_git.kernel import locks
    from genesis_git.search.base import prebuild

    ctx, sid = session
    assert session_index(ctx.conn, sid, "hash-t1-256").rebuilt
    clear_memory()
    base = genesis_env / "search" / f"{sid}.idx"
    hidden = base.with_name("hidden")
    base.rename(hidden)
    marker = base.with_suffix(".building")
    held = locks.try_lock(marker)  # as the background build holds it
    assert held is not None

    def finish() -> None:
        time.sleep(0.3)
        hidden.rename(base)
        locks.release(marker, held)

    worker = threading.Thread(target=finish)
    t0 = time.monotonic()
    worker.start()
    idx = session_index(open_context().conn, sid, "hash-t1-256")
    worker.join()
    assert time.monotonic() - t0 >= 0.3
    assert not idx.rebuilt  # it took the background build's file
    marker.write_text("")
    assert not prebuild.wait_running(base)  # a file left by a dead build holds no lock
    assert prebuild.wait_running(base.with_name("none.idx")) is False


def test_hashed_vectors_score_from_the_postings_as_the_vectors_would(
        session, genesis_env: Path) -> None:
    from genesis_git.index.cache import chunk_texts
    from genesis_git.providers.embedders import get_embedder
    from genesis_git.search import vectors
    from genesis_git.store.blobs import chunk_details
    from genesis_git.text.tokens import tokenize

    ctx, sid = session
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    part = idx.chunk_parts[0]
    assert part.hashed == 256 and part.emb_t.shape == (0, part.n)  # no vector is stored
    assert part.slots.shape == part.content.hashes.shape and part.norms.shape == (part.n,)
    # the cosines are those of the embedder's vectors of each chunk's text
    rows = {r[0]: r for r in chunk_details(ctx.conn, [int(c) for c in idx.chunk_ids])}
    texts = chunk_texts(ctx.conn, {r[1] for r in rows.values()})
    embedder = get_embedder(ctx.config)
    full = np.asarray([embedder.embed_tokens(tokenize(texts[rows[int(c)][1]][rows[int(c)][2]]))
                       for c in idx.chunk_ids])
    for query in ("order total discount", "订单 表", "nothing-here-at-all"):
        qvec = np.asarray(embedder.embed([query])[0])
        exact = (full @ qvec)[idx.rows_chunk]
        got = vectors.cosine_rows(idx, qvec)
        assert np.allclose(got, exact, atol=1e-9) and exact.max() > 0.1
    dense = np.full(256, 1 / 16)  # every slot: every posting counts
    assert np.allclose(vectors.cosine_rows(idx, dense), (full @ dense)[idx.rows_chunk], atol=1e-9)
    # an overlay built in memory scores as the saved base does
    memory = load_chunks(ctx.conn, part.blob_ids, "hash-t1-256")
    assert np.array_equal(memory.slots, part.slots) and np.array_equal(memory.norms, part.norms)


def test_a_base_of_an_older_format_is_rebuilt(session, genesis_env: Path) -> None:
    ctx, sid = session
    session_index(ctx.conn, sid, "hash-t1-256")
    clear_memory()
    file = genesis_env / "search" / f"{sid}.idx"
    meta, data = arrayfile.load(file)
    old = {k: np.array(v) for k, v in data.items()}
    arrayfile.save(file, old, {**meta, "format": 3})  # type: ignore[arg-type]
    assert si.read_base(file) is None
    idx = session_index(open_context().conn, sid, "hash-t1-256")
    assert idx.rebuilt and arrayfile.load(file)[0]["format"] == si.CACHE_FORMAT
