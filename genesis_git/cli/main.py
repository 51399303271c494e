"""The ``genesis`` command: the app, ``init``, ``doctor``, and the error boundary."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from genesis_git import __version__
from genesis_git.kernel.errors import ExitCode, GenesisError

HELP = """genesis: story-aware retrieval, impact investigation and a design library
inside your git repository. Local, offline, no server.

Daily flow: `genesis session start --doc docs/req/x.md`, `genesis search "..."`,
`genesis impact "..."`, `genesis session note "..." --role decision`, then
`git commit -m "STORY-12: ..."` and `genesis story context STORY-12`.
"""

_STATE: dict[str, Any] = {"debug": False}


def debug_enabled() -> bool:
    from genesis_git.kernel.environment import ENV_DEBUG

    return bool(_STATE["debug"]) or ENV_DEBUG.on()


def _store_files() -> tuple[Path, Path] | None:
    """The store and the log file of the repository genesis runs in, if there is one."""
    try:
        from genesis_git.app.facade import Genesis

        g = Genesis()
        return g.workspace.store_path, g.workspace.log_path
    except Exception:
        return None


def _log_files() -> list[Path]:
    """Where an internal error's traceback goes: the store's folder, else the user cache."""
    from genesis_git.kernel.log import user_cache_log

    files = _store_files()
    return [*([files[1]] if files is not None else []), Path(user_cache_log())]


def _store() -> Path | None:
    files = _store_files()
    return files[0] if files is not None else None


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout is not a real file
        pass


def _is_click_error(exc: BaseException) -> bool:
    """A usage error or another error that click itself reports (and exits 2 for usage)."""
    return any(cls.__name__ == "ClickException" for cls in type(exc).__mro__)


def _dash_hint(exc: Any, args: list[str]) -> None:
    """Say how to pass text that starts with ``-`` when it was taken for an option."""
    ctx = getattr(exc, "ctx", None)
    name = getattr(exc, "option_name", "") or ""
    if ctx is None or not name or type(exc).__name__ != "NoSuchOption":
        return
    if not any(type(p).__name__ in ("Argument", "TyperArgument") for p in ctx.command.params):
        return
    import re
    import shlex

    token = next((a for a in args if a == name or (a.startswith(name) and
                                                    not a.startswith("--"))), name)
    shown = token if re.fullmatch(r"[-\w.,:/@+=%]+", token) else shlex.quote(token)
    exc.message = (f"{exc.message} (if {token} is text, not an option, put it after '--': "
                   f"{ctx.command_path} -- {shown})")


def _record(line: str, detail: str) -> object:
    """Append a bug's traceback, with the versions and the command, to ``genesis.log``."""
    from genesis_git.cli.output import printable
    from genesis_git.kernel.log import record_bug

    return record_bug(_log_files(), [printable(a) for a in sys.argv], printable(detail),
                      __version__)


def _fail(exc: BaseException) -> typer.Exit:
    """The one error gate (:func:`genesis_git.kernel.errors.handle`): one line, the exit
    code."""
    from genesis_git.cli.output import end_pager
    from genesis_git.kernel.errors import handle
    from genesis_git.render.terminal import clean

    if isinstance(exc, UnicodeEncodeError) and "surrogates not allowed" in str(exc):
        from genesis_git.kernel.errors import UsageError  # bytes that are no UTF-8

        exc = UsageError("an argument is not valid UTF-8", hint="give it as UTF-8 text")
    failure = handle(exc, record=_record, store=_store, debug=debug_enabled())
    end_pager()
    kind = "internal error" if failure.internal else "error"
    sys.stderr.write(f"genesis: {kind}: {clean(failure.message)}\n")
    return typer.Exit(failure.code)


