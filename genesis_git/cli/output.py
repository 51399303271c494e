"""Writing out: lines for people on a terminal, JSON for programs, plain text when piped.

What the text says is rendered by :mod:`genesis_git.render`; this module knows where it goes
(stdout, a pager, or stderr for notes and warnings), whether that is a terminal, whether
colours are wanted (``--color``, ``NO_COLOR``, ``FORCE_COLOR``), how chatty to be (``-q``,
``-v``) and what to do with a character the stream cannot encode.

The global options are read once (:func:`configure`) before a command runs; whether stdout
and stderr are terminals and how wide is measured then too, so that the answers stay the
same once a pager holds stdout.
"""

from __future__ import annotations

import codecs
import io
import os
import shlex
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from genesis_git.render.terminal import Paint

COLOR_CHOICES = ("auto", "always", "never")
DEFAULT_PAGER = "less -FRX"

# genesis's own typographic glyphs as ASCII, for a stream that cannot encode them
GLYPHS = {"—": "--", "–": "-", "→": "->", "←": "<-", "…": "...", "§": "#", "×": "x",
          "·": "-", "‘": "'", "’": "'", "“": '"', "”": '"', "•": "*", "✓": "ok"}
ERRORS = "genesis-ascii"

_STATE: dict[str, Any] = {"color": "auto", "quiet": False, "verbose": False,
                          "pager": True, "tty": None, "err_tty": None, "width": None,
                          "pager_proc": None, "saved_fd": None}


def _fallback(err: UnicodeError) -> tuple[str, int]:
    """The encode error handler: a known glyph as its ASCII look-alike, any other character
    as a backslash escape (``\\u00e9``), never an error."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    bad = err.object[err.start:err.end]
    return ("".join(GLYPHS.get(ch) or ch.encode("ascii", "backslashreplace").decode("ascii")
                    for ch in bad), err.end)


codecs.register_error(ERRORS, _fallback)


def safe_streams() -> None:
    """Make stdout and stderr write every character: what the encoding (ASCII, Latin-1)
    cannot hold degrades (:data:`GLYPHS`) or is escaped instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors != ERRORS:
            try:
                stream.reconfigure(errors=ERRORS)
            except (ValueError, OSError):  # pragma: no cover - a closed stream
                pass


def utf8_args(args: list[str]) -> list[str]:
    """Command-line arguments read as UTF-8 when the locale could not decode them
    (``LANG=C``: Python then holds their bytes as lone surrogates, which no store or log
    can take); bytes that are not UTF-8 either stay lone surrogates, as they are under a
    UTF-8 locale, so that a command that must refuse them (a note) still sees them."""
    return [os.fsencode(arg).decode("utf-8", "surrogateescape")
            if any("\udc80" <= ch <= "\udcff" for ch in arg) else arg for arg in args]


def printable(text: str) -> str:
    """``text`` that any UTF-8 file can hold: a lone surrogate as a backslash escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"
    except (ValueError, OSError):
        return False


def configure(color: str = "auto", quiet: bool = False, verbose: bool = False,
              pager: bool = True) -> None:
    """Take the global options; measure the terminal before anything is written."""
    _STATE.update(color=color, quiet=quiet, verbose=verbose, pager=pager,
                  tty=_isatty(sys.stdout), err_tty=_isatty(sys.stderr),
                  width=shutil.get_terminal_size((80, 24)).columns)


def stdout_is_tty() -> bool:
    """Whether stdout is a terminal (measured before a pager took it)."""
    if _STATE["tty"] is None:
        return _isatty(sys.stdout)
    return bool(_STATE["tty"])


def stderr_is_tty() -> bool:
    if _STATE["err_tty"] is None:
        return _isatty(sys.stderr)
    return bool(_STATE["err_tty"])


def width() -> int:
    """The terminal's columns (``COLUMNS`` wins, as everywhere), 80 when unknown."""
    if _STATE["width"] is None:
        return shutil.get_terminal_size((80, 24)).columns
    return int(_STATE["width"])


def quiet() -> bool:
    return bool(_STATE["quiet"])


def verbose() -> bool:
    return bool(_STATE["verbose"])


