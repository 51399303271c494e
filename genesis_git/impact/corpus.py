"""The second station of impact: the text it ranks, behind one read-only protocol.

A :class:`Corpus` is files by path (in path order), each with its path
tokens and artifact type, and what the signals ask of it:

* :meth:`Corpus.text_scores` — BM25 of the query terms per file and per best
  chunk, the terms that matched anywhere and the terms each file holds;
* :meth:`Corpus.column_share` — the share of a table's columns each file
  mentions;
* :meth:`Corpus.graph` — definitions, tables and imports
  (:mod:`genesis_git.impact.graph`), built from :meth:`Corpus.definitions`,
  :meth:`Corpus.py_imports` and :meth:`Corpus.js_imports`;
* :meth:`Corpus.path_index` — the paths each path token is in, and each file name's
  tokens (made once);
* :attr:`Corpus.flags` — lock, vendored, generated, data and changelog files;
* :meth:`Corpus.read` — the files in full (chunks, text, tokens), for the
  evidence and the prompt of the files a result shows;
* :meth:`Corpus.excerpts` — the chunks a prompt quotes;
* :meth:`Corpus.vocabulary` — close terms for a requirement that matched nothing.

There is one implementation per kind: the session index of a repository
(:mod:`genesis_git.impact.corpus_session`, term statistics from the search
base and per-blob facts, full text read only for the files shown) and text
held in memory (:mod:`genesis_git.impact.corpus_text`: an ImpactRAG scope, or
every chunk of a session).  A corpus is complete when it is made; ranking
only reads it.  A corpus its caller keeps between queries (``keep``) builds
its whole reference graph once and keeps it.
"""

from __future__ import annotations

import bisect
import re
from abc import ABC, abstractmethod
from collections.abc import Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from genesis_git.impact.kinds import file_flags
from genesis_git.impact.prompt import PromptChunk
from genesis_git.text.tokens import tokenize

if TYPE_CHECKING:
    from genesis_git.impact.graph import Graph, Symbols, Tables
    from genesis_git.index.facts import BlobFacts

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")

# file-level BM25, best-chunk BM25, the terms that matched anywhere, the query terms of each file
TextScores = tuple[dict[str, float], dict[str, float], set[str], dict[str, set[str]]]


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
    facts: BlobFacts | None = None  # a session's file: its blob's facts, no chunks (see read)
    blob_id: int | None = None

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.chunks)

    def head(self) -> str:
        return self.chunks[0].text[:600] if self.chunks else ""


def chunk_score(chunk: ChunkDoc, weights: dict[str, float]) -> float:
    seen = {t for t in chunk.tokens if t in weights}
    return sum(weights[t] for t in seen)


def _symbol_named(chunk: ChunkDoc, names: Container[str]) -> bool:
    if not chunk.symbol:
        return False
    for part in chunk.symbol.split("."):
        toks = tokenize(part)
        if toks and toks[0] in names:
            return True
    return False


def best_chunk(doc: FileDoc, weights: dict[str, float], anchors: Container[str] | None = None
               ) -> ChunkDoc | None:
    """The chunk that carries the most query weight; a chunk defining a named symbol first
    (with ``anchors``, a symbol among them: not ``add`` for "add a method")."""
    best: tuple[tuple[bool, float], ChunkDoc] | None = None
    for c in doc.chunks:
        s = chunk_score(c, weights)
        if s <= 0:
            continue
        key = (_symbol_named(c, weights if anchors is None else anchors), s)
        if best is None or key > best[0]:
            best = (key, c)
    return best[1] if best else None


def finish(files: dict[str, FileDoc]) -> dict[str, FileDoc]:
    """``files`` in path order, their chunks in line order, their path tokens set."""
    out: dict[str, FileDoc] = {}
    for path in sorted(files):
        f = files[path]
        f.chunks.sort(key=lambda c: (c.start_line, c.end_line))
        f.path_tokens = tokenize(path)
        out[path] = f
    return out


