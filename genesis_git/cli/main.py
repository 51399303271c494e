"""The ``genesis`` command: the app, ``init``, ``doctor``, and the error boundary."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from genesis_git import __version__
from genesis_git.errors import ExitCode, GenesisError

HELP = """genesis: story-aware retrieval, impact investigation and a design library
inside your git repository. Local, offline, no server.

Daily flow: `genesis session start --doc docs/req/x.md`, `genesis search "..."`,
`genesis impact "..."`, `genesis session note "..." --role decision`, then
`git commit -m "STORY-12: ..."` and `genesis story context STORY-12`.
"""

_STATE: dict[str, Any] = {"debug": False}


def debug_enabled() -> bool:
    return bool(_STATE["debug"]) or os.environ.get("GENESIS_DEBUG", "") not in ("", "0")


def _log_traceback() -> None:
    """Write the current traceback to the store's log file when a store is reachable."""
    try:
        from genesis_git.db.connect import LOG_NAME, store_dir
        from genesis_git.repo import find_repo

        target = store_dir(find_repo())
        target.mkdir(parents=True, exist_ok=True)
        with (target / LOG_NAME).open("a", encoding="utf-8") as fh:
            fh.write(traceback.format_exc())
    except Exception:  # pragma: no cover - logging must never fail the command
        pass


class GenesisGroup(TyperGroup):
    """Turns a :class:`GenesisError` into one line on stderr and its exit code."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except GenesisError as exc:
            if debug_enabled():
                traceback.print_exc()
            sys.stderr.write(f"genesis: error: {exc}\n")
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            sys.stderr.write("genesis: interrupted\n")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except (typer.Exit, typer.Abort):
            raise
        except Exception as exc:
            if debug_enabled():
                raise
            _log_traceback()
            sys.stderr.write(f"genesis: internal error: {type(exc).__name__}: {exc} "
                             "(run with --debug for the traceback)\n")
            raise typer.Exit(int(ExitCode.USER_ERROR)) from None


app = typer.Typer(
    cls=GenesisGroup,
    help=HELP,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"genesis {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
    directory: Annotated[Path | None, typer.Option(
        "-C", "--directory", help="Run as if genesis was started in this directory.")] = None,
) -> None:
    """genesis: story-aware retrieval inside your git repository."""
    _STATE["debug"] = debug
    if directory is not None:
        try:
            os.chdir(directory)
        except OSError as exc:
            raise GenesisError(f"cannot change to {directory}: {exc.strerror}") from None


@app.command()
def init(
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Create the store and a commented default .genesis.toml (idempotent)."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.setup import init_repo

    result = init_repo()
    if json_out:
        emit_json(result)
        return
    echo(f"store:  {result['store']} ({'created' if result['store_created'] else 'exists'})")
    echo(f"config: {result['config']} ({'created' if result['config_created'] else 'exists'})")


@app.command()
def doctor(
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check git, the store's integrity and migrations, the config, hooks and the design library."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.doctor import run_checks

    findings = run_checks()
    broken = [f for f in findings if f.status == "error"]
    if json_out:
        emit_json({"ok": not broken, "checks": [f.as_dict() for f in findings]})
    else:
        for f in findings:
            mark = {"ok": "ok  ", "warn": "warn", "error": "FAIL"}[f.status]
            echo(f"[{mark}] {f.name}: {f.message}")
            if f.fix and f.status != "ok":
                echo(f"       fix: {f.fix}")
        echo("")
        echo("all checks passed" if not broken else f"{len(broken)} check(s) failed")
    if broken:
        raise typer.Exit(int(ExitCode.USER_ERROR))


def _register() -> None:
    from genesis_git.cli import cache, design, hooks, impact, search, session, story

    app.add_typer(session.app, name="session")
    search.register(app)
    impact.register(app)
    app.add_typer(story.app, name="story")
    app.add_typer(hooks.app, name="hooks")
    app.add_typer(design.app, name="design")
    app.add_typer(cache.app, name="cache")


_register()


def run() -> None:
    """Console-script entry point."""
    app(prog_name="genesis")


if __name__ == "__main__":  # pragma: no cover
    run()
