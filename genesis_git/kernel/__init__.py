"""The kernel: standard library only, importable by the git hooks.

``storepath`` (the store's layout and schema version), ``gitrun`` (the one door to git:
its environment policy, runners and ``GitError``), ``gitlog`` (the ``git log`` walker),
``spawn`` (detached children), ``transaction``, ``locks``, ``logfile``, ``storyid``,
``errors`` and ``findings`` (what a health check reports)."""
