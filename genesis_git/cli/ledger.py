"""``genesis ledger …``: the ledger's records, and their mirror in PostgreSQL."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(help="The ledger's records: mirror them into the organisation's PostgreSQL; "
                       "repair a broken ledger ref.", no_args_is_help=True)


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


@app.command()
def repair(
    remote: Annotated[str | None, typer.Argument(
        help="A remote name (default: the current branch's upstream remote, else origin).")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Rebuild a broken ledger ref from the records this clone holds, losing nothing.

    A ledger ref is broken when it points at a blob, or at a commit that is not a
    genesis ledger (`genesis doctor` names it).  The local ref is written anew: the
    remote's good ledger plus every shared record of the store.  When the team shares
    the ledger, the remote gets it too; a broken remote ref is replaced only if it
    still holds what was fetched (--force-with-lease).  A remote that cannot be read
    or refuses: one line and exit 5, the local ledger is repaired all the same.
    """
    import sys

    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note
    from genesis_git.kernel.errors import ExitCode
    from genesis_git.render.ledger import error_line, repair_lines

    warnings: list[str] = []
    with Genesis() as g:
        res = g.stories.repair_ledger(remote, warn=warnings.append)
    res["warnings"] = warnings
    if json_out:
        emit_json(res)
    else:
        for line in res["notes"]:
            note(line)
        for line in repair_lines(res):
            echo(line)
    if res["error"] is not None:
        sys.stderr.write(error_line(res["error"]))
        raise typer.Exit(int(ExitCode.REMOTE))
