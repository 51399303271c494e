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

    res = Genesis().mirror.push(url)
    if res["project_source"].startswith("folder"):
        warn(f"no origin remote: this repository is project {res['project']!r} in the mirror "
             "(set ledger.project_id to name it)")
    if json_out:
        emit_json(res)
        return
    if res["records"] == 0:
        echo(f"nothing to mirror: the ledger of {res['project']} has no records yet "
             f"(the mirror at {res['mirror']} is ready)")
        return
    if res["sent"] == 0:
        echo(f"the mirror is up to date: {res['records']} records of {res['project']} "
             f"already in {res['mirror']}")
        return
    echo(f"mirrored {res['added']} new records of {res['project']} to {res['mirror']} "
         f"({res['records']} in the ledger, {res['stories']} stories updated, "
         f"{res['batches']} batches)")
