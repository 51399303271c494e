"""genesis: story-aware retrieval that lives inside a git repository."""

__version__ = "0.1.0"

__all__ = ["__version__"]
