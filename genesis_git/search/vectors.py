"""Exact cosine similarity between the query and every chunk the session maps.

The hashing embedder's vectors are never stored: a chunk's vector is the sum,
over its terms, of ``±(1 + log tf)`` in the term's slot, scaled to unit
length.  So its cosine with a query is a sum over the postings of the terms
whose slot the query uses, divided by the chunk's vector length; the base
keeps each term's slot and each chunk's length (:mod:`~genesis_git.search.base.build`),
and a query reads the postings of a few slots' terms.  The numbers are those
of the vectors themselves, in float64.

Any other embedder's vectors are stored as float16 unit vectors, one row per
dimension, so a query costs one matrix-vector product per part, widened to
float32 a block of chunks at a time.  Either way the top-k is exact, with no
approximate index, and a chunk shared by several paths is scored once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from genesis_git.kernel.errors import GenesisError
from genesis_git.providers.embedders import Embedder, HashingEmbedder
from genesis_git.search.base.build import ChunkSet
from genesis_git.search.session_index import SessionIndex
from genesis_git.text.tokens import QueryTerm


class VectorUnavailable(GenesisError):
    """The session's chunks have no embeddings comparable with the query's."""


def query_vector(embedder: Embedder, query: str, terms: Sequence[QueryTerm],
                 idf: Mapping[str, float] | None = None) -> np.ndarray:
    """The query's unit vector.

    The hashing embedder gets the analysed terms, each weighted by its own
    weight (synonyms and words of links count less) times its IDF in the
    session when ``idf`` is given: a word that every chunk has says little,
    and a word that no chunk of the session has can only add hash
    collisions.  Any other embedder gets the query text as written.
    """
    if isinstance(embedder, HashingEmbedder):
        if idf is not None:
            pairs = [(t.term, t.weight * idf.get(t.term, 0.0)) for t in terms]
        else:
            pairs = [(t.term, t.weight) for t in terms]
        vec = embedder.embed_weighted([(term, w) for term, w in pairs if w > 0])
    else:
        vec = embedder.embed([query])[0]
    arr = np.asarray(vec, dtype=np.float32)
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


BLOCK = 32768  # chunks whose float16 vectors are widened to float32 at once


def _dot(qvec: np.ndarray, emb_t: np.ndarray, nz: np.ndarray | None) -> np.ndarray:
    """``qvec @ emb_t`` over the rows ``nz`` (all when ``None``), a block of chunks at a time,
    so that only a block is ever widened to float32 in memory."""
    n = emb_t.shape[1]
    out = np.empty(n, dtype=np.float64)
    q = qvec[nz] if nz is not None else qvec
    for lo in range(0, n, BLOCK):
        block = emb_t[nz, lo:lo + BLOCK] if nz is not None else emb_t[:, lo:lo + BLOCK]
        out[lo:lo + BLOCK] = q @ block.astype(np.float32)
    return out


def _hashed(qvec: np.ndarray, part: ChunkSet) -> np.ndarray:
    """``qvec`` against the hashed vectors of ``part``, from the postings of the terms whose
    slot the query uses."""
    out = np.zeros(part.n, dtype=np.float64)
    if part.slots.shape[0] == 0:
        return out
    by_slot, ptr = part.slot_terms
    used = np.flatnonzero(qvec)
    terms = np.sort(np.concatenate([by_slot[ptr[s]:ptr[s + 1]] for s in used.tolist()])) \
        if used.shape[0] else used
    if terms.shape[0] == 0:
        return out
    docs, tf, counts = part.content.gather(terms)
    cols = np.abs(part.slots[terms]).astype(np.int64) - 1
    weight = qvec[cols].astype(np.float64) * np.sign(part.slots[terms])
    out += np.bincount(docs, weights=np.repeat(weight, counts) *
                       (1.0 + np.log(tf.astype(np.float64))), minlength=part.n)
    norms = part.norms64
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def cosine_rows(idx: SessionIndex, qvec: np.ndarray) -> np.ndarray:
    """Cosine of every row's chunk with ``qvec`` (float64[R]).

    Stored embeddings are kept one row per dimension, so a sparse query reads
    only the rows of its non-zero dimensions.
    """
    nz = np.flatnonzero(qvec)
    sims = []
    for part in idx.chunk_parts:
        if part.n == 0:
            sims.append(np.zeros(0, dtype=np.float64))
            continue
        dim = part.dim
        if part.hashed and dim == qvec.shape[0]:
            sims.append(_hashed(qvec, part))
            continue
        if dim == 0:
            raise VectorUnavailable("the session's chunks have no embeddings",
                                    hint="run `genesis session refresh`")
        if dim != qvec.shape[0]:
            raise VectorUnavailable(
                f"the session was embedded with {dim} dimensions but the "
                f"embedder gives {qvec.shape[0]}",
                hint="run `genesis session refresh` after changing embed.* settings")
        sims.append(_dot(qvec, part.emb_t, nz if nz.shape[0] * 2 < dim else None))
    per_chunk = np.concatenate(sims) if sims else np.zeros(0)
    return per_chunk[idx.rows_chunk] if idx.n_rows else np.zeros(0)
