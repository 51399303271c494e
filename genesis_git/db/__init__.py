"""The SQLite store: one file per clone, shared by every worktree."""

from genesis_git.db.connect import connect, open_store, store_dir, store_path

__all__ = ["connect", "open_store", "store_dir", "store_path"]
