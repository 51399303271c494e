"""The SQLite store: one file per clone, shared by every worktree.

``genesis_git.db.connect`` opens it; ``genesis_git.db.migrations`` holds the
schema.  Nothing is imported here, so that the git hooks can load the
migrations without the rest of genesis.
"""
