"""``genesis session note`` and ``genesis session artifacts``: notes bound to a story at commit."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.api import Genesis

JsonOpt = Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")]


def note(
    text: Annotated[str, typer.Argument(help="The note itself.")],
    role: Annotated[str, typer.Option(
        "--role", help="analysis, decision, risk, note, test_model or doc_change.")] = "note",
    path: Annotated[str | None, typer.Option(
        "--path", help="The file the note is about.")] = None,
    section: Annotated[str | None, typer.Option(
        "--section", help="The section of that file (a heading, a symbol).")] = None,
    private: Annotated[bool, typer.Option(
        "--private", help="Keep the note in this clone: never pushed by genesis sync.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Record a note in this worktree's session; the next commit with a story id binds it."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.cli.output import note as say

    with Genesis() as g:
        item = g.note(text, role=role, path=path, section=section, private=private,
                      announce=say)
    if json_out:
        emit_json(item)
        return
    where = f" ({item['path']}" + (f" § {item['section']}" if item["section"] else "") + ")" \
        if item["path"] else ""
    echo(f"noted #{item['id']} [{item['role']}]{' (private)' if private else ''} in "
         f"{item['session']}{where}; a commit with a story id binds it")


def artifacts(
    session: Annotated[str | None, typer.Option(
        "--session", help="A session id (default: this worktree's active session).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List the notes of a session, and which story each one is bound to."""
    from genesis_git.cli.output import echo, emit_json
    with Genesis() as g:
        res = g.artifacts(session)
    if json_out:
        emit_json(res)
        return
    echo(f"session {res['session']}: {len(res['artifacts'])} notes, {res['unbound']} unbound")
    for a in res["artifacts"]:
        how = ("by hand" if a["by_hand"]
               else f"at {a['bound_commit'][:10]}") if a["bound_commit"] else ""
        bound = f"bound to {', '.join(a['stories'])} {how}" if a["bound_commit"] else "unbound"
        where = f" ({a['path']}" + (f" § {a['section']}" if a["section"] else "") + ")" \
            if a["path"] else ""
        echo(f"  #{a['id']} [{a['role']}] {a['summary']}{where} — {bound}")


def register(app: typer.Typer) -> None:
    """Add ``note`` and ``artifacts`` to the ``session`` sub-app."""
    app.command(name="note")(note)
    app.command(name="artifacts")(artifacts)
