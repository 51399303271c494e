"""The SQLite store: one file per clone, shared by every worktree.

``genesis_git.store.connect`` opens it; ``genesis_git.store.migrations`` holds the
schema.  Every statement on the store lives in this folder, in a module named
for the tables it serves (``sessions``, ``stories``, ``ledger``, ``blobs``,
``sessionmap``, ``kv``); the other layers call its small functions, each taking
a connection, and open the transactions themselves.  Nothing is imported here,
so that the git hooks can load the migrations without the rest of genesis.
"""
