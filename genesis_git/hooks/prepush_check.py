"""The pre-push hook's check (opt-in, ``[check] pre_push = true``): before the push leaves,
the files the pushed commits probably forgot, as warning lines on stderr.

It never blocks a push unless ``[check] fail_on`` is set: then a file whose confidence
reaches it makes the hook exit 6, which the installed shim turns into git's refusal (1).
For each pushed ref, the change is the commits that no remote-tracking branch holds yet
(``git rev-list LOCAL --not --remotes``), against the parent of the oldest of them; an
update of a ref the remote has is checked from the remote's commit.  A deleted ref and
genesis's own ``refs/genesis/*`` are left alone.  Any failure of the check is one warning
line, and the push goes on.
"""

from __future__ import annotations

import os
import sys

from genesis_git.kernel.errors import ExitCode
from genesis_git.text.quoting import one_line, quote_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from genesis_git.config.settings import Config

MAX_COMMITS = 200
MAX_LINES = 5  # files listed per ref


def pushed_ranges(root: str, lines: Sequence[Sequence[str]]) -> list[str]:
    """``BASE..TIP`` for every pushed ref worth checking."""
    from genesis_git.kernel.gitrun import run_git

    out: list[str] = []
    for parts in lines:
        if len(parts) < 4 or parts[1].strip("0") == "" or parts[2].startswith("refs/genesis/"):
            continue
        local, remote = parts[1], parts[3]
        if remote.strip("0") and run_git(["cat-file", "-e", remote + "^{commit}"], root,
                                          check=False).returncode == 0:
            base = remote
        else:
            shas = run_git(["rev-list", f"--max-count={MAX_COMMITS}", local, "--not",
                            "--remotes"], root, check=False).stdout.decode().split()
            if not shas:
                continue
            parent = run_git(["rev-parse", "--verify", "-q", shas[-1] + "^1"], root,
                             check=False).stdout.decode().strip()
            if not parent:
                continue  # a root commit: no history to compare with
            base = parent
        if base != local and f"{base}..{local}" not in out:  # two refs at one commit: once
            out.append(f"{base}..{local}")
    return out


def check_push(root: str, store: str, lines: Sequence[Sequence[str]], config: Config) -> int:
    """Warn about what the pushed commits probably forgot; 6 when ``fail_on`` is reached
    (``config``: the repository's, which the hook has read for the ledger too)."""
    try:
        if not config.settings.check.pre_push:
            return 0
        return _check(root, store, lines, config)
    except Exception as exc:  # the push goes on whatever happened here
        reason = one_line(str(exc)) or type(exc).__name__
        sys.stderr.write(f"genesis: warning: the pre-push check did not run ({reason})\n")
        return 0


def _check(root: str, store: str, lines: Sequence[Sequence[str]], config: Config) -> int:
    from pathlib import Path

    from genesis_git.check import CheckOptions, check
    from genesis_git.git.repo import find_repo

    settings = config.settings.check
    repo = find_repo(root)
    conn = None
    if os.path.exists(store):
        from genesis_git.store.connect import connect

        conn = connect(Path(store))
    blocked = False
    # as `genesis check` builds them, without the story's evidence (the ledger is not read)
    opts = CheckOptions.from_settings(settings, sources=[s for s in settings.sources
                                                         if s != "story"])
    try:
        for rev in pushed_ranges(root, lines):
            result = check(repo, rev, opts, conn=conn)
            shown = result.shown()
            blocked = result.fails(settings.fail_on) or blocked
            if not shown:
                continue
            n = len(shown)
            base, _, tip = rev.partition("..")
            short = f"{base[:12]}..{tip[:12]}"
            sys.stderr.write(f"genesis: warning: the commits pushed may have forgotten {n} "
                             f"file{'s' if n != 1 else ''} (genesis check {short}):\n")
            for m in shown[:MAX_LINES]:
                why = one_line(m.reasons[0].detail) if m.reasons else ""
                sys.stderr.write(f"  {m.confidence:.2f} {quote_path(m.path)}  "
                                 f"({m.reasons[0].source}: {why})\n")
    finally:
        if conn is not None:
            conn.close()
    if blocked:
        sys.stderr.write(f"genesis: error: push refused: a file reached check.fail_on "
                         f"({settings.fail_on:g}); GENESIS_HOOKS=0 git push skips the check\n")
        return int(ExitCode.CHECK_FAILED)
    return 0
