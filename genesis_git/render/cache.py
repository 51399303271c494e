"""The shared blob cache: its statistics and what a garbage collection removed."""

from __future__ import annotations

from typing import Any


def stats_lines(s: dict[str, Any]) -> list[str]:
    """The store, blobs, chunks, sessions, search bases, index copies, and blobs per chunker
    and embedder."""
    return [
        f"store:    {s['store']} ({s['store_bytes'] / 1e6:.1f} MB)",
        f"blobs:    {s['blobs']} ({s['blobs_skipped']} skipped, {s['mapped_blobs']} mapped)",
        f"chunks:   {s['chunks']} ({s['content_bytes'] / 1e6:.1f} MB of packed text and terms, "
        f"{s['embedding_bytes'] / 1e6:.1f} MB of stored vectors)",
        f"sessions: {s['sessions']} ({s['active_sessions']} active)",
        f"search:   {s['search_bases']} saved search bases ({s['search_bytes'] / 1e6:.1f} MB)",
        f"status:   {s['status_copies']} copies of the index for git status "
        f"({s['status_bytes'] / 1e6:.1f} MB)",
        *(f"  chunker {v['chunker']}, embedder {v['embedder']}: {v['blobs']} blobs"
          for v in s["versions"])]


def gc_line(r: dict[str, Any], dry_run: bool) -> str:
    verb = "would remove" if dry_run else "removed"
    return (f"{verb} {r['blobs_removed']} blobs ({r['chunks_removed']} chunks) and "
            f"{r['search_bases_removed']} search bases"
            + (f" and {r['status_copies_removed']} index copies of removed worktrees"
               if r.get("status_copies_removed") else "")
            + f"; {r['blobs_kept']} blobs kept"
            + (f"; the store gave back {r['bytes_reclaimed'] / 1e6:.1f} MB"
               if r["bytes_reclaimed"] else ""))
