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
    echo(f"store:    {s['store']} ({s['store_bytes'] / 1e6:.1f} MB)")
    echo(f"blobs:    {s['blobs']} ({s['blobs_skipped']} skipped, {s['mapped_blobs']} mapped)")
    echo(f"chunks:   {s['chunks']} ({s['content_bytes'] / 1e6:.1f} MB of packed text and terms, "
         f"{s['embedding_bytes'] / 1e6:.1f} MB of stored vectors)")
    echo(f"sessions: {s['sessions']} ({s['active_sessions']} active)")
    echo(f"search:   {s['search_bases']} saved search bases ({s['search_bytes'] / 1e6:.1f} MB)")
    for v in s["versions"]:
        echo(f"  chunker {v['chunker']}, embedder {v['embedder']}: {v['blobs']} blobs")


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
    verb = "would remove" if dry_run else "removed"
    echo(f"{verb} {r['blobs_removed']} blobs ({r['chunks_removed']} chunks) and "
         f"{r['search_bases_removed']} search bases; {r['blobs_kept']} blobs kept"
         + (f"; the store gave back {r['bytes_reclaimed'] / 1e6:.1f} MB"
            if r["bytes_reclaimed"] else ""))
