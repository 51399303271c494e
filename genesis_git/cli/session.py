"""``genesis session …``: start, refresh, status, list, show, end (notes live in session_notes)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from genesis_git.app.facade import Genesis

app = typer.Typer(help="Index the working tree into a session and manage sessions.",
                  no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")]


def _render_report(report: dict[str, Any], verb: str) -> None:
    from genesis_git.cli.output import echo
    from genesis_git.render.sessions import report_lines

    for line in report_lines(report, verb):
        echo(line)


@app.command()
def start(
    name: Annotated[str | None, typer.Option("--name", help="A name for the session.")] = None,
    doc: Annotated[str | None, typer.Option(
        "--doc", help="The source document of the work; bound to the story at commit time.")] = None,
    new: Annotated[bool, typer.Option(
        "--new", help="End the active session first and start a fresh one.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Index the working tree (tracked, modified and untracked files) into this worktree's session."""
    from genesis_git.cli.output import emit_json

    with Genesis() as g:
        report = g.sessions.start(name=name, doc=doc, new=new).as_dict()
    if json_out:
        emit_json(report)
    else:
        _render_report(report, "started" if report["started"] else "resumed")


@app.command()
def refresh(json_out: JsonOpt = False) -> None:
    """Map only what changed since the last scan into the active session."""
    from genesis_git.cli.output import emit_json

    with Genesis() as g:
        report = g.sessions.refresh().as_dict()
    if json_out:
        emit_json(report)
    else:
        _render_report(report, "refreshed")


def _render_summary(s: dict[str, Any]) -> None:
    from genesis_git.cli.output import echo
    from genesis_git.render.sessions import summary_lines

    for line in summary_lines(s):
        echo(line)


@app.command()
def status(json_out: JsonOpt = False) -> None:
    """Show the active session of this worktree.

    Exit 0 when there is one; 1, with the message on stderr, when there is none.
    """
    from genesis_git.cli.output import emit_json, note
    from genesis_git.kernel.errors import ExitCode

    with Genesis() as g:
        s = g.sessions.active()
    if s is None:
        if json_out:
            emit_json({"active": None})
        else:
            note("no active session (start one with `genesis session start`)")
        raise typer.Exit(int(ExitCode.USER_ERROR))
    if json_out:
        emit_json({"active": s})
    else:
        _render_summary(s)


@app.command("list")
def list_(
    all_worktrees: Annotated[bool, typer.Option("--all", help="Sessions of every worktree.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """List the sessions of this worktree, newest first."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        rows = g.sessions.all(all_worktrees=all_worktrees)
    if json_out:
        emit_json({"sessions": rows})
        return
    from genesis_git.render.sessions import list_lines

    for line in list_lines(rows):
        echo(line)


@app.command()
def show(
    session_id: Annotated[str, typer.Argument(help="The session id (see `genesis session list`).")],
    json_out: JsonOpt = False,
) -> None:
    """Show one session."""
    from genesis_git.cli.output import emit_json

    with Genesis() as g:
        s = g.sessions.summary(session_id)
    if json_out:
        emit_json(s)
    else:
        _render_summary(s)


@app.command()
def end(
    session_id: Annotated[str | None, typer.Argument(
        help="The session to end; default: the active one.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """End a session. Its notes stay in the ledger; its index map is dropped."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        sid = g.sessions.end(session_id)
        pending = g.sessions.pending_notes(sid)
    if json_out:
        emit_json({"ended": sid, "pending_notes": pending})
        return
    from genesis_git.render.sessions import ended_lines

    for line in ended_lines(sid, pending):
        echo(line)


def _register_notes() -> None:
    from genesis_git.cli.session_notes import register

    register(app)


_register_notes()
