"""``genesis session note``, ``artifacts`` and ``retract``: notes bound to a story at commit."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.app.facade import Genesis

JsonOpt = Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")]


def note(
    text: Annotated[str | None, typer.Argument(
        help="The note itself (or give it with --file).")] = None,
    role: Annotated[str, typer.Option(
        "--role", help="analysis, decision, risk, note, test_model or doc_change.")] = "note",
    path: Annotated[str | None, typer.Option(
        "--path", help="The file the note is about.")] = None,
    section: Annotated[str | None, typer.Option(
        "--section", help="The section of that file (a heading, a symbol).")] = None,
    file: Annotated[str | None, typer.Option(
        "--file", "-F", metavar="FILE",
        help="Read the note from FILE (UTF-8); - reads standard input.")] = None,
    private: Annotated[bool, typer.Option(
        "--private", help="Keep the note in this clone: never pushed by genesis sync.")] = False,
    allow_secret: Annotated[bool, typer.Option(
        "--allow-secret", help="Share the note even if it looks like it holds a secret "
                               "(a token, a key, a password).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Record a note in this worktree's session; the next commit with a story id binds it.

    A note that looks like it holds a secret (a GitHub, GitLab, AWS, Slack, Stripe or
    Google token, a private key, a password in a URL, a random value assigned to a name
    such as api_key) is kept private, in this clone only, with one warning; --allow-secret
    shares it anyway. Exit 2 for a note that is empty or not valid UTF-8.
    """
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.cli.output import note as say

    body = _note_text(text, file)
    with Genesis() as g:
        item = g.sessions.note(body, role=role, path=path, section=section, private=private,
                               allow_secret=allow_secret, announce=say)
    from genesis_git.render.sessions import noted, secret_kept

    kept = secret_kept(item)
    if kept:
        say(f"warning: {kept}")
    if json_out:
        emit_json(item)
        return
    echo(noted(item, item["private"]))


def _note_text(text: str | None, file: str | None) -> str:
    """The note from the argument, or from ``--file`` (``-``: standard input), as UTF-8."""
    from genesis_git.kernel.errors import UsageError

    if file is None:
        if text is None:
            raise UsageError("no note given",
                             hint='genesis session note "TEXT", or --file FILE (- for stdin)')
        return text
    if text is not None:
        raise UsageError("give the note as an argument or with --file, not both")
    import sys
    from pathlib import Path

    try:
        raw = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
    source = "standard input" if file == "-" else file
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{source} is not valid UTF-8 (byte {exc.start + 1})",
                         hint="give the note as UTF-8 text") from None


def artifacts(
    session: Annotated[str | None, typer.Option(
        "--session", help="A session id (default: this worktree's active session).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List the notes of a session, and which story each one is bound to.

    A retracted note (genesis session retract) is gone from the list.
    """
    from genesis_git.cli.output import echo, emit_json
    with Genesis() as g:
        res = g.sessions.notes(session)
    if json_out:
        emit_json(res)
        return
    from genesis_git.render.sessions import artifacts_lines

    for line in artifacts_lines(res):
        echo(line)


def retract(
    note_id: Annotated[str, typer.Argument(
        help="The note: its #id from `genesis session artifacts` (12 or #12), or "
             "note:<record id> from a story's context.", metavar="NOTE")],
    json_out: JsonOpt = False,
) -> None:
    """Take a note back: it leaves its session and every story; genesis sync shares that.

    Any note written in this clone can be retracted, from any worktree's session, pending or
    bound. A private note's retraction stays in this clone. Exit 1 for an unknown note or a
    note written in another clone, 2 for something that is not a note id.
    """
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        item = g.sessions.retract(note_id)
    if json_out:
        emit_json(item)
        return
    from genesis_git.render.sessions import retracted

    echo(retracted(item))


def register(app: typer.Typer) -> None:
    """Add ``note``, ``artifacts`` and ``retract`` to the ``session`` sub-app."""
    app.command(name="note")(note)
    app.command(name="artifacts")(artifacts)
    app.command(name="retract")(retract)
