"""Index and retrieve text for impact investigation (the library API's ``ImpactRAG``).

``index(scope, sources)`` cuts each ``(name, text)`` source into chunks with
the same chunker as the session index, embeds them and stores them in a
:class:`~genesis_git.rag.store.RagStore`; indexing a scope again replaces
what it held.  ``retrieve(scope, query, k)`` gives the texts of the ``k``
most similar chunks, each starting with ``[name]`` so that a prompt shows
where it came from.

For a git repository the session index already holds every chunk; the
impact agent then reads the session directly, and this class is for text
that lives outside a repository.
"""

from __future__ import annotations

from collections.abc import Sequence

from genesis_git.index.chunk import chunk_text
from genesis_git.providers.embedders import Embedder
from genesis_git.rag.store import RagStore, StoredChunk

MAX_LINES = 80
MAX_CHARS = 3000


def split_source(name: str, text: str) -> list[tuple[str, dict[str, object]]]:
    """``(chunk text, metadata)`` pairs of one source; the text starts with ``[name]``."""
    out: list[tuple[str, dict[str, object]]] = []
    for c in chunk_text(name, text, MAX_LINES, MAX_CHARS):
        meta: dict[str, object] = {"path": name, "start_line": c.start_line,
                                   "end_line": c.end_line, "kind": c.kind}
        if c.symbol:
            meta["symbol"] = c.symbol
        if c.section:
            meta["section"] = c.section
        out.append((f"[{name}]\n{c.text}", meta))
    return out


class ImpactRAG:
    """Chunk, embed and store sources under a scope; retrieve the chunks closest to a query."""

    def __init__(self, store: RagStore, embedder: Embedder):
        self.store = store
        self.embedder = embedder

    def index(self, scope: str, sources: Sequence[tuple[str, str]]) -> int:
        """Replace the chunks of ``scope`` with those of ``sources``; returns the chunk count."""
        pairs = [pair for name, text in sources for pair in split_source(name, text)]
        texts = [p[0] for p in pairs]
        vectors = self.embedder.embed(texts) if texts else []
        return self.store.replace(scope, texts, vectors, [p[1] for p in pairs])

    def retrieve_chunks(self, scope: str, query: str, k: int = 5) -> list[StoredChunk]:
        """Scored chunks with their metadata (path, line range), best first."""
        if not query.strip() or k <= 0:
            return []
        vec = self.embedder.embed([query])[0]
        return [hit for hit in self.store.search_scored(scope, vec, k) if hit.score > 0]

    def retrieve(self, scope: str, query: str, k: int = 5) -> list[str]:
        """The texts of the ``k`` chunks closest to ``query``; an empty query gives ``[]``."""
        return [hit.chunk for hit in self.retrieve_chunks(scope, query, k)]

    def sources(self, scope: str) -> list[StoredChunk]:
        """Every chunk of ``scope`` with its metadata, in indexing order."""
        return self.store.chunks(scope)
