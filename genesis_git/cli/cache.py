"""``genesis cache …``: statistics and garbage collection of the shared blob cache."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.app.facade import Genesis

app = typer.Typer(help="Inspect and clean the shared chunk and embedding cache.",
                  no_args_is_help=True)


@app.command()
def stats(json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Blobs, chunks, embeddings, search bases and store size of the shared cache."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        s = g.cache.stats()
    if json_out:
        emit_json(s)
        return
    from genesis_git.render.cache import stats_lines

    for line in stats_lines(s):
        echo(line)


@app.command()
def gc(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only report what would go.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Remove cached blobs that no session maps and HEAD does not hold, and old search bases.

    The store then gives its free space back when that is more than a quarter of the file.
    """
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        r = g.cache.gc(dry_run=dry_run)
    if json_out:
        emit_json(r)
        return
    from genesis_git.render.cache import gc_line

    echo(gc_line(r, dry_run))
