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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from genesis_git.index.classify import artifact_type, content_hint
from genesis_git.text import tokenize

if TYPE_CHECKING:
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

    def __len__(self) -> int:
        return len(self.files)

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
            for c in f.chunks:
                for t in c.tokens:
                    vocab.setdefault(t, t)
                for word in _WORD.findall(c.text):
                    raw.add(word)
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
    for path, atype in conn.execute(
            "SELECT path, artifact_type FROM rag_session_chunk_map WHERE session_id=?",
            (session_id,)):
        files[path] = FileDoc(path, atype)
    rows = conn.execute(
        "SELECT m.path, c.start_line, c.end_line, c.text, c.tokens, c.kind, c.symbol, c.section "
        "FROM rag_session_chunk_map m JOIN rag_chunk_cache c ON c.blob_id = m.blob_id "
        "WHERE m.session_id=?", (session_id,))
    for path, start, end, text, tokens, kind, symbol, section in rows:
        files[path].chunks.append(ChunkDoc(start, end, text, tokens.split(), kind, symbol, section))
    return Corpus(_finish(files), session_id)


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
