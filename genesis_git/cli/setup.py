"""``genesis init`` and ``genesis doctor``: the store, the settings and a health report."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.kernel.errors import ExitCode


def init(
    share: Annotated[bool, typer.Option(
        "--share", help="Share the story ledger through the git remote: writes "
                        "[ledger] share = true into the config (commit it).")] = False,
    remote: Annotated[list[str] | None, typer.Option(
        "--remote", metavar="NAME",
        help="With --share: a remote that gets the ledger, written to [ledger] remotes "
             "(repeat for several; default: the remote init sees, usually origin).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Create the store and a commented default config (idempotent).

    The config is the [tool.genesis] table of an existing pyproject.toml, else
    .genesis.toml (a .genesis.toml that exists is the one used). When the ledger is
    shared, the remote's ledger is pulled into the store. The ledger is
    pushed only to the remotes in [ledger] remotes, never to another remote you push to.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note

    result = Genesis().init(share=share, share_with=remote or None)
    if json_out:
        emit_json(result)
        return
    from genesis_git.render.setup import init_lines

    for line in result.get("warnings", []):
        note(f"warning: {line}")
    for line in init_lines(result):
        echo(line)


def doctor(
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check git, the store's integrity and migrations, the config, hooks and the design library."""
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.render.setup import doctor_json, doctor_lines

    findings = Genesis().doctor()
    if json_out:
        emit_json(doctor_json(findings))
    else:
        for line in doctor_lines(findings):
            echo(line)
    if any(f.status == "error" for f in findings):
        raise typer.Exit(int(ExitCode.USER_ERROR))
