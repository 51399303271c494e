"""The text an impact investigation ranks: files made of chunks, from a session or a RAG scope.

A session corpus is read from the session map (``rag_session_chunk_map``
joined with ``rag_chunk_cache``): only the blobs the session maps, so what
another branch or worktree cached never leaks in.  A scope corpus is read
from an :class:`~genesis_git.rag.impact_rag.ImpactRAG` scope, for text that
is not in a repository.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from genesis_git.index import packs
from genesis_git.index.cache import read_packs
from genesis_git.index.classify import artifact_type, content_hint
from genesis_git.store import blobs, sessionmap
from genesis_git.text.tokens import tokenize

T = TypeVar("T")

if TYPE_CHECKING:
    from genesis_git.impact.stats import TextStats
    from genesis_git.index.facts import BlobFacts
    from genesis_git.rag.impact_rag import ImpactRAG

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


@dataclass
class ChunkDoc:
    start_line: int
    end_line: int
    text: str
    tokens: list[str]
    kind: str = "block"
    symbol: str | None = None
    section: str | None = None


@dataclass
class FileDoc:
    path: str
    artifact_type: str
    chunks: list[ChunkDoc] = field(default_factory=list)
    path_tokens: list[str] = field(default_factory=list)
    facts: BlobFacts | None = None  # prepared: ``chunks`` stays empty until hydrated
    blob_id: int | None = None

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.chunks)

    def head(self) -> str:
        return self.chunks[0].text[:600] if self.chunks else ""


@dataclass
class Corpus:
    """Files by path, in path order."""

    files: dict[str, FileDoc]
    session_id: str | None = None
    _vocab: dict[str, str] | None = field(default=None, repr=False)
    _by_length: dict[int, list[str]] | None = field(default=None, repr=False)
    stats: TextStats | None = None  # term statistics of a prepared corpus
    conn: sqlite3.Connection | None = field(default=None, repr=False)
    keep: bool = False  # its caller keeps it between queries, and it keeps what it derives
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.files)

    def derived(self, name: str, build: Callable[[Corpus], T]) -> T:
        """``build(self)``, computed once: what depends on the corpus alone, not on a query."""
        if name not in self._derived:
            self._derived[name] = build(self)
        value: T = self._derived[name]
        return value

    @property
    def prepared(self) -> bool:
        return self.stats is not None

    def hydrate(self, paths: list[str]) -> None:
        """Give the files of ``paths`` all their chunks, text and tokens (a prepared corpus
        holds only what ranking needs; the files shown are read in full)."""
        if self.conn is None:
            return
        wanted = {p: self.files[p] for p in paths
                  if p in self.files and self.files[p].facts is not None
                  and self.files[p].blob_id is not None}
        by_blob: dict[int, list[FileDoc]] = {}
        for doc in wanted.values():
            assert doc.blob_id is not None
            by_blob.setdefault(doc.blob_id, []).append(doc)
            doc.chunks = []
        for bid, chunk in _chunks(self.conn, by_blob):
            for doc in by_blob[bid]:
                doc.chunks.append(chunk)
        for doc in wanted.values():
            doc.chunks.sort(key=lambda c: (c.start_line, c.end_line))
            doc.facts = None  # whole now

    def _chunk_texts(self) -> Iterator[tuple[list[str], str]]:
        """(tokens, text) of every chunk; for a prepared corpus, (distinct terms, text) of
        every blob, read a batch at a time."""
        for f in self.files.values():
            if f.facts is None:
                for c in f.chunks:
                    yield c.tokens, c.text
        if self.conn is None:
            return
        ids = sorted({d.blob_id for d in self.files.values()
                      if d.facts is not None and d.blob_id is not None})
        for _, _, texts, terms in read_packs(self.conn, ids, ("texts", "terms"), 200):
            yield packs.decode_terms(terms).words, "\n".join(packs.decode_texts(texts))

    def vocabulary(self) -> dict[str, str]:
        """Every distinct token and identifier of the corpus: lower-case key -> as written."""
        if self._vocab is None:
            self._vocab = self._read_vocabulary()
        return self._vocab

    def vocabulary_by_length(self) -> dict[int, list[str]]:
        """The keys of :meth:`vocabulary` by their length, sorted."""
        if self._by_length is None:
            groups: dict[int, list[str]] = {}
            for key in sorted(self.vocabulary()):
                groups.setdefault(len(key), []).append(key)
            self._by_length = groups
        return self._by_length

    def _read_vocabulary(self) -> dict[str, str]:
        vocab: dict[str, str] = {}
        raw: set[str] = set()
        for f in self.files.values():
            for t in f.path_tokens:
                vocab.setdefault(t, t)
        for tokens, text in self._chunk_texts():
            for t in tokens:
                vocab.setdefault(t, t)
            raw.update(_WORD.findall(text))
        for word in sorted(raw, reverse=True):  # the smallest spelling wins
            if "_" in word.strip("_"):  # an identifier is shown as written: discount_code
                vocab[word.lower()] = word
                vocab[word.lower().replace("_", "")] = word
        return vocab


def _finish(files: dict[str, FileDoc]) -> dict[str, FileDoc]:
    out: dict[str, FileDoc] = {}
    for path in sorted(files):
        f = files[path]
        f.chunks.sort(key=lambda c: (c.start_line, c.end_line))
        f.path_tokens = tokenize(path)
        out[path] = f
    return out


def load_session_corpus(conn: sqlite3.Connection, session_id: str) -> Corpus:
    """Every chunk the session maps, grouped by path; files without chunks are kept (empty)."""
    files: dict[str, FileDoc] = {}
    by_blob: dict[int, list[FileDoc]] = {}
    for path, atype, blob_id in sessionmap.paths_and_blobs(conn, session_id):
        files[path] = FileDoc(path, atype)
        if blob_id is not None:
            by_blob.setdefault(blob_id, []).append(files[path])
    for bid, chunk in _chunks(conn, by_blob):
        for doc in by_blob[bid]:
            doc.chunks.append(chunk)
    return Corpus(_finish(files), session_id)


def _chunks(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> Iterator[tuple[int, ChunkDoc]]:
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


def load_prepared_corpus(conn: sqlite3.Connection, session_id: str, stats: TextStats) -> Corpus:
    """The session's files with their blobs' prepared facts, without chunks or text.

    Ranking reads term statistics from ``stats`` (the session's search base)
    and tables, methods and imports from the blobs' facts; :meth:`Corpus.hydrate`
    reads the full chunks of the files a result shows.
    """
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
    return Corpus(_finish(files), session_id, stats=stats, conn=conn)


def corpus_from_rag(rag: ImpactRAG, scope: str) -> Corpus:
    """The chunks of an ImpactRAG scope as a corpus (the ``[name]`` prefix is removed)."""
    files: dict[str, FileDoc] = {}
    texts: dict[str, list[str]] = {}
    for stored in rag.sources(scope):
        meta = stored.meta
        path = str(meta.get("path") or "(unnamed)")
        text = stored.chunk
        prefix = f"[{path}]\n"
        if text.startswith(prefix):
            text = text[len(prefix):]
        start = int(meta.get("start_line", 1))
        end = int(meta.get("end_line", start + text.count("\n")))
        doc = files.get(path)
        if doc is None:
            doc = files[path] = FileDoc(path, "OTHER")
        doc.chunks.append(ChunkDoc(start, end, text, tokenize(text), str(meta.get("kind", "block")),
                                   meta.get("symbol"), meta.get("section")))
        texts.setdefault(path, []).append(text)
    for path, doc in files.items():
        doc.artifact_type = artifact_type(path, content_hint(path, "\n".join(texts[path])))
    return Corpus(_finish(files))