class Corpus(ABC):
    """Files by path, in path order; read-only once made."""

    prepared = False  # term statistics and facts instead of every chunk's text

    def __init__(self, files: dict[str, FileDoc], session_id: str | None = None) -> None:
        self.files = files
        self.session_id = session_id
        self.keep = False  # its caller keeps it between queries: it keeps its whole graph
        self.flags: dict[str, list[str]] = {
            p: file_flags(p, doc.head(), marked=doc.facts.generated if doc.facts else None)
            for p, doc in files.items()}
        self._graph: Graph | None = None
        self._vocab: dict[str, str] | None = None
        self._by_length: dict[int, list[str]] | None = None
        self._path_index: tuple[dict[str, list[str]], dict[str, set[str]]] | None = None
        self._name_words: tuple[str, list[int], list[list[str]]] | None = None

    def __len__(self) -> int:
        return len(self.files)

    # -- what the signals read ------------------------------------------------------
    @abstractmethod
    def text_scores(self, weights: dict[str, float]) -> TextScores:
        """File-level BM25 (path tokens count), best-chunk BM25, the terms that matched
        anywhere, and the query terms each file holds."""

    @abstractmethod
    def column_share(self, cols: list[str]) -> dict[str, float]:
        """The share of ``cols`` each file's chunks mention (paths do not count); files that
        mention none are left out."""

    @abstractmethod
    def definitions(self, path: str, wanted: set[str] | None) -> tuple[Symbols, Tables]:
        """The symbols and tables ``path`` defines (with ``wanted``, only symbols whose token
        may be in it: that only saves time)."""

    @abstractmethod
    def py_imports(self, path: str) -> list[tuple[str, list[str]]]:
        """The Python imports of ``path``: (module, names) pairs."""

    @abstractmethod
    def js_imports(self, path: str) -> list[str]:
        """The JavaScript/TypeScript module specifiers ``path`` imports."""

    def graph(self, wanted: set[str]) -> Graph:
        """The reference graph; ``wanted`` (the query's tokens) only saves time: the answers
        are the same.  A kept corpus builds its whole graph once."""
        from genesis_git.impact.graph import build_graph

        if not self.keep:
            return build_graph(self, wanted=wanted, eager_imports=False)
        if self._graph is None:
            self._graph = build_graph(self, eager_imports=False)
        return self._graph

    def path_index(self) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
        """The paths each path token is in, and the tokens of each file's name (its stem),
        made once."""
        if self._path_index is None:
            index: dict[str, list[str]] = {}
            stems: dict[str, set[str]] = {}
            for path, doc in self.files.items():
                for t in dict.fromkeys(doc.path_tokens):
                    index.setdefault(t, []).append(path)
                base = path.rsplit("/", 1)[-1]
                stems[path] = set(tokenize(base.split(".", 1)[0] if not base.startswith(".")
                                           else base))
            self._path_index = (index, stems)
        return self._path_index

    def files_named_with(self, word: str) -> list[str]:
        """The files whose name holds ``word`` inside a longer word (``pdf`` in
        ``mypdfloader.py``), in path order; one scan of every name's words joined."""
        if self._name_words is None:
            _, stems = self.path_index()
            owners: dict[str, list[str]] = {}
            for path, toks in stems.items():
                for t in toks:
                    owners.setdefault(t, []).append(path)
            words = sorted(owners)
            starts, at = [], 0
            for t in words:
                starts.append(at)
                at += len(t) + 1
            self._name_words = ("\0".join(words), starts, [owners[t] for t in words])
        joined, starts, paths = self._name_words
        out: set[str] = set()
        at = joined.find(word)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            name_len = (starts[i + 1] - 1 if i + 1 < len(starts) else len(joined)) - starts[i]
            if name_len > len(word):
                out.update(paths[i])
            at = joined.find(word, at + 1)
        return sorted(out)

    # -- what the evidence and the prompt read ------------------------------------------
    @abstractmethod
    def read(self, paths: Iterable[str]) -> dict[str, FileDoc]:
        """The files of ``paths`` that the corpus holds, each with all its chunks."""

    def texts(self, paths: Iterable[str]) -> dict[str, str]:
        """The text of each of ``paths`` the corpus holds (its chunks joined), for a signal
        that only reads it."""
        return {p: doc.text for p, doc in self.read(paths).items()}

    def excerpts(self, requirement: str, weights: dict[str, float], ranked: Sequence[FileDoc],
                 n: int) -> list[PromptChunk]:
        """The chunks a prompt quotes: the best chunk of each of the ``n`` best files
        (``ranked``: read in full, best first)."""
        out = []
        for doc in ranked[:n]:
            chunk = best_chunk(doc, weights) or (doc.chunks[0] if doc.chunks else None)
            if chunk is not None:
                out.append(PromptChunk(doc.path, chunk.start_line, chunk.end_line, chunk.text,
                                       doc.artifact_type))
        return out

    # -- close terms ------------------------------------------------------------------
    @abstractmethod
    def _chunk_texts(self) -> Iterator[tuple[list[str], str]]:
        """(tokens, text) of the corpus's text, a piece at a time."""

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
