"""``genesis sync [REMOTE]``: share the story ledger through a git remote."""

from __future__ import annotations

from typing import Annotated

import typer


def sync(
    remote: Annotated[str | None, typer.Argument(
        help="A remote name (default: the current branch's upstream remote, else origin).")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")] = False,
) -> None:
    """Fetch the remote's story ledger, merge it with this clone's, push the result.

    When a PostgreSQL mirror is configured ([ledger] mirror), the ledger is then
    mirrored too (as `genesis ledger mirror`); a mirror that fails gives one line
    and exit 4 after the sync's own report.

    Records are merged by union, so nothing written in two clones at once is lost.
    Nothing is pushed unless the team shares the ledger ([ledger] share = true in
    .genesis.toml, written by `genesis init --share`).  A remote without a ledger yet
    (a new host, a deleted ledger) gets it pushed.  A remote that cannot be read,
    refuses the ledger or holds a broken one: one line with its reason and exit 5
    (the JSON's `error`); nothing is lost, the records wait for the next sync.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note

    warnings: list[str] = []
    with Genesis() as g:
        result = g.stories.sync(remote, warn=warnings.append)
        result["mirror"], mirror_failed = g.mirror.after_sync()
    result["warnings"] = warnings
    if json_out:
        emit_json(result)
    else:
        for line in warnings:
            note(f"warning: {line}")
        for line in result["notes"]:
            note(line)
        from genesis_git.render.ledger import sync_lines

        for line in sync_lines(result, mirror_failed is not None):
            echo(line)
    if result["error"] is not None:
        import sys

        from genesis_git.render.ledger import error_line

        sys.stderr.write(error_line(result["error"]))
    _mirror_failed(mirror_failed)
    if result["error"] is not None:  # the remote did not get the ledger
        from genesis_git.kernel.errors import ExitCode

        raise typer.Exit(int(ExitCode.REMOTE))


def _mirror_failed(error: Exception | None) -> None:
    """The sync is done and reported; a mirror that failed still fails the command."""
    if error is None:
        return
    import sys

    from genesis_git.kernel.errors import ExitCode, GenesisError

    sys.stderr.write(f"genesis: error: {error}\n")
    code = error.exit_code if isinstance(error, GenesisError) else ExitCode.USER_ERROR
    raise typer.Exit(int(code))
