"""A blob's chunks stored compactly, one row per blob (``rag_blob_content``).

A chunk's text, its tokens and its vector used to be three columns of its
own row: four to five times the size of the text itself.  A blob now keeps
three packs instead, each holding all its chunks in their order (``ord``):

* **texts** — the chunks' texts, compressed together (a file compresses far
  better whole than in pieces):
  ``zlib(u32 n | u32 bytes[n] | the UTF-8 texts)``;
* **terms** — the chunks' tokens, each an index into the blob's own
  vocabulary (its distinct terms in the order they first occur):
  ``zlib(u32 n_chunks | u32 n_words | u32 vocabulary bytes | the words joined
  by "\\n" | u32 length[n_chunks] | u16 or u32 token[sum of the lengths])``
  (u16 when the blob has fewer than 65,536 distinct terms);
* **vectors** — unit vectors as float16, one row per chunk, only for an
  embedder whose vectors cannot be derived from the terms; the offline
  hashing embedder's are derived when the search base is built
  (:meth:`genesis_git.providers.embedders.HashingEmbedder.embed_postings`).

The terms are those of :func:`genesis_git.text.tokens.tokenize`; a term never holds
white space, so ``"\\n"`` separates them.
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

FORMAT = 1  # the layout above (``rag_blob_content.format``)
TEXT_LEVEL = 1  # zlib levels: texts at level 6 are 15 % smaller, at twice the cost
TERMS_LEVEL = 1  # terms at level 6 are 5 % smaller, at twice the cost
_U32 = struct.Struct("<I")
_HEAD = struct.Struct("<III")


def _le(arr: array[int]) -> bytes:
    """The little-endian bytes of an array."""
    if sys.byteorder == "big":  # pragma: no cover - little-endian machines only in CI
        arr = array(arr.typecode, arr)
        arr.byteswap()
    return arr.tobytes()


def encode_texts(texts: Sequence[str], level: int | None = None) -> bytes:
    raw = [t.encode("utf-8", "surrogatepass") for t in texts]
    return zlib.compress(_U32.pack(len(raw)) + _le(array("I", map(len, raw))) + b"".join(raw),
                         TEXT_LEVEL if level is None else level)


def decode_texts(pack: bytes) -> list[str]:
    raw = zlib.decompress(pack)
    n = _U32.unpack_from(raw)[0]
    lengths = struct.unpack_from(f"<{n}I", raw, 4)
    out: list[str] = []
    pos = 4 + 4 * n
    for size in lengths:
        out.append(raw[pos:pos + size].decode("utf-8", "surrogatepass"))
        pos += size
    return out


def decode_texts_at(pack: bytes, ords: Iterable[int]) -> dict[int, str]:
    """The texts of the chunks ``ords`` only (those the pack has), as :func:`decode_texts`
    gives them; the pack is decompressed no further than the last of them."""
    d = zlib.decompressobj()
    raw = bytearray()

    def upto(size: int) -> None:
        while len(raw) < size and not d.eof:
            got = d.decompress(d.unconsumed_tail if raw else pack, size - len(raw))
            if not got:
                break
            raw.extend(got)

    upto(4)
    n = _U32.unpack_from(raw)[0]
    wanted = sorted({o for o in ords if 0 <= o < n})
    if not wanted:
        return {}
    upto(4 + 4 * n)
    lengths = struct.unpack_from(f"<{n}I", raw, 4)
    ends = list(accumulate(lengths, initial=4 + 4 * n))
    upto(ends[wanted[-1] + 1])
    return {o: bytes(raw[ends[o]:ends[o + 1]]).decode("utf-8", "surrogatepass") for o in wanted}


def encode_terms(id_lists: Sequence[Sequence[int]], words: Sequence[str],
                 level: int | None = None) -> bytes:
    """The terms pack of one blob's chunks, given as lists of ids into ``words``."""
    flat = list(chain.from_iterable(id_lists))
    vocab = list(dict.fromkeys(flat))
    where = dict(zip(vocab, range(len(vocab)), strict=True))
    text = "\n".join(_pick(words, vocab)).encode("utf-8", "surrogatepass")
    seq = array("I" if len(where) > 0xFFFF else "H", _pick(where, flat))
    raw = b"".join((_HEAD.pack(len(id_lists), len(where), len(text)), text,
                    _le(array("I", map(len, id_lists))), _le(seq)))
    return zlib.compress(raw, TERMS_LEVEL if level is None else level)


def _pick(table: Any, keys: list[Any]) -> tuple[Any, ...]:
    """``table[k]`` of every key (one C loop)."""
    if len(keys) < 2:
        return tuple(table[k] for k in keys)
    found: tuple[Any, ...] = itemgetter(*keys)(table)
    return found


@dataclass
class Terms:
    """A decoded terms pack: chunk ``c`` is ``words[seq[i]]`` for ``i`` in
    ``[starts[c], starts[c] + lengths[c])``."""

    words: list[str]
    seq: np.ndarray  # int64[tokens]: the blob's tokens as indexes into ``words``
    lengths: np.ndarray  # int64[n_chunks]: tokens per chunk

    @property
    def n_chunks(self) -> int:
        return int(self.lengths.shape[0])

    def token_lists(self) -> list[list[str]]:
        """Each chunk's tokens, in their order."""
        out: list[list[str]] = []
        pos = 0
        tokens = [self.words[i] for i in self.seq.tolist()]
        for n in self.lengths.tolist():
            out.append(tokens[pos:pos + n])
            pos += n
        return out


def decode_terms(pack: bytes) -> Terms:
    import numpy as np

    raw = zlib.decompress(pack)
    n, n_words, n_text = _HEAD.unpack_from(raw)
    pos = _HEAD.size
    words = raw[pos:pos + n_text].decode("utf-8", "surrogatepass").split("\n") if n_words else []
    pos += n_text
    lengths = np.frombuffer(raw, dtype="<u4", count=n, offset=pos).astype(np.int64)
    pos += 4 * n
    wide = np.dtype("<u4" if n_words > 0xFFFF else "<u2")
    seq = np.frombuffer(raw, dtype=wide, count=int(lengths.sum()), offset=pos).astype(np.int64)
    return Terms(words, seq, lengths)


def encode_vectors(rows: Iterable[Any], dim: int) -> bytes:
    """Vectors (float32 bytes or sequences of numbers, one per chunk) as float16 unit rows; a
    missing or empty one is a zero row."""
    import numpy as np

    mat = np.zeros((0, dim), dtype=np.float32)
    listed = [np.frombuffer(r, dtype="<f4") if isinstance(r, (bytes, bytearray, memoryview))
              else np.asarray(r if r is not None else [], dtype=np.float32) for r in rows]
    if listed:
        mat = np.stack([v if v.shape[0] == dim else np.zeros(dim, dtype=np.float32)
                        for v in listed]).astype(np.float32)
    return unit_f16(mat).tobytes()


def unit_f16(mat: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero) as little-endian float16."""
    import numpy as np

    norms = np.linalg.norm(mat, axis=1) if mat.shape[0] else np.zeros(0)
    norms[norms == 0] = 1.0
    return (mat / norms[:, None]).astype("<f2")


def decode_vectors(pack: bytes | None, n_chunks: int) -> np.ndarray | None:
    """float16[n_chunks, dim], or ``None`` when the blob keeps none."""
    import numpy as np

    if pack is None or n_chunks == 0:
        return None
    flat = np.frombuffer(pack, dtype="<f2")
    return flat.reshape(n_chunks, flat.shape[0] // n_chunks)
