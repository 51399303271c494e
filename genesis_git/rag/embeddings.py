"""``genesis_git.rag.embeddings``: seed 000's embedder API at the path seed 000 imports.

The embedders live in :mod:`genesis_git.providers.embedders`; this module only names them
again, so that ``from genesis_git.rag.embeddings import FakeEmbedder, get_embedder`` works.
"""

from __future__ import annotations

from genesis_git.providers.embedders import Embedder, FakeEmbedder, HashingEmbedder, get_embedder

__all__ = ["Embedder", "FakeEmbedder", "HashingEmbedder", "get_embedder"]