def progress_enabled() -> bool:
    """A progress bar goes to stderr when it is a terminal and ``-q`` was not given."""
    return stderr_is_tty() and not quiet()


def color_enabled(stderr: bool = False) -> bool:
    """``--color`` first; with ``auto``, ``NO_COLOR`` turns colours off and ``FORCE_COLOR``
    on (both when set and not empty), else only a terminal gets them."""
    choice = _STATE["color"]
    if choice != "auto":
        return bool(choice == "always")
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stderr_is_tty() if stderr else stdout_is_tty()


def paint() -> Paint:
    """How stdout colours a span: ANSI codes when colours are on, else nothing."""
    from genesis_git.render.terminal import ansi_paint, no_paint

    return ansi_paint if color_enabled() else no_paint


# -- the pager ----------------------------------------------------------------------------

def pager_command() -> str | None:
    """``GENESIS_PAGER``, else ``PAGER``, else ``less -FRX``; ``None`` for no pager (not a
    terminal, ``--no-pager``, an empty value or ``cat``, or a command that is not there)."""
    from genesis_git.kernel.environment import ENV_PAGER

    if not _STATE["pager"] or not stdout_is_tty():
        return None
    cmd = ENV_PAGER.raw()
    if cmd is None:
        cmd = os.environ.get("PAGER", DEFAULT_PAGER)
    cmd = cmd.strip()
    if not cmd or cmd == "cat":
        return None
    try:
        first = shlex.split(cmd)[0]
    except (ValueError, IndexError):
        return None
    return cmd if shutil.which(first) else None


def _start_pager() -> None:
    """Hand stdout to the pager (as git does: the pager's input becomes file descriptor 1)."""
    cmd = pager_command()
    _STATE["pager"] = False  # once
    if cmd is None:
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        return
    assert proc.stdin is not None
    sys.stdout.flush()
    _STATE["saved_fd"] = os.dup(1)
    os.dup2(proc.stdin.fileno(), 1)
    proc.stdin.close()
    _STATE["pager_proc"] = proc


def paging() -> bool:
    return _STATE["pager_proc"] is not None


def end_pager() -> None:
    """Close the pager's input and wait until the user leaves it."""
    proc = _STATE["pager_proc"]
    if proc is None:
        return
    _STATE["pager_proc"] = None
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    os.dup2(_STATE["saved_fd"], 1)
    os.close(_STATE["saved_fd"])
    try:
        proc.wait()
    except KeyboardInterrupt:  # pragma: no cover - the user interrupts the pager
        proc.wait()


def _out() -> Any:
    if _STATE["pager"] and _STATE["tty"]:
        _start_pager()
    return sys.stdout


# -- writing ------------------------------------------------------------------------------

def emit_json(obj: Any) -> None:
    """Stable JSON on stdout (:func:`genesis_git.render.lines.json_text`); on a stream that
    cannot encode it, with ``\\uXXXX`` escapes, so that it stays valid JSON."""
    from genesis_git.render.lines import json_text

    text = json_text(obj)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        text = json_text(obj, ascii_only=True)
    except LookupError:  # pragma: no cover - an encoding Python does not know
        pass
    _out().write(text + "\n")


def echo(text: str = "") -> None:
    _out().write(text + "\n")


def warn(text: str) -> None:
    """One warning line on stderr (control characters of the data in it dropped)."""
    from genesis_git.render.terminal import clean

    sys.stderr.write(f"genesis: warning: {clean(text)}\n")


def note(text: str) -> None:
    """One informational line on stderr (never mixed into stdout); ``-q`` drops it."""
    from genesis_git.render.terminal import clean

    if not quiet():
        sys.stderr.write(f"genesis: {clean(text)}\n")


def detail(text: str) -> None:
    """One line of detail on stderr, shown with ``-v`` only."""
    if verbose():
        sys.stderr.write(f"genesis: {text}\n")


def console(stderr: bool = False) -> Console:
    """A rich console that never reads markup (text is data) and colours as
    :func:`color_enabled` says."""
    from rich.console import Console

    on = color_enabled(stderr)
    return Console(stderr=stderr, highlight=False, soft_wrap=False, markup=False, emoji=False,
                   force_terminal=True if on and _STATE["color"] == "always" else None,
                   no_color=not on, color_system="auto" if on else None)
