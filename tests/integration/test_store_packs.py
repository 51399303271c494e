"""A blob's chunks packed in one row: the packs themselves, what indexing writes, and a store of
the previous schema (chunk rows holding text, tokens and float32 embeddings) read after the
upgrade."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import numpy as np
import pytest

from genesis_git.impact.agent import ImpactAgent
from genesis_git.index import packs
from genesis_git.index.cache import gc, pack_unpacked, read_packs
from genesis_git.index.facts import FACTS_VERSION
from genesis_git.index.session import ensure_session, open_context
from genesis_git.providers.embedders import HashingEmbedder
from genesis_git.search.engine import search
from genesis_git.search.results import SearchOptions
from genesis_git.search.session_index import clear_memory
from genesis_git.store import connect as connect_mod
from genesis_git.store.connect import connect
from genesis_git.text.tokens import VOCABULARY, index_terms, tokenize

from helpers import cached_chunks

QUERIES = ["订单表新增字段 discount_code", "order total", "login password user"]


def test_texts_pack_round_trip() -> None:
    texts = ["def a():\n    return 1", "", "订单表 \udcff surrogate", "x" * 5000]
    pack = packs.encode_texts(texts)
    assert packs.decode_texts(pack) == texts
    assert len(pack) < len("".join(texts).encode("utf-8", "surrogatepass")) // 3
    assert packs.decode_texts(packs.encode_texts([])) == []


def test_terms_pack_keeps_every_token_in_order() -> None:
    chunks = ["order order table OrderController", "", "订单表新增字段 discount_code order"]
    pack = packs.encode_terms([index_terms(t)[1] for t in chunks], VOCABULARY.tokens)
    terms = packs.decode_terms(pack)
    assert terms.n_chunks == 3 and terms.lengths.tolist() == [len(tokenize(t)) for t in chunks]
    assert terms.token_lists() == [tokenize(t) for t in chunks]
    assert terms.words[:3] == ["order", "table", "ordercontroller"]  # first seen first
    empty = packs.decode_terms(packs.encode_terms([], VOCABULARY.tokens))
    assert empty.n_chunks == 0 and empty.words == [] and empty.token_lists() == []


def test_a_blob_of_more_than_65536_terms_takes_wide_indexes() -> None:
    words = [f"w{i}" for i in range(70_000)]
    ids = [list(range(70_000)), [69_999, 0, 69_999]]
    terms = packs.decode_terms(packs.encode_terms(ids, words))
    assert terms.seq.max() == 69_999 and terms.token_lists()[1] == ["w69999", "w0", "w69999"]


def test_vectors_pack_is_unit_float16() -> None:
    rows = [struct.pack("<3f", 3.0, 4.0, 0.0), [0.0, 0.0, 2.0], None, b""]
    got = packs.decode_vectors(packs.encode_vectors(rows, 3), 4)
    assert got is not None and got.dtype == np.float16 and got.shape == (4, 3)
    assert np.allclose(got.astype(np.float32), [[0.6, 0.8, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]],
                       atol=1e-3)
    assert packs.decode_vectors(None, 4) is None


pytestmark = pytest.mark.shop(extra={"empty.txt": "", "logo.bin": "\0\0binary"})


def test_indexing_writes_packs_and_facts_and_empty_chunk_rows(shop: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    rows = ctx.conn.execute(
        "SELECT b.id, b.n_chunks, p.format, p.vectors IS NULL, f.version FROM rag_blob_cache b "
        "LEFT JOIN rag_blob_content p ON p.blob_id = b.id "
        "LEFT JOIN rag_blob_facts f ON f.blob_id = b.id").fetchall()
    with_chunks = [r for r in rows if r[1] > 0]
    assert len(with_chunks) > 10 and len(rows) > len(with_chunks)  # empty.txt and logo.bin
    assert all(r[2] == packs.FORMAT and r[3] and r[4] == FACTS_VERSION for r in with_chunks)
    assert all(r[2] is None for r in rows if r[1] == 0)  # nothing to pack without chunks
    assert ctx.conn.execute("SELECT COUNT(*) FROM rag_chunk_cache WHERE text != '' OR tokens != '' "
                            "OR embedding IS NOT NULL").fetchone()[0] == 0
    chunks = cached_chunks(ctx.conn, sid)
    orders = [c for c in chunks if c[0] == "db/schema.sql"]
    assert orders and "CREATE TABLE orders" in "\n".join(c[4] for c in orders)
    assert all(c[5] == tokenize(c[4]) for c in chunks)
    assert pack_unpacked(ctx.conn, [r[0] for r in rows]) == 0


def _downgrade(db: Path, dim: int = 256) -> int:
    """Rewrite a store as the previous schema left it: every chunk row with its text, its
    tokens and its float32 embedding, no packs, no facts; returns the chunks rewritten."""
    raw = sqlite3.connect(db)
    embedder = HashingEmbedder(dim)
    n = 0
    for bid, texts in raw.execute("SELECT blob_id, texts FROM rag_blob_content").fetchall():
        for ord_, text in enumerate(packs.decode_texts(texts)):
            tokens = tokenize(text)
            emb = struct.pack(f"<{dim}f", *embedder.embed_tokens(tokens))
            raw.execute("UPDATE rag_chunk_cache SET text=?, tokens=?, embedding=? "
                        "WHERE blob_id=? AND ord=?", (text, " ".join(tokens), emb, bid, ord_))
            n += 1
    raw.execute("DROP TABLE rag_blob_content")
    raw.execute("DELETE FROM rag_blob_facts")
    raw.execute("DELETE FROM _genesis_migrations WHERE name='m006_blob_content'")
    raw.execute("PRAGMA user_version = 5")
    raw.commit()
    raw.close()
    return n


def _results(ctx, sid: str) -> list[list[tuple[str, int, float, str]]]:  # type: ignore[no-untyped-def]
    out = []
    for q in QUERIES:
        res = search(ctx, sid, q, SearchOptions(k=20))
        out.append([(h.path, h.start_line, round(h.score, 9), h.text) for h in res.hits])
    return out


def test_a_store_of_the_previous_schema_is_read_and_packed_in_place(
        shop: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    fresh = _results(ctx, sid)
    impact = ImpactAgent(context=ctx).run_impact(QUERIES[0])
    chunk_ids = sorted(r[0] for r in ctx.conn.execute("SELECT id FROM rag_chunk_cache"))
    ctx.conn.close()
    db = genesis_env / "genesis.db"
    assert _downgrade(db) == len(chunk_ids)
    for base in (genesis_env / "search").glob("*.idx"):
        base.unlink()
    clear_memory()
    ctx = open_context()  # m006 runs; the cached blobs stay as they are until they are read
    assert ctx.conn.execute("PRAGMA user_version").fetchone()[0] == 6
    assert ctx.conn.execute("SELECT COUNT(*) FROM rag_blob_content").fetchone()[0] == 0
    assert ensure_session(ctx) == sid
    assert _results(ctx, sid) == fresh  # read from the packs made of the old rows
    assert ImpactAgent(context=ctx).run_impact(QUERIES[0]) == impact  # facts prepared lazily
    assert sorted(r[0] for r in ctx.conn.execute("SELECT id FROM rag_chunk_cache")) == chunk_ids
    assert ctx.conn.execute("SELECT COUNT(*) FROM rag_chunk_cache WHERE text != '' OR tokens != '' "
                            "OR embedding IS NOT NULL").fetchone()[0] == 0  # nothing chunked again
    assert ctx.conn.execute("SELECT COUNT(*) FROM rag_blob_facts").fetchone()[0] > 10
    # the emptied rows gave their pages back; `cache gc` returns them to the file system
    free = ctx.conn.execute("PRAGMA freelist_count").fetchone()[0]
    assert free > 0
    assert gc(ctx.conn, ctx.repo, ctx.config)["bytes_reclaimed"] == 0  # under a quarter
    monkeypatch.setattr(connect_mod, "FREE_SHARE", 0.05)
    report = gc(ctx.conn, ctx.repo, ctx.config)
    assert report["blobs_removed"] == 0 and report["bytes_reclaimed"] >= free * 16384
    assert ctx.conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert _results(ctx, sid) == fresh


def test_an_old_blob_of_another_embedder_keeps_its_vectors(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    conn.execute("INSERT INTO rag_blob_cache(id, blob_sha, chunker_version, embedder_id, size, "
                 "status, n_chunks) VALUES (7, 'abc', 'c2', 'openai-m', 10, 'ready', 2)")
    for ord_, (text, vec) in enumerate([("order total", [3.0, 0.0, 4.0, 0.0]),
                                        ("user login", [0.0, 2.0, 0.0, 0.0])]):
        conn.execute("INSERT INTO rag_chunk_cache(blob_id, ord, start_line, end_line, kind, text, "
                     "tokens, embedding) VALUES (7, ?, ?, ?, 'block', ?, ?, ?)",
                     (ord_, ord_ + 1, ord_ + 1, text, " ".join(tokenize(text)),
                      struct.pack("<4f", *vec)))
    assert pack_unpacked(conn, [7, 8]) == 1
    [(bid, n, texts, terms, vectors)] = list(read_packs(conn, [7], ("texts", "terms", "vectors")))
    assert (bid, n) == (7, 2) and packs.decode_texts(texts) == ["order total", "user login"]
    assert packs.decode_terms(terms).token_lists() == [["order", "total"], ["user", "login"]]
    got = packs.decode_vectors(vectors, 2)
    assert got is not None and np.allclose(got.astype(np.float32),
                                           [[0.6, 0, 0.8, 0], [0, 1, 0, 0]], atol=1e-3)
    assert conn.execute("SELECT COUNT(*) FROM rag_chunk_cache WHERE text = ''").fetchone()[0] == 2
