"""The library API for retrieval-augmented impact investigation: a façade.

``from genesis_git.rag import RagStore, ImpactRAG, get_embedder`` works as
docs/explanation/architecture.md ("The library API") writes it, and so do its modules
``genesis_git.rag.embeddings``, ``.store`` and ``.impact_rag``; the names are loaded on
first use.  The embedders themselves live in :mod:`genesis_git.providers.embedders`,
below the indexer that uses them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Embedder", "FakeEmbedder", "HashingEmbedder", "ImpactRAG", "RagStore", "get_embedder"]

_HOMES = {
    "Embedder": "genesis_git.providers.embedders",
    "FakeEmbedder": "genesis_git.providers.embedders",
    "HashingEmbedder": "genesis_git.providers.embedders",
    "get_embedder": "genesis_git.providers.embedders",
    "RagStore": "genesis_git.rag.store",
    "ImpactRAG": "genesis_git.rag.impact_rag",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'genesis_git.rag' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_HOMES[name]), name)
