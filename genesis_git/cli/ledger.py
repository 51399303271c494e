"""``genesis ledger …``: the ledger's records, and their mirror in PostgreSQL."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(help="The ledger's records: mirror them into the organisation's PostgreSQL.",
                  no_args_is_help=True)


@app.command()
def mirror(
    url: Annotated[str | None, typer.Option(
        "--url", metavar="URL",
        help="postgresql://USER@HOST:PORT/DB (default: [ledger] mirror in the config, or "
             "GENESIS_LEDGER_MIRROR). No password here: PGPASSWORD or ~/.pgpass hold it.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Write this repository's ledger records into the PostgreSQL mirror (idempotent).

    Creates or upgrades the mirror's tables first (docs/reference/mirror-schema.md). Fails with
    one line and exit 4 when the server is down, refuses the login or lacks a
    permission; nothing local changes, and a partial batch is rolled back.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, warn
    from genesis_git.render.ledger import mirror_line, mirror_warnings

    res = Genesis().mirror.push(url)
    for line in mirror_warnings(res):
        warn(line)
    if json_out:
        emit_json(res)
        return
    echo(mirror_line(res))
