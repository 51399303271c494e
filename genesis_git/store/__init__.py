"""The SQLite store: one file per clone, shared by every worktree.

``genesis_git.store.connect`` opens it; ``genesis_git.store.migrations`` holds the
schema.  Nothing is imported here, so that the git hooks can load the
migrations without the rest of genesis.
"""
