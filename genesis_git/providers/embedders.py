"""Embedders.  The default is offline and deterministic: signed feature hashing.

``HashingEmbedder`` maps each token of :func:`genesis_git.text.tokens.tokenize` to
one of ``dim`` buckets with CRC-32 (stable across runs and platforms), adds
``±(1 + log tf)`` there, and L2-normalises.  Its id, ``hash-<tok>-<dim>``,
is part of the cache key, so changing the dimension or the tokenizer redoes
only what it must.

``OpenAIEmbedder`` calls an OpenAI-compatible ``POST <base_url>/embeddings``
endpoint with the standard library only (``urllib.request``).  It is used
only when ``embed.provider = "openai"`` is configured; its id is
``openai-<model>``.  An endpoint that is down or answers badly raises
:class:`EmbeddingError` with one clear line.

:func:`get_embedder` picks the embedder from a :class:`~genesis_git.config.settings.Config`
(or, as the library API has it, from an engine name: ``"fake"`` or ``None`` give
the :class:`FakeEmbedder`; see docs/explanation/architecture.md, "The library API").
"""

from __future__ import annotations

import math
import os
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from genesis_git.kernel.errors import EnvironmentProblem, GenesisError
from genesis_git.text.tokens import TOKENIZER_VERSION, tokenize

if TYPE_CHECKING:
    from genesis_git.config.settings import Config

PROVIDERS = ("hash", "openai")


class Embedder(Protocol):
    """Anything that turns texts into vectors."""

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class EmbeddingError(EnvironmentProblem):
    """The embedding endpoint is unreachable, refused the request or answered badly."""


class HashingEmbedder:
    """Deterministic, normalised, hashed bag of words (the library API's FakeEmbedder)."""

    def __init__(self, dim: int = 256):
        if dim < 8:
            raise ValueError("dim must be at least 8")
        self.dim = dim
        self._slots: dict[str, tuple[int, float]] = {}

    @property
    def id(self) -> str:
        return f"hash-{TOKENIZER_VERSION}-{self.dim}"

    def _slot(self, tok: str) -> tuple[int, float]:
        slot = self._slots.get(tok)
        if slot is None:
            h = zlib.crc32(tok.encode("utf-8"))
            slot = (h % self.dim, 1.0 if (h >> 31) & 1 == 0 else -1.0)
            if len(self._slots) < 500_000:
                self._slots[tok] = slot
        return slot

    def embed_tokens(self, tokens: Sequence[str]) -> list[float]:
        vec = [0.0] * self.dim
        for tok, tf in Counter(tokens).items():
            idx, sign = self._slot(tok)
            vec[idx] += sign * (1.0 + math.log(tf))
        norm = math.sqrt(sum(x * x for x in vec))
        if norm == 0.0:
            return vec
        return [x / norm for x in vec]

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_tokens(tokenize(t)) for t in texts]

    def embed_weighted(self, terms: Sequence[tuple[str, float]]) -> list[float]:
        """A unit vector of weighted terms (a query whose synonyms count less)."""
        vec = [0.0] * self.dim
        for tok, weight in terms:
            idx, sign = self._slot(tok)
            vec[idx] += sign * weight
        norm = math.sqrt(sum(x * x for x in vec))
        if norm == 0.0:
            return vec
        return [x / norm for x in vec]

    def slots(self, words: Sequence[str]) -> tuple[Any, Any]:
        """The slot (int64) and sign (float64) of each word: :meth:`_slot`'s formula, for
        many words at once."""
        import numpy as np

        hashes = np.fromiter((zlib.crc32(w.encode("utf-8", "surrogatepass")) for w in words),
                             dtype=np.int64, count=len(words))
        return hashes % self.dim, np.where(hashes >> 31 & 1, -1.0, 1.0)

    def embed_postings(self, cols: Any, signs: Any, docs: Any, tf: Any, n_docs: int) -> Any:
        """Unit vectors (float64, one row per document) from postings: the slot and sign of
        each posting's term, its document and its frequency; row ``d`` equals
        :meth:`embed_tokens` of the tokens of document ``d``."""
        import numpy as np

        mat = self._postings_matrix(cols, signs, docs, tf, n_docs)
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return mat / norms

    def postings_norms(self, cols: Any, signs: Any, docs: Any, tf: Any, n_docs: int) -> Any:
        """The length of each document's vector before it is scaled to unit length.

        With it, the search base needs nothing else of a hashed vector: the cosine
        of a query and a document is a sum over the document's postings
        (:func:`genesis_git.search.vectors.cosine_rows`).
        """
        import numpy as np

        return np.linalg.norm(self._postings_matrix(cols, signs, docs, tf, n_docs), axis=1)

    def _postings_matrix(self, cols: Any, signs: Any, docs: Any, tf: Any, n_docs: int) -> Any:
        import numpy as np

        weights = signs * (1.0 + np.log(np.asarray(tf, dtype=np.float64)))
        return np.bincount(np.asarray(docs, dtype=np.int64) * self.dim + cols, weights=weights,
                           minlength=n_docs * self.dim).reshape(n_docs, self.dim)


def hashing_dim(embedder_id: str) -> int | None:
    """The dimension of a hashing embedder's id (``hash-t1-256``: 256), ``None`` for another
    embedder: the vectors of a hashing embedder are derived from the terms, never stored."""
    parts = embedder_id.split("-")
    if len(parts) == 3 and parts[0] == "hash" and parts[2].isdigit():
        return int(parts[2])
    return None


class FakeEmbedder(HashingEmbedder):
    """The name the library API gives the offline embedder; 64 dimensions, as it has them."""

    def __init__(self, dim: int = 64):
        super().__init__(dim)


