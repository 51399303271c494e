"""``genesis session …``: start, refresh, status, list, show, end, note, artifacts."""

from __future__ import annotations

import typer

app = typer.Typer(help="Index the working tree into a session and manage sessions.",
                  no_args_is_help=True)
