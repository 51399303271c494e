"""Search over real temporary repositories: Chinese docs, isolation, freshness, modes, filters."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from genesis_git.index.session import Context, ensure_session, open_context
from genesis_git.index.session import end as end_session
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.search import SearchOptions, group_by_file, search
from genesis_git.search.session_index import clear_memory, path_tokens, session_index
from genesis_git.text.tokens import analyze_query

from helpers import cached_chunks, git, make_repo, write

CN_FILES = {
    "docs/req/orders.md": (
        "# 订单需求\n\n## 新增字段\n\n订单表新增字段 discount_code，用于记录优惠码。\n\n"
        "## 验收\n\n下单时校验优惠码是否有效。\n"),
    "docs/arch/login.md": "# 登录设计\n\n用户登录使用 JWT 令牌，接口在 /api/login。\n",
    "db/schema.sql": ("CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n  total NUMERIC\n);\n\n"
                      "CREATE TABLE users (\n  id INTEGER PRIMARY KEY,\n  name TEXT\n);\n"),
    "src/shop/orders.py": (
        "class OrderController:\n    \"\"\"Handles order requests.\"\"\"\n\n"
        "    def create_order(self, customer_id, items):\n"
        "        return {'customer': customer_id, 'items': items}\n\n\n"
        "def cancel_order(order_id):\n    return order_id\n"),
    "src/auth/login.py": "def login(user, password):\n    return check_password(user, password)\n",
    "README.md": "# Shop\n\nAn order service with users and payments.\n",
}


pytestmark = pytest.mark.shop(files=CN_FILES)


def run(query: str, **kw: object) -> tuple[Context, object]:
    ctx = open_context()
    sid = ensure_session(ctx)
    return ctx, search(ctx, sid, query, SearchOptions(**kw))  # type: ignore[arg-type]


def paths(result: object) -> list[str]:
    return [h.path for h in result.hits]  # type: ignore[attr-defined]


def test_chinese_query_finds_the_chinese_requirement(shop: Path) -> None:
    _, res = run("订单表新增字段")
    top = res.hits[0]
    assert top.path == "docs/req/orders.md"
    assert top.section == "订单需求 > 新增字段"
    assert {"订单", "单表", "新增", "字段"} <= set(top.matched_terms)
    assert top.artifact_type == "REQ"
    assert res.mode == "hybrid" and res.warnings == []


def test_chinese_query_reaches_english_code_through_synonyms(shop: Path) -> None:
    _, res = run("订单", mode="lexical", k=10)
    hit = next(h for h in res.hits if h.path == "src/shop/orders.py")
    assert "order" in hit.matched_terms
    assert hit.breakdown["path_terms"] == ["order"]
    assert any(t.term == "order" and t.origin == "synonym:订单" for t in res.terms)


def test_identifier_query_ranks_the_class_first(shop: Path) -> None:
    _, res = run("OrderController")
    assert res.hits[0].path == "src/shop/orders.py"
    assert res.hits[0].symbol == "OrderController"
    assert res.hits[0].start_line == 1


def test_english_query_login(shop: Path) -> None:
    _, res = run("login password", k=3)
    assert res.hits[0].path == "src/auth/login.py"
    assert "docs/arch/login.md" in paths(res)


def test_session_isolation_other_branch(shop: Path) -> None:
    git(shop, "checkout", "-q", "-b", "feature")
    write(shop, "src/secret.py", "def zanzibar_payment():\n    return 'zanzibar'\n")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "feature")
    ctx = open_context()
    sid = ensure_session(ctx)
    assert paths(search(ctx, sid, "zanzibar", SearchOptions())) == ["src/secret.py"]
    git(shop, "checkout", "-q", "main")
    end_session(ctx, sid)
    sid2 = ensure_session(ctx)
    cached = [r for r in cached_chunks(ctx.conn) if "zanzibar" in r[5]]
    assert cached  # the shared cache still holds the feature branch's blob
    for mode in ("hybrid", "lexical", "vector"):
        res = search(ctx, sid2, "zanzibar payment", SearchOptions(mode=mode, k=50))
        assert "src/secret.py" not in paths(res)


def test_session_isolation_other_worktree(shop: Path, monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    other = tmp_path / "wt"
    git(shop, "worktree", "add", "-q", "-b", "wt", str(other))
    write(other, "notes/only_here.md", "# Quokka\n\nquokka habitat notes\n")
    monkeypatch.chdir(other)
    ctx_b = open_context()
    sid_b = ensure_session(ctx_b)
    assert paths(search(ctx_b, sid_b, "quokka", SearchOptions())) == ["notes/only_here.md"]
    monkeypatch.chdir(shop)
    ctx_a = open_context()
    sid_a = ensure_session(ctx_a)
    assert sid_a != sid_b
    res = search(ctx_a, sid_a, "quokka habitat", SearchOptions(k=50))
    assert res.hits == []
    assert res.warnings == ["no results: no chunk matches the query terms"]


def test_an_edit_saved_a_moment_ago_is_found(shop: Path, genesis_env: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    assert search(ctx, sid, "flamingo", SearchOptions()).hits == []
    base = genesis_env / "search" / f"{sid}.idx"
    assert base.is_file()
    write(shop, "src/shop/orders.py", CN_FILES["src/shop/orders.py"] + "\n\ndef flamingo_refund():\n"
          "    return 'flamingo'\n")
    write(shop, "docs/new.md", "# Flamingo\n\nflamingo refunds\n")
    stale = search(ctx, ensure_session(ctx, refresh=False), "flamingo", SearchOptions())
    assert stale.hits == []  # without a refresh the session is as last indexed
    sid = ensure_session(ctx, refresh=True)
    res = search(ctx, sid, "flamingo", SearchOptions())
    assert sorted(set(paths(res))) == ["docs/new.md", "src/shop/orders.py"]
    assert {h.path for h in res.hits if "flamingo" in h.matched_terms} == {
        "docs/new.md", "src/shop/orders.py"}
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    assert len(idx.chunk_parts) == 2 and not idx.rebuilt  # base + the overlay of the edit
    (shop / "docs/new.md").unlink()
    sid = ensure_session(ctx)
    assert set(paths(search(ctx, sid, "flamingo", SearchOptions()))) == {"src/shop/orders.py"}


def test_base_is_reused_by_another_process_and_rebuilt_when_the_overlay_grows(
        shop: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    search(ctx, sid, "order", SearchOptions())
    base = genesis_env / "search" / f"{sid}.idx"
    stamp = base.stat().st_mtime_ns
    clear_memory()  # as a new process would
    idx = session_index(open_context().conn, sid, "hash-t1-256")
    assert not idx.rebuilt and len(idx.chunk_parts) == 1
    from genesis_git.search import session_index as si

    monkeypatch.setattr(si, "OVERLAY_MAX", 1)
    for i in range(5):
        write(shop, f"docs/extra{i}.md", f"# Extra {i}\n\nhedgehog number {i}\n")
    sid = ensure_session(ctx)
    res = search(ctx, sid, "hedgehog", SearchOptions(k=10))
    assert len(res.hits) == 5
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    assert idx.rebuilt and len(idx.chunk_parts) == 1
    assert base.stat().st_mtime_ns != stamp


def test_a_corrupt_base_is_rebuilt(shop: Path, genesis_env: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    first = paths(search(ctx, sid, "order table", SearchOptions()))
    clear_memory()
    (genesis_env / "search" / f"{sid}.idx").write_bytes(b"not an index file")
    ctx = open_context()
    assert paths(search(ctx, sid, "order table", SearchOptions())) == first
    assert session_index(ctx.conn, sid, "hash-t1-256").rebuilt


def test_modes_and_breakdown(shop: Path) -> None:
    _, lex = run("order table", mode="lexical", k=20)
    for h in lex.hits:
        b = h.breakdown
        assert b["vector"] is None and b["rrf"] is None and b["vector_rank"] is None
        assert b["path_rank"] is None
        assert h.score == pytest.approx(b["bm25"] + b["boosts"]["path"] + b["boosts"]["file"])
        assert sum(b["terms"].values()) == pytest.approx(b["bm25"])
    assert [h.score for h in lex.hits] == sorted((h.score for h in lex.hits), reverse=True)
    _, vec = run("order table", mode="vector", k=20)
    assert all(h.score == pytest.approx(h.breakdown["vector"]) for h in vec.hits)
    assert all(h.breakdown["rrf"] is None and h.breakdown["lexical_rank"] is None for h in vec.hits)
    assert all(h.score > 0 for h in vec.hits)
    _, hyb = run("order table", mode="hybrid", k=20)
    for h in hyb.hits:
        b = h.breakdown
        ranks = (b["lexical_rank"], b["path_rank"], b["vector_rank"])
        expected = sum(1.0 / (60 + r) for r in ranks if r)
        assert h.score == pytest.approx(expected) == pytest.approx(b["rrf"])
        assert b["path_rank"] is not None  # every lexical match is in the path list too
        if b["vector_rank"] is not None:  # a hashed vector needs a shared word
            assert b["bm25"] > 0 and b["vector"] > 0


def test_rrf_k_comes_from_config(shop: Path) -> None:
    write(shop, ".genesis.toml", "[search]\nrrf_k = 5\n")
    _, res = run("order table")
    top = res.hits[0].breakdown
    assert res.stats["rrf_k"] == 5
    ranks = (top["lexical_rank"], top["path_rank"], top["vector_rank"])
    assert top["rrf"] == pytest.approx(sum(1 / (5 + r) for r in ranks if r))


def test_ties_are_broken_by_path_then_start_line(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    body = "# Same\n\nwombat burrow\n\n# Same\n\nwombat burrow\n"
    root = make_repo(tmp_path / "ties", {"x/b.md": body, "x/a.md": body, "y.txt": "other words\n"})
    monkeypatch.chdir(root)
    for mode in ("hybrid", "lexical", "vector"):
        _, res = run("wombat", mode=mode)
        assert [(h.path, h.start_line) for h in res.hits] == [
            ("x/a.md", 1), ("x/a.md", 5), ("x/b.md", 1), ("x/b.md", 5)], mode
        if mode != "hybrid":
            assert len({h.score for h in res.hits}) == 1


def test_duplicate_blobs_count_once_per_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "dup", {"a/x.md": "# T\n\nnarwhal tusk\n",
                                        "b/x.md": "# T\n\nnarwhal tusk\n",
                                        "c.md": "# U\n\nsomething else\n"})
    monkeypatch.chdir(root)
    _, res = run("narwhal", mode="lexical")
    assert paths(res) == ["a/x.md", "b/x.md"]
    assert res.stats["rows"] == 3 and res.stats["files"] == 3


def bm25_reference(docs: dict[str, list[str]], paths_: dict[str, list[str]],
                   query: list[tuple[str, float]]) -> dict[str, float]:
    """Textbook BM25 (k1 1.2, b 0.75, Lucene IDF) of chunks, plus 4 x BM25 of paths,
    plus 0.5 x BM25 of whole files."""
    def score(corpus: dict[str, list[str]]) -> dict[str, float]:
        n = len(corpus)
        avgdl = sum(len(t) for t in corpus.values()) / n
        out = {}
        for key, toks in corpus.items():
            tf = Counter(toks)
            s = 0.0
            for term, w in query:
                df = sum(1 for t in corpus.values() if term in t)
                if not df or not tf[term]:
                    continue
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                s += w * idf * tf[term] * 2.2 / (tf[term] + 1.2 * (0.25 + 0.75 * len(toks) / avgdl))
            out[key] = s
        return out
    files: dict[str, list[str]] = {}
    for key, toks in docs.items():
        files.setdefault(key.split("#")[0], []).extend(toks)
    content, by_path, by_file = score(docs), score(paths_), score(files)
    return {key: content[key] + 4 * by_path[key.split("#")[0]] + 0.5 * by_file[key.split("#")[0]]
            for key in docs}


def test_bm25_matches_a_reference_implementation(shop: Path) -> None:
    ctx, res = run("order table user login", mode="lexical", k=100)
    rows = [(r[0], r[2], r[5]) for r in cached_chunks(ctx.conn, res.session_id)]
    docs = {f"{p}#{s}": t for p, s, t in rows}
    path_docs = {p: path_tokens(p) for p, _, _ in rows}
    query = [(t.term, t.weight) for t in analyze_query("order table user login")]
    expected = bm25_reference(docs, path_docs, query)
    got = {f"{h.path}#{h.start_line}": h.score for h in res.hits}
    assert got == pytest.approx({k: v for k, v in expected.items() if v > 0})


def test_filters(shop: Path) -> None:
    write(shop, "CODEOWNERS", "db/ @team-db\nsrc/auth/ @alice @team-auth\n")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "owners")
    _, res = run("order table", types=("db",), k=50)
    assert set(paths(res)) == {"db/schema.sql"}
    _, res = run("order login 订单", types=("REQ", "ARCH"), k=50)
    assert set(paths(res)) == {"docs/req/orders.md", "docs/arch/login.md"}
    _, res = run("order login", paths=("src/**",), k=50)
    assert set(paths(res)) == {"src/shop/orders.py", "src/auth/login.py"}
    _, res = run("order login", paths=("*.md", "db/"), k=50)
    assert set(paths(res)) == {"README.md", "docs/req/orders.md", "docs/arch/login.md",
                               "db/schema.sql"}
    _, res = run("order login", component="SHOP", k=50)
    assert set(paths(res)) == {"src/shop/orders.py"}
    _, res = run("order user login", owner="team-db", k=50)
    assert set(paths(res)) == {"db/schema.sql"}
    _, res = run("order user login", owner="@alice", k=50)
    assert set(paths(res)) == {"src/auth/login.py"}
    _, res = run("order", k=1)
    assert len(res.hits) == 1
    _, res = run("order", types=("UI",))
    assert res.hits == [] and res.warnings == ["no results: no file passes the filters"]


def test_max_staleness_filter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "old", {"old.md": "# Old\n\nplatypus archive\n"})
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2015-01-01T00:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2015-01-01T00:00:00Z")
    git(root, "commit", "-q", "--amend", "-m", "old")
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    write(root, "new.md", "# New\n\nplatypus today\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "new")
    monkeypatch.chdir(root)
    _, res = run("platypus")
    assert set(paths(res)) == {"old.md", "new.md"}
    assert next(h for h in res.hits if h.path == "old.md").staleness > 0.9
    _, res = run("platypus", max_staleness=0.5)
    assert paths(res) == ["new.md"]


@pytest.mark.parametrize(("opts", "message"), [
    ({"types": ("FOO",)}, "unknown --type 'FOO' (valid types: REQ, ARCH, API, DB, UI, CODE, OTHER)"),
    ({"mode": "semantic"}, "unknown mode 'semantic' (valid modes: hybrid, lexical, vector)"),
    ({"k": 0}, "-k must be at least 1 (got 0)"),
    ({"max_staleness": 1.5}, "--max-staleness must be between 0 and 1 (got 1.5)"),
    ({"paths": (" ",)}, "--path needs a glob, e.g. 'src/**' or '*.md'"),
])
def test_bad_options_are_usage_errors(opts: dict, message: str) -> None:
    with pytest.raises(UsageError) as err:
        SearchOptions(**opts).validated()
    assert str(err.value) == message
    assert err.value.exit_code == 2


def test_empty_and_stopword_queries(shop: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    with pytest.raises(UsageError) as err:
        search(ctx, sid, "   ", SearchOptions())
    assert str(err.value) == 'empty query (say what to look for, e.g. genesis search "order table")'
    with pytest.raises(GenesisError) as err2:
        search(ctx, sid, "the of and 的 了", SearchOptions())
    assert str(err2.value) == ("the query 'the of and 的 了' has only stopwords: nothing to search "
                               "for (add a word that names what you are looking for)")
    assert err2.value.exit_code == 2  # nothing to search for: a usage error


def test_files_level_grouping(shop: Path) -> None:
    _, res = run("order", files=True, k=2)
    groups = group_by_file(res.hits)
    assert len(groups) == 2
    for g in groups:
        assert g.score == max(c.score for c in g.chunks)
        assert all(c.path == g.path for c in g.chunks)
    assert groups[0].score >= groups[1].score
    _, res = run("order", files=True, k=10)
    orders = next(g for g in group_by_file(res.hits) if g.path == "src/shop/orders.py")
    assert [c.start_line for c in orders.chunks] == sorted(
        (c.start_line for c in orders.chunks),
        key=lambda s: -next(c.score for c in orders.chunks if c.start_line == s))
    assert len(orders.chunks) == 2


def test_chunks_per_file_is_a_cap(shop: Path) -> None:
    _, res = run("order", files=True, k=10, chunks_per_file=1)
    assert len(res.hits) == len({h.path for h in res.hits})


def test_user_synonyms_from_config(shop: Path) -> None:
    write(shop, ".genesis.toml", '[text.synonyms]\nvoucher = ["优惠码"]\n')
    _, res = run("voucher", mode="lexical", paths=("docs/**",))
    assert res.hits[0].path == "docs/req/orders.md"
    assert "优惠" in res.hits[0].matched_terms


def test_a_new_hashing_dimension_derives_new_vectors(shop: Path) -> None:
    from genesis_git.search.vectors import VectorUnavailable, cosine_rows

    ctx = open_context()
    sid = ensure_session(ctx)
    write(shop, ".genesis.toml", "[embed]\ndim = 64\n")
    ctx = open_context()
    # the hashed vectors come from the cached terms, so no blob is embedded again
    res = search(ctx, sid, "order table", SearchOptions())
    assert res.mode == "hybrid" and res.hits and res.warnings == []
    idx = session_index(ctx.conn, sid, "hash-t1-64")
    assert idx.chunk_parts[0].hashed == 64 and idx.chunk_parts[0].dim == 64
    with pytest.raises(VectorUnavailable, match="embedded with 64 dimensions but the embedder "
                                                "gives 256"):
        cosine_rows(idx, np.ones(256, dtype=np.float32) / 16)


def test_session_without_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "bin", {"a.bin": "\0\0\0binary"})
    monkeypatch.chdir(root)
    _, res = run("anything")
    assert res.hits == []
    assert res.warnings == ["no results: the session maps no indexed text yet"]


def test_the_candidate_cut_follows_the_stable_order(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from genesis_git.search.hybrid import top_rows

    body = "# Same\n\nwombat burrow\n"
    root = make_repo(tmp_path / "cut", {f"d/{c}.md": body for c in "dcba"})
    monkeypatch.chdir(root)
    ctx = open_context()
    sid = ensure_session(ctx)
    search(ctx, sid, "wombat", SearchOptions())
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    scores = np.ones(idx.n_rows)
    mask = np.ones(idx.n_rows, dtype=bool)
    assert [idx.row_path(r) for r in top_rows(idx, scores, mask, 2)] == ["d/a.md", "d/b.md"]
    scores[3] = 2.0
    assert [idx.row_path(r) for r in top_rows(idx, scores, mask, 2)] == ["d/d.md", "d/a.md"]
    assert idx.row_start(0) == 1


def test_path_list_puts_path_matches_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from genesis_git.search.hybrid import path_rows

    root = make_repo(tmp_path / "pl", {f"d/{c}.md": f"# T\n\nwombat {c}\n" for c in "abc"})
    monkeypatch.chdir(root)
    ctx = open_context()
    sid = ensure_session(ctx)
    search(ctx, sid, "wombat", SearchOptions())
    idx = session_index(ctx.conn, sid, "hash-t1-256")
    path = np.array([0.0, 2.0, 0.0])
    lexical = np.array([1.0, 0.5, 3.0])
    mask = np.ones(3, dtype=bool)
    assert [idx.row_path(r) for r in path_rows(idx, path, lexical, mask, 10)] == [
        "d/b.md", "d/c.md", "d/a.md"]
    assert [idx.row_path(r) for r in path_rows(idx, path, lexical, mask, 1)] == ["d/b.md"]


def test_bases_of_ended_sessions_are_deleted(shop: Path, genesis_env: Path) -> None:
    ctx = open_context()
    old = ensure_session(ctx)
    search(ctx, old, "order", SearchOptions())
    assert (genesis_env / "search" / f"{old}.idx").is_file()
    end_session(ctx, old)
    new = ensure_session(ctx)
    search(ctx, new, "order", SearchOptions())
    assert sorted(p.name for p in (genesis_env / "search").iterdir()) == [f"{new}.idx"]


def test_a_saved_base_never_lends_old_chunks_to_a_reused_blob_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from genesis_git.store.migrations import drop_derived

    root = make_repo(tmp_path / "reuse", {"a.md": "# A\n\nwombat burrow\n"})
    monkeypatch.chdir(root)
    ctx = open_context()
    sid = ensure_session(ctx)
    assert paths(search(ctx, sid, "wombat", SearchOptions())) == ["a.md"]
    old_id = ctx.conn.execute("SELECT blob_id FROM rag_session_chunk_map").fetchone()[0]
    drop_derived(ctx.conn)  # ids start again from 1
    write(root, "a.md", "# A\n\nplatypus pond\n")
    clear_memory()
    ctx = open_context()
    sid = ensure_session(ctx)
    assert ctx.conn.execute("SELECT blob_id FROM rag_session_chunk_map").fetchone()[0] == old_id
    assert paths(search(ctx, sid, "platypus", SearchOptions())) == ["a.md"]
    assert search(ctx, sid, "wombat", SearchOptions()).hits == []
