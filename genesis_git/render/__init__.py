"""Rendering: text, Markdown and JSON per result type, shared by every door.

The command line and the MCP server print a result the same way because they call the
same function here: ``render/search.py`` for search results, ``render/impact.py`` for
impact reports, ``render/sessions.py``, ``render/stories.py`` and ``render/org.py`` (the
mirror's stories), ``render/design.py``, ``render/ledger.py`` (sync and the mirror),
``render/hooks.py``, ``render/cache.py`` and ``render/setup.py`` (init and doctor).  A
renderer takes a result (or its JSON) and returns text; writing it out (stdout, stderr, a
terminal's table) is the door's business.
"""
