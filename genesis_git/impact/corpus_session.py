"""The corpus of a repository's session index, prepared for ranking.

Each file of the session comes with its blob's prepared facts (tables,
symbols, methods, imports: :mod:`genesis_git.impact.facts`) and no text; the
term statistics come from the session's search base
(:class:`~genesis_git.impact.stats.TextStats`).  That is all ranking reads.
:meth:`SessionCorpus.read` reads the full chunks of the files a result shows,
as new documents: the files ranking reads never change.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from genesis_git.impact.corpus import ChunkDoc, Corpus, FileDoc, TextScores, finish
from genesis_git.impact.graph import Symbols, Tables, definitions_in_facts
from genesis_git.index import packs
from genesis_git.index.cache import chunk_texts, read_packs
from genesis_git.store import blobs, sessionmap

if TYPE_CHECKING:
    from genesis_git.impact.stats import TextStats
    from genesis_git.index.session import Context


def read_chunks(conn: sqlite3.Connection, blob_ids: Iterable[int]
                ) -> Iterator[tuple[int, ChunkDoc]]:
    """Every chunk of ``blob_ids`` with its text and tokens, in blob and chunk order."""
    ids = sorted(blob_ids)
    for i in range(0, len(ids), 200):
        part = ids[i:i + 200]
        packed = {bid: (packs.decode_texts(texts), packs.decode_terms(terms).token_lists())
                  for bid, _, texts, terms in read_packs(conn, part, ("texts", "terms"))}
        seen: dict[int, int] = {}
        for bid, start, end, kind, symbol, section in blobs.chunk_lines(conn, part):
            n = seen[bid] = seen.get(bid, -1) + 1
            texts, tokens = packed[bid]
            yield bid, ChunkDoc(start, end, texts[n], tokens[n], kind, symbol, section)


class SessionCorpus(Corpus):
    """A session's files with their blobs' facts; term statistics from the search base."""

    prepared = True

    def __init__(self, files: dict[str, FileDoc], session_id: str, stats: TextStats,
                 conn: sqlite3.Connection) -> None:
        super().__init__(files, session_id)
        self.stats = stats
        self.conn = conn
        self._whole: dict[str, FileDoc] = {}  # read in full (kept only by a kept corpus)
        self._texts: dict[str, str] = {}  # the texts alone (kept only by a kept corpus)

    def text_scores(self, weights: dict[str, float]) -> TextScores:
        return self.stats.text_scores(self, weights)

    def column_share(self, cols: list[str]) -> dict[str, float]:
        return self.stats.column_share(self, cols)

    def definitions(self, path: str, wanted: set[str] | None) -> tuple[Symbols, Tables]:
        facts = self.files[path].facts
        return definitions_in_facts(path, facts, wanted) if facts is not None else ([], [])

    def py_imports(self, path: str) -> list[tuple[str, list[str]]]:
        facts = self.files[path].facts
        return facts.full().py_imports if facts is not None else []

    def js_imports(self, path: str) -> list[str]:
        facts = self.files[path].facts
        return facts.full().js_imports if facts is not None else []

    def read(self, paths: Iterable[str]) -> dict[str, FileDoc]:
        """New documents with all their chunks; a kept corpus keeps those it has read (the
        same files come back from one query to the next)."""
        out, unread = self._ready(paths)
        by_blob: dict[int, list[FileDoc]] = {}
        for bid, names in unread.items():
            for path in names:
                doc = self.files[path]
                whole = out[path] = FileDoc(path, doc.artifact_type, [], doc.path_tokens,
                                            blob_id=bid)
                by_blob.setdefault(bid, []).append(whole)
        for bid, chunk in read_chunks(self.conn, by_blob):
            for whole in by_blob[bid]:
                whole.chunks.append(chunk)
        for docs in by_blob.values():
            for whole in docs:
                whole.chunks.sort(key=lambda c: (c.start_line, c.end_line))
                if self.keep:
                    self._whole[whole.path] = whole
        return out

    def texts(self, paths: Iterable[str]) -> dict[str, str]:
        """As :meth:`Corpus.texts`, reading the chunks' texts alone (not their tokens) of the
        files not kept already (a kept corpus keeps what it read)."""
        wanted = list(paths)
        out = {p: self._texts[p] for p in wanted if p in self._texts}
        ready, unread = self._ready(p for p in wanted if p not in out)
        out.update((p, doc.text) for p, doc in ready.items())
        read = chunk_texts(self.conn, unread) if unread else {}
        for bid, names in unread.items():
            for path in names:
                out[path] = "\n".join(read.get(bid, ()))  # a blob without chunks: no text
                if self.keep:
                    self._texts[path] = out[path]
        return out

    def _ready(self, paths: Iterable[str]) -> tuple[dict[str, FileDoc], dict[int, list[str]]]:
        """The documents of ``paths`` that need no reading (kept whole, or a file without
        chunks) and, by blob, the paths whose chunks are to be read; paths the corpus does
        not hold are left out."""
        ready: dict[str, FileDoc] = {}
        unread: dict[int, list[str]] = {}
        for path in paths:
            doc = self.files.get(path)
            if doc is None:
                continue
            if path in self._whole:
                ready[path] = self._whole[path]
            elif doc.facts is None or doc.blob_id is None:
                ready[path] = doc  # a file without chunks
            else:
                unread.setdefault(doc.blob_id, []).append(path)
        return ready, unread

    def _chunk_texts(self) -> Iterator[tuple[list[str], str]]:
        """(distinct terms, text) of every blob, read a batch at a time."""
        ids = sorted({d.blob_id for d in self.files.values()
                      if d.facts is not None and d.blob_id is not None})
        for _, _, texts, terms in read_packs(self.conn, ids, ("texts", "terms"), 200):
            yield packs.decode_terms(terms).words, "\n".join(packs.decode_texts(texts))


def load_prepared_corpus(conn: sqlite3.Connection, session_id: str,
                         stats: TextStats) -> SessionCorpus:
    """The session's files with their blobs' prepared facts, without chunks or text."""
    from genesis_git.impact import facts as facts_mod

    files: dict[str, FileDoc] = {}
    by_blob: dict[int, list[FileDoc]] = {}
    for path, atype, blob_id in sessionmap.paths_and_blobs(conn, session_id):
        doc = files[path] = FileDoc(path, atype, blob_id=blob_id)
        if blob_id is not None:
            by_blob.setdefault(blob_id, []).append(doc)
    prepared = facts_mod.load(conn, by_blob)
    for bid, docs in by_blob.items():
        f = prepared.get(bid) or facts_mod.BlobFacts()
        for doc in docs:
            doc.facts = f
    return SessionCorpus(finish(files), session_id, stats, conn)


def load_context_corpus(ctx: Context, session_id: str) -> SessionCorpus:
    """The prepared corpus of a session: the one place impact state is loaded from the store.

    Term statistics come from the session's search base (built, streamed, if
    missing), tables, methods and imports from the blobs' prepared facts; a
    long-lived process may keep the result while the store is unchanged.
    """
    from genesis_git.impact.stats import TextStats
    from genesis_git.providers.embedders import embedder_id, get_embedder
    from genesis_git.search.session_index import session_index

    idx = session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)))
    return load_prepared_corpus(ctx.conn, session_id, TextStats(idx))
