"""One file of named numpy arrays that is memory-mapped, not read, when it is opened.

Layout: the 8 bytes ``GNSARR01``, a little-endian uint64 header length, a
JSON header (``meta`` and, per array, its dtype, shape and offset), then the
raw arrays, each aligned to 64 bytes.  Opening maps the file and makes every
array a read-only view of the map, so a search touches only the pages it
needs: the embedding rows of the query's hash slots, the postings of its
terms.  A file is written to a temporary name and renamed over the old one,
so a reader sees either the old file or the new one.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"GNSARR01"
ALIGN = 64


@dataclass(frozen=True)
class Spilled:
    """An array already written, raw and C-ordered, to a file of its own (copied in pieces)."""

    file: Path
    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        n = self.dtype.itemsize
        for d in self.shape:
            n *= d
        return n


def save(path: Path, arrays: dict[str, np.ndarray | Spilled], meta: dict[str, Any]) -> None:
    entries: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, arr in arrays.items():
        offset = -(-offset // ALIGN) * ALIGN
        entries[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape), "offset": offset}
        offset += arr.nbytes
    header = json.dumps({"meta": meta, "arrays": entries}).encode("utf-8")
    start = -(-(len(MAGIC) + 8 + len(header)) // ALIGN) * ALIGN
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(b"\0" * (start - fh.tell()))
            for name, arr in arrays.items():
                pos = start + entries[name]["offset"]
                fh.write(b"\0" * (pos - fh.tell()))
                if isinstance(arr, Spilled):
                    with arr.file.open("rb") as src:
                        shutil.copyfileobj(src, fh, 1 << 20)
                    if fh.tell() != pos + arr.nbytes:
                        raise ValueError(f"spilled array {name} has the wrong size")
                else:
                    fh.write(np.ascontiguousarray(arr).tobytes())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, arrays)``; raises ``ValueError`` for a file that is not one of ours.

    ``meta["positions"]`` gives where each array starts in the file, for
    :func:`read_ranges`.
    """
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < len(MAGIC) + 8:
            raise ValueError("too short")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    if mm[:len(MAGIC)] != MAGIC:
        raise ValueError("not an array file")
    hlen = int.from_bytes(mm[len(MAGIC):len(MAGIC) + 8], "little")
    if len(MAGIC) + 8 + hlen > size:
        raise ValueError("truncated header")
    header = json.loads(mm[len(MAGIC) + 8:len(MAGIC) + 8 + hlen].decode("utf-8"))
    start = -(-(len(MAGIC) + 8 + hlen) // ALIGN) * ALIGN
    arrays: dict[str, np.ndarray] = {}
    positions: dict[str, int] = {}
    for name, e in header["arrays"].items():
        dtype = np.dtype(e["dtype"])
        shape = tuple(int(x) for x in e["shape"])
        count = int(np.prod(shape)) if shape else 1
        pos = start + int(e["offset"])
        if pos + count * dtype.itemsize > size:
            raise ValueError(f"truncated array {name}")
        arrays[name] = np.frombuffer(mm, dtype=dtype, count=count, offset=pos).reshape(shape)
        positions[name] = pos
    return {**header["meta"], "positions": positions}, arrays


GAP = 2048  # bytes between two ranges that one read takes together


def range_positions(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] .. starts[i] + counts[i] - 1`` of every range, one range
    after the other (what indexes the ranges' elements out of their array)."""
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))


def read_ranges(path: Path, position: int, dtype: np.dtype, starts: np.ndarray,
                counts: np.ndarray) -> np.ndarray:
    """The elements ``[starts[i], starts[i] + counts[i])`` of the array at ``position`` of the
    file, in order, read with ``pread``; ``starts`` ascending, ranges apart.

    Many small ranges spread over a large array are read rather than touched
    through the map: the kernel maps the pages around every page a map
    touches, so a few thousand ranges would bring most of the file into the
    process's memory.
    """
    keep = counts > 0
    starts, counts = starts[keep].astype(np.int64), counts[keep].astype(np.int64)
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=dtype)
    size = dtype.itemsize
    ends = starts + counts
    cuts = np.flatnonzero((starts[1:] - ends[:-1]) * size > GAP) + 1
    first = np.concatenate(([0], cuts))
    last = np.concatenate((cuts, [starts.shape[0]])) - 1
    lows, highs = starts[first], ends[last]  # one read per cluster of near ranges
    fd = os.open(path, os.O_RDONLY)
    try:
        raw = b"".join([os.pread(fd, (hi - lo) * size, position + lo * size)
                        for lo, hi in zip(lows.tolist(), highs.tolist(), strict=True)])
    finally:
        os.close(fd)
    got = np.frombuffer(raw, dtype=dtype)
    # where each range starts in ``got``: its cluster's place plus its offset in the cluster
    cluster = np.repeat(np.arange(first.shape[0]), last - first + 1)
    placed = np.concatenate(([0], np.cumsum(highs - lows)[:-1]))
    at = placed[cluster] + starts - lows[cluster]
    return got[range_positions(at, counts)]