class GenesisGroup(TyperGroup):
    """The error boundary of the command line: every failure becomes one line on stderr and
    an :class:`ExitCode`, through the gate that the hooks and the MCP server share
    (:func:`genesis_git.kernel.errors.handle`).

    * usage errors (an unknown option, a missing argument, a bad value) are click's
      to report: usage, the error, exit 2;
    * a :class:`GenesisError`, and a store that is locked, corrupt or read-only:
      ``genesis: error: …``, exit 1 (3 for the environment);
    * anything else is a bug: ``genesis: internal error: …`` naming the log file
      that holds the traceback, exit 70.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from genesis_git.cli.conventions import apply

        apply(self)  # one metavariable convention and an example in every command's help

    def invoke(self, ctx: Any) -> Any:
        args = [*getattr(ctx, "_protected_args", getattr(ctx, "protected_args", [])), *ctx.args]
        from genesis_git.cli.output import detail, end_pager, paging
        from genesis_git.cli.progress import shown

        started = time.monotonic()
        try:
            with shown():  # long work shows a bar on a terminal's stderr
                return super().invoke(ctx)
        except GenesisError as exc:
            raise _fail(exc) from None
        except KeyboardInterrupt:
            end_pager()
            sys.stderr.write("genesis: interrupted\n")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except BrokenPipeError:
            # the rest of the output has nowhere to go; say nothing, like git (the user who
            # leaves the pager early has seen what they wanted: that is no failure)
            paged = paging()
            _silence_stdout()
            end_pager()
            raise typer.Exit(int(ExitCode.OK if paged else ExitCode.BROKEN_PIPE)) from None
        except (typer.Exit, typer.Abort):
            raise
        except Exception as exc:
            if _is_click_error(exc):
                _dash_hint(exc, args)
                raise
            raise _fail(exc) from None
        finally:
            end_pager()
            detail(f"{ctx.invoked_subcommand or 'genesis'} took {time.monotonic() - started:.2f} s")


def _new_app() -> typer.Typer:
    return typer.Typer(
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


# The commands whose output goes through a pager on a terminal (as git pages log and show).
PAGED = frozenset({"search", "symbols", "impact", "story", "session", "design", "doctor", "cache"})


def main(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
    directory: Annotated[Path | None, typer.Option(
        "-C", "--directory", help="Run as if genesis was started in this directory.")] = None,
    color: Annotated[str, typer.Option(
        "--color", metavar="WHEN",
        help="Colour the output: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR "
             "forces it), always or never.")] = "auto",
    quiet: Annotated[bool, typer.Option(
        "-q", "--quiet", help="Print only results, warnings and errors: no notes, no "
                              "progress.")] = False,
    verbose: Annotated[bool, typer.Option(
        "-v", "--verbose", help="Print more detail on stderr, such as timings.")] = False,
    no_pager: Annotated[bool, typer.Option(
        "--no-pager", help="Do not page long output (GENESIS_PAGER, else PAGER, else "
                           "less -FRX; only on a terminal).")] = False,
) -> None:
    """genesis: story-aware retrieval inside your git repository."""
    from genesis_git.cli.output import COLOR_CHOICES, configure

    if color not in COLOR_CHOICES:
        raise typer.BadParameter(f"{color!r} is not one of auto, always, never",
                                 param_hint="'--color'")
    if quiet and verbose:
        raise typer.BadParameter("-q/--quiet and -v/--verbose cannot be used together",
                                 param_hint="'-q'")
    configure(color=color, quiet=quiet, verbose=verbose,
              pager=not no_pager and ctx.invoked_subcommand in PAGED)
    _STATE["debug"] = debug
    if directory is not None:
        try:
            os.chdir(directory)
        except OSError as exc:
            raise GenesisError(f"cannot change to {directory}: {exc.strerror}") from None


def _add_init(app: typer.Typer) -> None:
    from genesis_git.cli.setup import init

    app.command()(init)


def _add_doctor(app: typer.Typer) -> None:
    from genesis_git.cli.setup import doctor

    app.command()(doctor)


def _add_session(app: typer.Typer) -> None:
    from genesis_git.cli import session

    app.add_typer(session.app, name="session")


def _add_search(app: typer.Typer) -> None:
    from genesis_git.cli import search

    search.register(app)


def _add_symbols(app: typer.Typer) -> None:
    from genesis_git.cli import symbols

    symbols.register(app)


def _add_impact(app: typer.Typer) -> None:
    from genesis_git.cli import impact

    impact.register(app)


def _add_check(app: typer.Typer) -> None:
    from genesis_git.cli import check

    check.register(app)


def _add_story(app: typer.Typer) -> None:
    from genesis_git.cli import story

    app.add_typer(story.app, name="story")


def _add_ledger(app: typer.Typer) -> None:
    from genesis_git.cli import ledger

    app.add_typer(ledger.app, name="ledger")


def _add_sync(app: typer.Typer) -> None:
    from genesis_git.cli.sync import sync

    app.command()(sync)


def _add_hooks(app: typer.Typer) -> None:
    from genesis_git.cli import hooks

    app.add_typer(hooks.app, name="hooks")


def _add_design(app: typer.Typer) -> None:
    from genesis_git.cli import design

    app.add_typer(design.app, name="design")


def _add_cache(app: typer.Typer) -> None:
    from genesis_git.cli import cache

    app.add_typer(cache.app, name="cache")


def _add_mcp(app: typer.Typer) -> None:
    from genesis_git.cli import mcp

    mcp.register(app)


def _add_web(app: typer.Typer) -> None:
    from genesis_git.cli import web

    web.register(app)


# Top-level commands, in the order ``genesis --help`` lists them.
COMMANDS: dict[str, Callable[[typer.Typer], None]] = {
    "init": _add_init,
    "doctor": _add_doctor,
    "session": _add_session,
    "search": _add_search,
    "symbols": _add_symbols,
    "impact": _add_impact,
    "check": _add_check,
    "story": _add_story,
    "ledger": _add_ledger,
    "sync": _add_sync,
    "hooks": _add_hooks,
    "design": _add_design,
    "cache": _add_cache,
    "mcp": _add_mcp,
    "web": _add_web,
}


def build_app(only: str | None = None) -> typer.Typer:
    """The ``genesis`` app; with ``only``, just that top-level command (for a quick start)."""
    new = _new_app()
    new.callback()(main)
    for name, add in COMMANDS.items():
        if only is None or name == only:
            add(new)
    return new


def __getattr__(name: str) -> Any:
    """``app``, the whole command tree, is built on first use (the console script builds
    only the command it runs; see :func:`run`)."""
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_VALUE_OPTIONS = {"-C", "--directory", "--color"}


def command_name(args: list[str]) -> str | None:
    """The top-level command that ``args`` runs, when the rest of the app can be left out.

    ``None`` (the whole app) for help, the version, shell completion and
    anything that is not a known command, so that their output is unchanged.
    """
    if any(var.startswith("_GENESIS_COMPLETE") for var in os.environ):
        return None
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _VALUE_OPTIONS:
            skip = True
        elif arg.startswith("-"):
            if arg in ("-h", "--help", "--version") or arg.startswith(("--install", "--show")):
                return None
        else:
            return arg if arg in COMMANDS else None
    return None


def run() -> None:
    """Console-script entry point.

    Typer turns every registered command into a click command before parsing;
    for the dozens of commands here that is a third of the start-up time of a
    quick command, so only the command being run is built.
    """
    from genesis_git.cli.output import safe_streams, utf8_args

    safe_streams()
    sys.argv[1:] = utf8_args(sys.argv[1:])
    try:
        build_app(command_name(sys.argv[1:]))(prog_name="genesis")
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    _exit(code)


def _exit(code: Any) -> None:
    """Leave without tearing the interpreter down.

    Everything is committed and every file is closed when a command returns;
    unloading numpy, typer and the rest only costs time (40 ms, a seventh of
    a search).  Under coverage or a tracer, exit normally so that they can
    write their data.
    """
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
        code = 1
    elif not isinstance(code, int):
        code = 0 if code is None else 1
    if "coverage" in sys.modules or sys.gettrace() is not None:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        code = code or int(ExitCode.BROKEN_PIPE)
    except (OSError, ValueError):  # pragma: no cover - stdout already closed
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):  # pragma: no cover
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
