"""The entry the hook shims call: ``python -m genesis_git.hooks.run <hook> [args]``.

It stays light (the standard library, ``genesis_git.repo``/``db``/``config``
and the story modules; never typer, rich or numpy), because it runs on every
commit.  Exit codes: 0 always, except 65 from commit-msg when
``story.require_story`` rejects a message (the shim turns 65 into 1 and any
other failure into a warning, so a broken installation never blocks a commit).

Any failure goes to the hook log in the store, with one line on stderr.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from genesis_git.config import Config, load_config
from genesis_git.repo import Repo, find_repo

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

REJECT = 65
HookFn = Callable[[Repo, Config, Sequence[str]], int]


def _find_repo() -> Repo:
    """:func:`find_repo` in one git call (the hooks run at the top of the worktree)."""
    from pathlib import Path

    from genesis_git.repo import run_git

    proc = run_git(["rev-parse", "--is-bare-repository", "--git-dir", "--git-common-dir",
                    "--show-toplevel"], ".", check=False)
    lines = proc.stdout.decode().splitlines()
    if proc.returncode != 0 or len(lines) < 4 or lines[0].strip() != "false":
        return find_repo()  # it explains what is wrong
    cwd = Path.cwd()
    return Repo(root=Path(lines[3]), git_dir=(cwd / lines[1]).resolve(),
                common_dir=(cwd / lines[2]).resolve())


def _store(repo: Repo) -> Path:
    from genesis_git.db.connect import store_path

    return store_path(repo)


def _open(repo: Repo) -> sqlite3.Connection:
    from genesis_git.db.connect import connect

    return connect(_store(repo))


def commit_msg(repo: Repo, config: Config, args: Sequence[str]) -> int:
    from genesis_git.story.commits import SESSION_TRAILER, is_exempt, message_story_ids

    if not args:
        return 0
    msg_file = args[0]
    with open(msg_file, encoding="utf-8", errors="replace") as fh:
        message = fh.read()
    merging = (repo.git_dir / "MERGE_HEAD").exists()
    pattern = config.str("story.pattern")
    if config.bool("story.require_story") and not merging and not is_exempt(message):
        if not message_story_ids(message, pattern):
            sys.stderr.write(
                f"genesis: commit rejected: the subject names no story id (pattern {pattern}, "
                'e.g. "STORY-12: ..."; a "Story:" trailer also counts)\n')
            return REJECT
    if merging or not _store(repo).exists():
        return 0
    from genesis_git.story.ledger import active_session

    conn = _open(repo)
    try:
        session = active_session(conn, repo)
    finally:
        conn.close()
    if session is None:
        return 0
    repo.git("interpret-trailers", "--in-place", "--if-exists", "addIfDifferent",
             "--trailer", f"{SESSION_TRAILER}: {session['id']}", msg_file)
    return 0


def post_commit(repo: Repo, config: Config, args: Sequence[str]) -> int:
    from genesis_git.story import binding

    conn_box: list[sqlite3.Connection] = []

    def open_store() -> sqlite3.Connection:
        conn_box.append(_open(repo))
        return conn_box[-1]

    try:
        result = binding.post_commit(repo, config, open_store)
        if result is not None and result.blobs:
            _index(repo, config, conn_box[0], result.blobs)
    finally:
        for conn in conn_box:
            conn.close()
    return 0


def post_rewrite(repo: Repo, config: Config, args: Sequence[str]) -> int:
    from genesis_git.story import binding

    kind = args[0] if args else "amend"
    pairs = binding.parse_rewrites(sys.stdin.read())
    if not pairs:
        return 0
    conn_box: list[sqlite3.Connection] = []

    def open_store() -> sqlite3.Connection:
        conn_box.append(_open(repo))
        return conn_box[-1]

    try:
        result = binding.post_rewrite(repo, config, kind, pairs, open_store,
                                      store_exists=_store(repo).exists())
        if result is not None and result.blobs:
            _index(repo, config, conn_box[0], result.blobs)
    finally:
        for conn in conn_box:
            conn.close()
    return 0


def _index(repo: Repo, config: Config, conn: sqlite3.Connection,
           blobs: list[tuple[str, str]]) -> None:
    """Index the commit's blobs that the cache lacks.

    ``GENESIS_HOOKS_INDEX``: ``background`` (default; a detached process does it, so the
    commit does not wait for chunking and embedding), ``inline`` or ``off``.  The binding
    is already saved, so a failure here only logs.
    """
    mode = os.environ.get("GENESIS_HOOKS_INDEX", "background")
    if mode == "off":
        return
    from genesis_git.story import binding

    try:
        missing = binding.missing_blobs(conn, blobs)
        if not missing:
            return
        if mode == "inline":
            binding.index_blobs(conn, repo, config, missing)
            return
        import subprocess

        from genesis_git.repo import clean_env

        # the commit is over when this runs: nothing of its GIT_* environment applies
        proc = subprocess.Popen(
            [sys.executable, "-m", "genesis_git.hooks.run", "index-blobs"], cwd=str(repo.root),
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=clean_env(), start_new_session=True)
        assert proc.stdin is not None
        proc.stdin.write("".join(f"{p}\0{s}\0" for p, s in missing).encode(
            "utf-8", "surrogateescape"))
        proc.stdin.close()
    except Exception as exc:
        _report(repo, "post-commit (indexing)", exc)


def index_blobs(repo: Repo, config: Config, args: Sequence[str]) -> int:
    """The detached indexer: ``path\0sha\0`` pairs on stdin."""
    from genesis_git.story import binding

    parts = sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0")
    entries = [(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
    conn = _open(repo)
    try:
        binding.index_blobs(conn, repo, config, entries)
    finally:
        conn.close()
    return 0


HOOKS: dict[str, HookFn] = {
    "commit-msg": commit_msg,
    "post-commit": post_commit,
    "post-rewrite": post_rewrite,
    "index-blobs": index_blobs,
}


def _report(repo: Repo | None, hook: str, exc: BaseException) -> None:
    from genesis_git.story import hooklog

    summary = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    where = hooklog.record(repo, hook, summary, traceback.format_exc())
    tail = f"details in {where}" if where else "the log could not be written"
    sys.stderr.write(f"genesis: warning: {hook} hook failed ({summary}); the commit is kept; "
                     f"{tail}; `genesis story rebuild` recovers\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if os.environ.get("GENESIS_HOOKS", "1") == "0":
        return 0
    if not args or args[0] not in HOOKS:
        sys.stderr.write("usage: python -m genesis_git.hooks.run "
                         "{commit-msg|post-commit|post-rewrite} [args]\n")
        return 2
    hook, rest = args[0], args[1:]
    repo: Repo | None = None
    try:
        repo = _find_repo()
        config = load_config(repo.root)
        return HOOKS[hook](repo, config, rest)
    except Exception as exc:
        _report(repo, hook, exc)
        return 0
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
