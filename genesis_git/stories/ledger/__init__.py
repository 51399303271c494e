"""The shared story ledger: immutable records kept in git under ``refs/genesis/``.

Modules: ``records`` (the record type, reading and writing the ledger ref, the
fold of records into story state; standard library only), ``outbox`` (the one
place where a change of the local store also produces its record; light enough
for the git hooks), ``view`` (the local SQLite view, brought up to date when a
ledger ref moves) and ``sync`` (``genesis sync``: fetch, merge, push).
"""
