"""A session's search base as a file: ``<store>/search/<session>.idx``.

The base is the chunk index of the blobs the session maps
(:class:`~genesis_git.search.base.build.ChunkSet`) and the index of its
paths (:class:`PathSet`), saved with :mod:`genesis_git.search.base.arrayfile`
(memory-mapped when read).  :func:`stream_base` builds it batch by batch
straight into the file (:mod:`genesis_git.search.base.stream`);
:func:`save_base` writes a base built in memory, byte for byte the same file.
A file of another format or tokenizer is not read (:func:`read_base`), so it
is rebuilt.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from genesis_git.providers.embedders import hashing_dim
from genesis_git.search.base import arrayfile
from genesis_git.search.base import build as basebuild
from genesis_git.search.base.build import ChunkSet
from genesis_git.search.termindex import TermIndex
from genesis_git.text.tokens import TOKENIZER_VERSION, tokenize

CACHE_FORMAT = 4  # 3: unit vectors as float16; 4: built from packs, hashed vectors derived
_BASES: dict[str, tuple[tuple[int, int], Base]] = {}


def path_tokens(path: str) -> list[str]:
    """Tokens of a path: its folders, its base name and its extension."""
    return tokenize(path.replace("/", " ").replace(".", " "))


@dataclass
class PathSet:
    """Paths as tiny documents, so that path tokens count toward the match."""

    paths: list[str]
    index: TermIndex
    _lookup: dict[str, int] | None = None

    @classmethod
    def build(cls, paths: list[str]) -> PathSet:
        return cls(list(paths), TermIndex.build([path_tokens(p) for p in paths]))

    def lookup(self) -> dict[str, int]:
        if self._lookup is None:
            self._lookup = {p: i for i, p in enumerate(self.paths)}
        return self._lookup


@dataclass
class Base:
    embedder: str
    chunks: ChunkSet
    paths: PathSet


def _encode_paths(paths: list[str]) -> np.ndarray:
    return np.frombuffer("\0".join(paths).encode("utf-8", "surrogateescape"), dtype=np.uint8)


def _decode_paths(raw: np.ndarray) -> list[str]:
    if raw.shape[0] == 0:
        return []
    return raw.tobytes().decode("utf-8", "surrogateescape").split("\0")


def _meta(embedder: str, n_paths: int, hashed: int) -> dict[str, Any]:
    return {"format": CACHE_FORMAT, "tokenizer": TOKENIZER_VERSION, "embedder": embedder,
            "n_paths": n_paths, "hashed": hashed}


def _arrays(chunks: Any, blob_stamp: np.ndarray, content: dict[str, Any],
            pathset: PathSet) -> dict[str, Any]:
    """The named arrays of a base file: its chunks (in memory, or streamed to spill files),
    their postings ``content`` and its paths."""
    return {"blob_ids": chunks.blob_ids, "blob_ptr": chunks.blob_ptr,
            "chunk_ids": chunks.chunk_ids, "start": chunks.start, "emb_t": chunks.emb_t,
            "blob_stamp": blob_stamp, "slots": chunks.slots, "norms": chunks.norms,
            "paths": _encode_paths(pathset.paths),
            **{f"c_{k}": v for k, v in content.items()}, **pathset.index.arrays("p_")}


def save_base(path: Path, base: Base) -> None:
    """Write the base atomically (a temporary file renamed over the old one)."""
    meta = _meta(base.embedder, len(base.paths.paths), base.chunks.hashed)
    arrays = _arrays(base.chunks, base.chunks.blob_stamp, base.chunks.content.arrays(""),
                     base.paths)
    arrayfile.save(path, arrays, meta)


def stream_base(conn: sqlite3.Connection, path: Path, embedder: str, blobs: np.ndarray,
                stamps: np.ndarray, paths: list[str]) -> Base | None:
    """Build the base of ``blobs`` batch by batch straight into ``path`` and map it.

    The same file as :func:`save_base` of the base built in memory, without
    ever holding every chunk's postings and vector (:mod:`basebuild`);
    ``stamps`` are those of ``blobs`` (one per entry).
    """
    from genesis_git.search.base import stream as basestream  # only when a base is built

    blob_ids = basebuild.unique(blobs.astype(np.int64))
    stamp_of = np.zeros(blob_ids.shape[0], dtype=np.uint32)
    if blobs.shape[0]:
        stamp_of[np.searchsorted(blob_ids, blobs)] = stamps
    folder = basestream.spill_folder(path)
    try:
        built = basestream.stream_chunks(conn, blob_ids, embedder, folder)
        pathset = PathSet.build(paths)
        arrays = _arrays(built, stamp_of, built.content, pathset)
        arrayfile.save(path, arrays, _meta(embedder, len(pathset.paths),
                                           hashing_dim(embedder) or 0))
    finally:
        basestream.remove(folder)
    return read_base(path)


def read_base(path: Path) -> Base | None:
    """The saved base, or ``None`` when it is missing, unreadable or of another format."""
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    memo = _BASES.get(str(path))
    if memo is not None and memo[0] == stamp:
        return memo[1]
    try:
        meta, data = arrayfile.load(path)
        if meta.get("format") != CACHE_FORMAT or meta.get("tokenizer") != TOKENIZER_VERSION:
            return None
        chunks = ChunkSet(data["blob_ids"], data["blob_ptr"], data["chunk_ids"],
                          data["start"],
                          TermIndex.from_arrays(data, "c_", (path, meta["positions"])),
                          data["emb_t"],
                          data["blob_stamp"], data["slots"], data["norms"], int(meta["hashed"]))
        paths = PathSet(_decode_paths(data["paths"]), TermIndex.from_arrays(data, "p_"))
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if len(paths.paths) != meta.get("n_paths"):
        return None
    base = Base(str(meta.get("embedder")), chunks, paths)
    _BASES[str(path)] = (stamp, base)
    return base


def forget() -> None:
    """Forget the bases this process holds in memory."""
    _BASES.clear()