def _safe_id(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._:-]+", "_", model.strip()) or "default"


class OpenAIEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint, called with ``urllib``.

    ``base_url`` is the API root (``http://127.0.0.1:8080/v1``); a URL that
    already ends in ``/embeddings`` is used as it is.  Texts are sent in
    batches of ``batch_size``; vectors come back L2-normalised and in input
    order (the answer's ``index`` fields are honoured).
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 timeout: float = 30.0, batch_size: int = 64):
        if not base_url.strip():
            raise GenesisError("embed.provider is \"openai\" but embed.base_url is empty",
                               hint="set embed.base_url, e.g. http://127.0.0.1:8080/v1")
        if not model.strip():
            raise GenesisError("embed.provider is \"openai\" but embed.model is empty",
                               hint="set embed.model to the endpoint's embedding model")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        from genesis_git.providers.http import endpoint

        self.url = endpoint(base_url, "/embeddings")
        self.model = model.strip()
        self.api_key = api_key or None
        self.timeout = float(timeout)
        self.batch_size = batch_size
        self.dim: int | None = None

    @property
    def id(self) -> str:
        return f"openai-{_safe_id(self.model)}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._batch(texts[start:start + self.batch_size]))
        return out

    # -- one request --------------------------------------------------------
    def _request(self, batch: list[str]) -> Any:
        from genesis_git.providers.http import HttpFailure, post_json

        where = f"embedding endpoint {self.url}"
        # an empty string is refused by some servers; a space embeds the same "nothing"
        payload = {"model": self.model, "input": [t if t.strip() else " " for t in batch]}
        try:
            return post_json(self.url, payload, api_key=self.api_key, timeout=self.timeout,
                             what=where)
        except HttpFailure as exc:
            hint = {
                "timeout": "raise embed.timeout or check the server",
                "unreachable": "start the server or fix embed.base_url",
                "not-json": "is embed.base_url an OpenAI-compatible /v1 root?",
            }.get(exc.kind, "check the API key in the variable named by embed.api_key_env"
                  if exc.status in (401, 403) else "check embed.base_url and embed.model")
            raise EmbeddingError(str(exc), hint=hint) from None

    def _batch(self, batch: list[str]) -> list[list[float]]:
        if not batch:
            return []
        payload = self._request(batch)
        where = f"embedding endpoint {self.url}"

        def bad(why: str) -> EmbeddingError:
            return EmbeddingError(f"{where} gave a bad answer: {why}",
                                  hint="is embed.base_url an OpenAI-compatible /v1 root?")

        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise bad("no \"data\" list")
        if len(data) != len(batch):
            raise bad(f"{len(data)} embeddings for {len(batch)} texts")
        vectors: list[list[float] | None] = [None] * len(batch)
        for pos, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise bad(f"item {pos} has no \"embedding\" list")
            index = item.get("index", pos)
            if not isinstance(index, int) or not 0 <= index < len(batch) or vectors[index]:
                raise bad(f"item {pos} has a wrong index {index!r}")
            vec = item["embedding"]
            if not vec or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                  for x in vec):
                raise bad(f"item {pos} is not a list of numbers")
            if self.dim is None:
                self.dim = len(vec)
            elif len(vec) != self.dim:
                raise bad(f"item {pos} has {len(vec)} dimensions, expected {self.dim}")
            vectors[index] = _normalise([float(x) for x in vec])
        return [v for v in vectors if v is not None]


def _normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0 or not math.isfinite(norm):
        return [0.0] * len(vec)
    return [x / norm for x in vec]




def embedder_from_config(config: Config) -> Embedder:
    embed = config.settings.embed
    provider = embed.provider.strip().lower()
    if provider == "hash":
        dim = embed.dim
        if dim < 8:
            raise GenesisError(f"embed.dim = {dim} is too small", hint="use 8 or more (256 is the default)")
        return HashingEmbedder(dim)
    if provider == "openai":
        key_env = embed.api_key_env.strip()
        return OpenAIEmbedder(embed.base_url, embed.model,
                              os.environ.get(key_env) if key_env else None,
                              timeout=embed.timeout)
    raise GenesisError(f"unknown embed.provider {provider!r}",
                       hint="valid providers: " + ", ".join(PROVIDERS))


def get_embedder(config_or_engine: Any = None) -> Embedder:
    """The configured embedder.

    * a :class:`~genesis_git.config.settings.Config`: ``embed.provider`` decides (``hash`` or ``openai``);
    * ``None`` or ``"fake"``: the :class:`FakeEmbedder` (the library API);
    * ``"hash"``: a 256-dimension :class:`HashingEmbedder`;
    * an object that already has an ``embed`` method is returned as it is.
    """
    from genesis_git.config.settings import Config

    if isinstance(config_or_engine, Config):
        return embedder_from_config(config_or_engine)
    if config_or_engine is None:
        return FakeEmbedder()
    if isinstance(config_or_engine, str):
        name = config_or_engine.strip().lower()
        if name in ("", "fake", "none"):
            return FakeEmbedder()
        if name == "hash":
            return HashingEmbedder()
        raise GenesisError(f"unknown embedder {config_or_engine!r}",
                           hint="use \"fake\", \"hash\" or a Config with embed.provider")
    if callable(getattr(config_or_engine, "embed", None)):
        return config_or_engine
    return FakeEmbedder()


def embedder_id(embedder: Embedder) -> str:
    """The cache-key id of an embedder (``hash-t1-256``, ``openai-<model>``)."""
    ident = getattr(embedder, "id", None)
    return str(ident) if ident else type(embedder).__name__.lower()
