"""The story ledger: story records, their artifacts and links, bound late from commits.

Modules: ``commits`` (reading commits and story ids from git), ``ledger`` (the
tables), ``binding`` (post-commit and post-rewrite), ``rebuild`` (from
``git log``), ``context`` (``genesis story context``), ``artifacts`` (session
notes), ``hooklog`` (the log of hook failures).

Everything the git hooks import from here stays light: the standard library and
``genesis_git.git.repo``/``db``/``config`` only.
"""
