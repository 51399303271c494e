"""``genesis symbols``: where a name is defined, who refers to it, what a file contains."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.kernel.errors import ExitCode

HELP = """Where a name is defined (classes, functions, methods, tables, module-level
variables), with --refs the lines that refer to it, or with --outline what one
file defines: path:line, read from the index (no language server). Exit 0 when
something is found, 1 when nothing is."""


def symbols_cmd(
    name: Annotated[str | None, typer.Argument(
        metavar="NAME", help="A class, function, method (Class.method, found in the class that "
                             "defines it when Class inherits it) or table name; written as "
                             "code too (Class.method(), `name`, def name).")] = None,
    refs: Annotated[bool, typer.Option(
        "--refs", help="Also list every line that refers to NAME as a whole word.")] = False,
    outline: Annotated[str | None, typer.Option(
        "--outline", metavar="PATH", help="List what this file defines, in line order "
                                          "(instead of NAME).")] = None,
    paths: Annotated[list[str] | None, typer.Option(
        "--path", metavar="GLOB", help="Only references in paths matching this glob "
                                       "(repeatable).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the stable JSON schema.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="Use the session as last indexed; skip the refresh.")] = False,
) -> None:
    """Find definitions, references and file outlines: path:line, from the index.

    Exit 0 when something is found, 1 when nothing is, 2 for a bad argument.
    """
    from genesis_git.kernel.errors import UsageError

    if (name is None) == (outline is None):
        raise UsageError("give NAME or --outline PATH (one of them)",
                         hint="e.g. genesis symbols OrderController --refs")
    if outline is not None and (refs or paths):
        raise UsageError("--refs and --path go with NAME, not with --outline")
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, paint
    from genesis_git.render.symbols import symbol_lines

    with Genesis() as g:
        if outline is not None:
            # a path is taken from the current directory, as git takes it
            rel = g.workspace.repo.worktree_path(outline, name="--outline:")
            data = g.symbols.outline(rel, refresh=not no_refresh)
        else:
            assert name is not None
            data = g.symbols.lookup(name, refs=refs, paths=tuple(paths or ()),
                                    refresh=not no_refresh)
    if json_out:
        emit_json(data)
    else:
        for line in symbol_lines(data, paint()):
            echo(line)
    if not data["definitions"] and not data.get("references"):
        raise typer.Exit(int(ExitCode.USER_ERROR))


def register(app: typer.Typer) -> None:
    """Add the top-level ``symbols`` command to the main app."""
    app.command("symbols", help=HELP)(symbols_cmd)
