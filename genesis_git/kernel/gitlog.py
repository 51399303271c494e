"""How ``git log`` is asked and read: the one walker of history, for
:meth:`genesis_git.git.repo.Repo.log` and the hooks' repository alike.

Standard library only: the hooks walk the commits they bind with it."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence


class LogCommit:
    """One commit of a log walk: its formatted header (bytes) and, when asked, the paths
    it changed."""

    __slots__ = ("header", "paths")

    def __init__(self, header: bytes, paths: list[str]) -> None:
        self.header = header
        self.paths = paths

    def __repr__(self) -> str:
        return f"LogCommit({self.header!r}, {self.paths!r})"


def log_args(fmt: str, revs: Sequence[str], options: Sequence[str] = (),
             names: bool = True) -> list[str]:
    """The arguments of ``git log`` whose output :func:`split_log` reads: each commit's
    header ``fmt`` between ``\x01`` and ``\x03``, then (with ``names``) its paths, all
    NUL-separated, so that any path or message survives."""
    return ["log", *options, *(("--name-only",) if names else ()), "-z",
            f"--format=%x01{fmt}%x03", *revs, "--"]


def split_log(blocks: Iterable[bytes]) -> Iterator[LogCommit]:
    """The commits of :func:`log_args` output given in blocks of any size, as they come."""
    buf = b""
    current: LogCommit | None = None
    for block in blocks:
        parts = (buf + block).split(b"\0")
        buf = parts.pop()
        for tok in parts:
            tok = tok.lstrip(b"\n")
            if tok.startswith(b"\x01"):
                if current is not None:
                    yield current
                header, _, tok = tok[1:].partition(b"\x03")
                current = LogCommit(header, [])
                tok = tok.lstrip(b"\n")
            if tok and current is not None:
                current.paths.append(tok.decode("utf-8", "surrogateescape"))
    tail = buf.lstrip(b"\n")
    if tail.startswith(b"\x01"):  # a last commit without paths
        if current is not None:
            yield current
        current = LogCommit(tail[1:].partition(b"\x03")[0], [])
    elif tail and current is not None:
        current.paths.append(tail.decode("utf-8", "surrogateescape"))
    if current is not None:
        yield current
