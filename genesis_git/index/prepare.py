"""What a missed blob becomes before it is stored: decoded, chunked, classified, packed.

A blob becomes its chunks' rows (lines, kind, symbol, section), its packs
(:mod:`~genesis_git.index.packs`: the texts, the terms, and the vectors of an
embedder whose vectors cannot be derived from the terms) and its impact facts
(:mod:`~genesis_git.index.facts`).  Nothing here touches the store, so a
batch can be prepared in a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.index import packs
from genesis_git.index.chunk import Chunk, chunk_text, language_of
from genesis_git.index.classify import content_hint
from genesis_git.index.facts import FACTS_VERSION, compute
from genesis_git.providers.embedders import HashingEmbedder
from genesis_git.text.tokens import VOCABULARY, index_terms

LFS_PREFIX = b"version https://git-lfs.github.com/spec/v1"


def decode(data: bytes) -> str:
    """UTF-8 (BOM stripped); then UTF-16 with a BOM; then GB18030; then Latin-1, which never fails."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def content_skip(data: bytes) -> str | None:
    if data.startswith(LFS_PREFIX):
        return "lfs pointer"
    if b"\0" in data[:8000] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary"
    return None


@dataclass
class Prepared:
    sha: str
    size: int
    status: str
    skip_reason: str | None = None
    language: str | None = None
    content_type: str | None = None
    # (ord, start_line, end_line, section, symbol, kind) of each chunk
    chunks: list[tuple[Any, ...]] = field(default_factory=list)
    texts: bytes | None = None  # the packs (None without chunks)
    terms: bytes | None = None
    vectors: bytes | None = None
    facts: tuple[int, str] | None = None  # (version, facts)
    format: int = packs.FORMAT


def prepare_many(work: list[tuple[str, str, bytes]], config: Config, embedder: Any) -> list[Prepared]:
    """Chunk, classify, pack and (unless the vectors derive from the terms) embed a batch of
    ``(path, sha, data)`` (no database access).

    The chunks of the whole batch are embedded in one call.
    """
    VOCABULARY.reset_if_full()
    max_lines, max_chars = config.settings.index.chunk_max_lines, config.settings.index.chunk_max_chars
    out: list[Prepared] = []
    pending: list[tuple[Prepared, list[Chunk]]] = []
    words = VOCABULARY.tokens
    for path, sha, data in work:
        reason = content_skip(data)
        if reason:
            out.append(Prepared(sha, len(data), "skipped", reason))
            continue
        text = decode(data)
        chunks = chunk_text(path, text, max_lines, max_chars)
        prepared = Prepared(sha, len(data), "ready", None, language_of(path), content_hint(path, text))
        out.append(prepared)
        prepared.chunks = [(i, c.start_line, c.end_line, c.section, c.symbol, c.kind)
                           for i, c in enumerate(chunks)]
        if chunks:
            prepared.texts = packs.encode_texts([c.text for c in chunks])
            prepared.terms = packs.encode_terms([index_terms(c.text)[1] for c in chunks], words)
            prepared.facts = (FACTS_VERSION, compute(
                [(c.start_line, c.end_line, c.kind, c.symbol, c.text, c.section)
                 for c in chunks]).dumps())
            pending.append((prepared, chunks))
    if not isinstance(embedder, HashingEmbedder) and pending:
        vectors = iter(embedder.embed([c.text for _, chunks in pending for c in chunks]))
        for prepared, chunks in pending:
            rows = [next(vectors) for _ in chunks]
            prepared.vectors = packs.encode_vectors(rows, len(rows[0]) if rows else 0)
    return out
