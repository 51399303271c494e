"""The PostgreSQL mirror of the story ledger: one database of stories across repositories.

The git ledger stays the source of truth; the mirror is a copy that
``genesis ledger mirror`` (and ``genesis sync`` when a mirror is configured)
brings up to date, and that ``genesis story list --org`` and
``genesis story context --org`` read.  Hooks never talk to PostgreSQL.

* :mod:`~genesis_git.mirror.conninfo` — the URL and masking its password;
* :mod:`~genesis_git.mirror.project` — the repository's ``project_id``;
* :mod:`~genesis_git.mirror.schema` — the story tables and their additions, migrated
  (docs/reference/mirror-schema.md);
* :mod:`~genesis_git.mirror.connect` — psycopg, and failures as one line;
* :mod:`~genesis_git.mirror.push` — records in, idempotently, one transaction per batch;
* :mod:`~genesis_git.mirror.org` — the stories of every repository, read back.
"""
