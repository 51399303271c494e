"""Embeddings and the seed API for retrieval-augmented impact investigation."""
