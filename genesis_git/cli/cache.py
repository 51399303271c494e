"""``genesis cache …``: statistics and garbage collection of the shared blob cache."""

from __future__ import annotations

import typer

app = typer.Typer(help="Inspect and clean the shared chunk and embedding cache.",
                  no_args_is_help=True)
