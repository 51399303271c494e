"""Data models: tables declared as classes."""
