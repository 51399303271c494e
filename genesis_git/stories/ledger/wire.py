"""The ledger on the wire: what a remote holds, fetching and pushing it, and the one
deadline and lock that bound a sync.

Every git process that talks to a remote is started here with the time left of
one :class:`Deadline`, so that the pre-push hook ends within its bound even when
another sync holds the lock or a transport hangs (the git door ends the whole
process group).  What a remote says when it refuses the ledger is kept, on one
line: :func:`reason`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from genesis_git.kernel.gitrun import GitError, no_git_env, run_git
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R
from genesis_git.text.quoting import escape_controls

REPAIR = "`genesis ledger repair` rebuilds it from the records this clone holds"


def tracking_ref(remote: str) -> str:
    return f"{R.REMOTES_PREFIX}{remote}/ledger"


def fetch_refspec(remote: str) -> str:
    return f"+refs/genesis/*:{R.REMOTES_PREFIX}{remote}/*"


class Deadline:
    """The time left of one bound (``None``: no bound) shared by every wait of a sync."""

    def __init__(self, seconds: float | None, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.end = None if seconds is None else time.monotonic() + seconds

    def left(self) -> float | None:
        """The seconds left; a :class:`GitError` with ``timed_out`` once there are none."""
        if self.end is None:
            return None
        left = self.end - time.monotonic()
        if left <= 0:
            raise GitError(f"{self.what} within {self.seconds:g} s", timed_out=True)
        return left


@contextmanager
def sync_lock(store_dir: Path, deadline: Deadline | None = None) -> Iterator[None]:
    """One sync at a time per clone: the second one waits for the first (no longer than
    ``deadline``: then a :class:`GitError` with ``timed_out``)."""
    store_dir.mkdir(parents=True, exist_ok=True)
    fh = open(store_dir / "sync.lock", "a+b")  # noqa: SIM115 - held for the whole sync
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no flock (Windows): ref CAS still holds
            yield
            return
        if deadline is None or deadline.end is None:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        else:
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    left = (deadline.end or 0) - time.monotonic()
                    if left <= 0:
                        raise GitError("another sync of this clone held the ledger's lock for "
                                       f"more than {deadline.seconds:g} s",
                                       timed_out=True) from None
                    time.sleep(min(0.05, left))
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()


def _is_ledger(root: str | Path, commit: str) -> bool:
    return run_git(["cat-file", "-e", f"{commit}:{R.MARKER}"], root, env=no_git_env(),
                   check=False).returncode == 0


_BOILERPLATE = ("could not read from remote repository", "please make sure you have",
                "and the repository exists", "failed to push some refs")


def reason(text: str, status: int) -> str:
    """What git and the remote said, on one line: the server's own ``remote:`` lines and
    git's first ``fatal:``/``error:`` line, without git's advice; control characters
    escaped."""
    said: list[str] = []
    for raw in text.splitlines():
        line = escape_controls(raw.strip())
        if line.startswith("remote:"):
            line = line[len("remote:"):].strip()
        for prefix in ("fatal:", "error:"):
            if line.startswith(prefix):
                line = line[len(prefix):].strip()
        if not line or line.startswith(("To ", "hint:", "Done")) or line.startswith("\t") or \
                line.lower().startswith(_BOILERPLATE) or line in said:
            continue
        said.append(line)
    return "; ".join(said[:4]) if said else f"git exited with {status}"


def _fetch(root: str | Path, remote: str, deadline: Deadline) -> str | None:
    """Fetch the remote's ledger refs (``--prune``: a ref the remote no longer has goes);
    ``None``, or why the remote could not be read."""
    proc = run_git(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune", remote,
                    fetch_refspec(remote)], root, env=no_git_env(), check=False,
                   timeout=deadline.left())
    if proc.returncode == 0:
        return None
    return f"cannot fetch the ledger from {remote}: " + reason(
        proc.stderr.decode("utf-8", "replace"), proc.returncode)


def ledger_state(root: str | Path, ref: str) -> tuple[str | None, str | None]:
    """``(object, what is wrong with it)`` of a ledger ref: ``(None, None)`` when there is
    none, ``(sha, None)`` for a good one."""
    out = G.git(root, "for-each-ref", "--format=%(objectname) %(objecttype)",
                ref).decode().split()
    if not out:
        return None, None
    sha, kind = out[0], out[1] if len(out) > 1 else "?"
    if kind != "commit":
        return sha, f"it points at a {kind}, not a commit"
    if not _is_ledger(root, sha):
        return sha, f"its commit {sha[:12]} has no {R.MARKER}: not a genesis ledger"
    return sha, None


MOVED = ("non-fast-forward", "fetch first", "stale info", "cannot lock ref",
         "failed to update ref")


def _push(root: str | Path, remote: str, deadline: Deadline) -> tuple[bool, bool, str]:
    """``(pushed, rejected because the remote moved, the remote's reason)``."""
    proc = run_git(["push", "--porcelain", "--no-verify", remote,
                    f"{R.LEDGER_REF}:{R.LEDGER_REF}"], root, env=no_git_env(), check=False,
                   timeout=deadline.left())
    if proc.returncode == 0:
        return True, False, ""
    out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    status = ""  # the porcelain line of the ref: "!<TAB>src:dst<TAB>[remote rejected] (why)"
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1].endswith(":" + R.LEDGER_REF):
            summary = escape_controls(parts[2].strip())
            # "[remote rejected] (pre-receive hook declined)": the part in brackets is git's
            inner = summary.partition("] ")[2].strip() if summary.startswith("[") else summary
            status = inner[1:-1] if inner.startswith("(") and inner.endswith(")") else \
                (inner or summary)
    moved = any(w in status or w in err for w in MOVED)
    said = reason(err, proc.returncode) if err.strip() else ""
    return False, moved, "; ".join(x for x in (status, said) if x) or \
        f"git push exited with {proc.returncode}"
