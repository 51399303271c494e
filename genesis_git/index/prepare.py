"""What a missed blob becomes before it is stored: decoded, chunked, classified and embedded.

Nothing here touches the store, so a batch can be prepared in a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from genesis_git.config import Config
from genesis_git.index.chunk import Chunk, chunk_text, language_of
from genesis_git.index.classify import content_hint
from genesis_git.text import VOCABULARY, index_terms

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
    chunks: list[tuple[Any, ...]] = field(default_factory=list)


def prepare_many(work: list[tuple[str, str, bytes]], config: Config, embedder: Any) -> list[Prepared]:
    """Chunk, classify and embed a batch of ``(path, sha, data)`` (no database access).

    The chunks of the whole batch are embedded in one call.
    """
    VOCABULARY.reset_if_full()
    max_lines, max_chars = config.int("index.chunk_max_lines"), config.int("index.chunk_max_chars")
    out: list[Prepared] = []
    pending: list[tuple[Prepared, list[Chunk], list[str]]] = []
    id_lists: list[list[int]] = []
    for path, sha, data in work:
        reason = content_skip(data)
        if reason:
            out.append(Prepared(sha, len(data), "skipped", reason))
            continue
        text = decode(data)
        chunks = chunk_text(path, text, max_lines, max_chars)
        joined: list[str] = []
        for c in chunks:
            tokens, ids = index_terms(c.text)
            joined.append(tokens)
            id_lists.append(ids)
        prepared = Prepared(sha, len(data), "ready", None, language_of(path), content_hint(path, text))
        out.append(prepared)
        pending.append((prepared, chunks, joined))
    vectors = iter(_embed(embedder, [c.text for _, chunks, _ in pending for c in chunks], id_lists))
    for prepared, chunks, joined in pending:
        prepared.chunks = [(i, c.start_line, c.end_line, c.section, c.symbol, c.kind, c.text, toks,
                            next(vectors)) for i, (c, toks) in enumerate(zip(chunks, joined, strict=True))]
    return out


def _embed(embedder: Any, texts: list[str], id_lists: list[list[int]]) -> list[bytes]:
    if not texts:
        return []
    if hasattr(embedder, "embed_token_ids_bytes"):
        return list(embedder.embed_token_ids_bytes(id_lists))
    import numpy as np

    return [np.asarray(v, dtype="<f4").tobytes() for v in embedder.embed(texts)]
