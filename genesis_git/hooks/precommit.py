"""genesis's hooks run by the pre-commit framework (``.pre-commit-hooks.yaml``).

pre-commit runs a hook with other inputs than git gives it: a pre-push hook's remote
comes in ``PRE_COMMIT_REMOTE_NAME`` and its refs stay with pre-commit; a post-rewrite
hook gets its command in ``PRE_COMMIT_REWRITE_COMMAND`` and nothing on stdin.
:func:`pre_commit_args` gives the hook what git would have given it.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

from genesis_git.kernel.gitrun import run_git


def pre_commit_args(hook: str, args: list[str]) -> list[str] | None:
    """The arguments (and stdin) git would give ``hook``; ``None``: nothing to do.

    Outside pre-commit (no ``PRE_COMMIT`` variable) ``args`` are returned unchanged.
    """
    if not os.environ.get("PRE_COMMIT"):
        return args
    if hook == "pre-push" and not args:
        if os.environ.get("PRE_COMMIT_REMOTE_BRANCH", "").startswith("refs/genesis/"):
            return None  # genesis's own push of the ledger
        sys.stdin = io.StringIO("")  # the pushed refs stay with pre-commit
        name = os.environ.get("PRE_COMMIT_REMOTE_NAME")
        return [name, os.environ.get("PRE_COMMIT_REMOTE_URL", "")] if name else args
    if hook == "post-rewrite" and not args:
        command = os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
        sys.stdin = io.StringIO(rewritten_pairs(command))
        return [command] if command else args
    return args


def _git(*args: str) -> str:
    res = run_git(list(args), check=False)
    return res.stdout.decode("utf-8", "replace").strip() if res.returncode == 0 else ""


def rewritten_pairs(command: str) -> str:
    """``old new`` lines, as git gives a post-rewrite hook on stdin.

    A rebase keeps them in ``rebase-merge/rewritten-list`` until after the hook has
    run; an amend is the last entry of HEAD's reflog."""
    if command == "rebase":
        where = _git("rev-parse", "--git-path", "rebase-merge/rewritten-list")
        try:
            return Path(where).read_text(encoding="utf-8") if where else ""
        except OSError:
            return ""
    if command == "amend" and _git("reflog", "-1", "--format=%gs").startswith("commit (amend)"):
        old, new = _git("rev-parse", "--verify", "-q", "HEAD@{1}"), _git("rev-parse", "HEAD")
        if old and new:
            return f"{old} {new}\n"
    return ""
