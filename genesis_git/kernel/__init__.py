"""The kernel: standard library only, importable by the git hooks.

Store paths and the schema version, the git environment policy, spawning, the ``git log``
parser, transactions, locks, errors and health-check findings."""
