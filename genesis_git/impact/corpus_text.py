"""A corpus held in memory, every chunk with its text and tokens.

:func:`corpus_from_rag` reads an :class:`~genesis_git.rag.impact_rag.ImpactRAG`
scope (text that is not in a repository); its prompt quotes the chunks the
scope's own retrieval finds.  :func:`load_session_corpus` reads every chunk a
session maps (the session map joined with the chunk cache, so what another
branch or worktree cached never leaks in): the reference the prepared session
corpus of :mod:`genesis_git.impact.corpus_session` ranks the same as.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from genesis_git.impact.corpus import ChunkDoc, Corpus, FileDoc, TextScores, finish
from genesis_git.impact.graph import Symbols, Tables, definitions_in_chunks
from genesis_git.impact.prompt import PromptChunk
from genesis_git.index.classify import artifact_type, content_hint
from genesis_git.index.facts import js_import_specs, py_import_specs
from genesis_git.store import sessionmap
from genesis_git.text import bm25
from genesis_git.text.tokens import tokenize

if TYPE_CHECKING:
    from genesis_git.rag.impact_rag import ImpactRAG

DEFAULT_SCOPE = "default"


def _bm25(tf: int, dl: int, avgdl: float, term_idf: float) -> float:
    return float(bm25.term_score(tf, bm25.norm(dl, avgdl), term_idf))


class TextCorpus(Corpus):
    """Files with all their chunks in memory."""

    def text_scores(self, weights: dict[str, float]) -> TextScores:
        terms = set(weights)
        file_tf: dict[str, Counter[str]] = {}
        file_len: dict[str, int] = {}
        chunk_rows: list[tuple[str, Counter[str], int]] = []
        for path, doc in self.files.items():
            total: Counter[str] = Counter(t for t in doc.path_tokens if t in terms)
            length = len(doc.path_tokens)
            for c in doc.chunks:
                ctf = Counter(t for t in c.tokens if t in terms)
                length += len(c.tokens)
                total.update(ctf)
                chunk_rows.append((path, ctf, len(c.tokens)))
            file_tf[path] = total
            file_len[path] = length
        n_files = max(len(file_tf), 1)
        avg_file = sum(file_len.values()) / n_files or 1.0
        df = Counter(t for tf in file_tf.values() for t in tf)
        idf = {t: bm25.idf(n_files, df[t]) for t in df}
        files: dict[str, float] = {}
        for path, tf in file_tf.items():
            s = sum(weights[t] * _bm25(n, file_len[path], avg_file, idf[t]) for t, n in tf.items())
            if s > 0:
                files[path] = s
        n_chunks = max(len(chunk_rows), 1)
        avg_chunk = sum(r[2] for r in chunk_rows) / n_chunks or 1.0
        cdf = Counter(t for _, tf, _ in chunk_rows for t in tf)
        cidf = {t: bm25.idf(n_chunks, cdf[t]) for t in cdf}
        best: dict[str, float] = {}
        for path, tf, dl in chunk_rows:
            if not tf:
                continue
            s = sum(weights[t] * _bm25(n, dl, avg_chunk, cidf[t]) for t, n in tf.items())
            if s > best.get(path, 0.0):
                best[path] = s
        return files, best, set(df), {p: set(tf) for p, tf in file_tf.items() if tf}

    def column_share(self, cols: list[str]) -> dict[str, float]:
        wanted = set(cols)
        out: dict[str, float] = {}
        for path, doc in self.files.items():
            seen: set[str] = set()
            for c in doc.chunks:
                seen.update(t for t in c.tokens if t in wanted)
            if seen:
                out[path] = len(seen) / len(cols)
        return out

    def definitions(self, path: str, wanted: set[str] | None) -> tuple[Symbols, Tables]:
        return definitions_in_chunks(path, self.files[path].chunks, wanted)

    def py_imports(self, path: str) -> list[tuple[str, list[str]]]:
        return py_import_specs(self.files[path].text)

    def js_imports(self, path: str) -> list[str]:
        return js_import_specs(self.files[path].text)

    def read(self, paths: Iterable[str]) -> dict[str, FileDoc]:
        return {p: self.files[p] for p in paths if p in self.files}

    def _chunk_texts(self) -> Iterator[tuple[list[str], str]]:
        for f in self.files.values():
            for c in f.chunks:
                yield c.tokens, c.text


class ScopeCorpus(TextCorpus):
    """The chunks of an ImpactRAG scope; a prompt quotes what the scope's retrieval finds."""

    def __init__(self, files: dict[str, FileDoc], rag: ImpactRAG, scope: str) -> None:
        super().__init__(files)
        self.rag = rag
        self.scope = scope

    def excerpts(self, requirement: str, weights: dict[str, float], ranked: Sequence[FileDoc],
                 n: int) -> list[PromptChunk]:
        out = []
        for hit in self.rag.retrieve_chunks(self.scope, requirement, n):
            path = str(hit.meta.get("path", "(unnamed)"))
            text = hit.chunk.split("\n", 1)[1] if hit.chunk.startswith("[") else hit.chunk
            start = int(hit.meta.get("start_line", 1))
            out.append(PromptChunk(path, start, int(hit.meta.get("end_line", start)), text,
                                   self.files[path].artifact_type if path in self.files else ""))
        return out


def corpus_from_rag(rag: ImpactRAG, scope: str = DEFAULT_SCOPE) -> ScopeCorpus:
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
    return ScopeCorpus(finish(files), rag, scope)


def load_session_corpus(conn: sqlite3.Connection, session_id: str) -> TextCorpus:
    """Every chunk the session maps, grouped by path; files without chunks are kept (empty)."""
    from genesis_git.impact.corpus_session import read_chunks

    files: dict[str, FileDoc] = {}
    by_blob: dict[int, list[FileDoc]] = {}
    for path, atype, blob_id in sessionmap.paths_and_blobs(conn, session_id):
        files[path] = FileDoc(path, atype)
        if blob_id is not None:
            by_blob.setdefault(blob_id, []).append(files[path])
    for bid, chunk in read_chunks(conn, by_blob):
        for doc in by_blob[bid]:
            doc.chunks.append(chunk)
    return TextCorpus(finish(files), session_id)
