"""The entry the hook shims call: ``python -m genesis_git.hooks.run <hook> [args]``.

It runs on every commit, so it stays light: the standard library's ``os``,
``sys``, ``re``, ``json`` and ``sqlite3``, :mod:`genesis_git.hooks.runtime` and the
story modules; never typer, rich, numpy, nor even ``subprocess`` or ``pathlib``
(see :mod:`genesis_git.hooks.runtime`).  Exit codes: 0 always, except 65 from
commit-msg when ``story.require_story`` rejects a message (the shim turns 65
into 1 and any other failure into a warning, so that a broken installation
never blocks a commit).

Any failure goes to the hook log in the store, with one line on stderr.
"""

from __future__ import annotations

import os
import sys

from genesis_git.hooks.runtime import HookRepo, open_store, store_path
from genesis_git.kernel import environment as base
from genesis_git.kernel.errors import ExitCode
from genesis_git.stories import journal
from genesis_git.stories.commits import story_settings
from genesis_git.stories.journal import HOOK_BUSY_MS

TYPE_CHECKING = False  # not `typing`: importing it costs more than the hook's work
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence

    HookFn = Callable[[HookRepo, Sequence[str]], int]

REJECT = ExitCode.COMMIT_REJECTED  # the shim turns it into 1: git's own rejection
INDEX_MODES = base.ENV_HOOKS_INDEX.choices


def commit_msg(repo: HookRepo, args: Sequence[str]) -> int:
    """Reject a message without a story id (when required); add the session trailer.

    An empty message (after git's cleanup, with ``core.commentChar``) is left alone, so
    git aborts the commit as it would without genesis.  The trailer goes at the very
    end (a ``---`` line is no divider here), only to a message that names a story unless
    ``story.session_trailer`` says ``always`` or ``never``, and never twice.
    """
    from genesis_git.stories.message import (
        AUTO_COMMENT_CHARS,
        add_session_trailer,
        comment_chars,
        has_content,
        is_exempt,
        message_story_ids,
    )

    if not args:
        return 0
    msg_file = args[0]
    with open(msg_file, encoding="utf-8", errors="surrogateescape") as fh:
        message = fh.read()
    merging = os.path.exists(os.path.join(repo.git_dir, "MERGE_HEAD"))
    rules = story_settings(repo.root)
    trailer = (rules.trailer != "never" and not merging and os.path.exists(store_path(repo)))
    if not trailer and not rules.require:
        return 0
    # which lines are comments matters only when a line starts like one (`-m` gives none)
    chars = (comment_chars(repo) if any(ln[:1] in AUTO_COMMENT_CHARS
                                        for ln in message.splitlines()) else "#")
    if not has_content(message, chars):
        return 0  # git aborts an empty message; nothing may make it non-empty
    ids = message_story_ids(message, rules.effective, chars)
    if rules.require and not merging and not is_exempt(message, chars) and not ids:
        shown = rules.pattern + (f", prefixes {', '.join(rules.prefixes)}"
                                 if rules.prefixes else "")
        sys.stderr.write(
            f"genesis: commit rejected: the subject names no story id (pattern {shown}, "
            'e.g. "STORY-12: ..."; a "Story:" trailer also counts)\n')
        return int(REJECT)
    if not trailer or (rules.trailer == "story" and not ids):
        return 0
    import sqlite3

    from genesis_git.stories.tables import active_session

    try:
        conn = open_store(repo, migrate=False, busy_ms=HOOK_BUSY_MS)
        try:
            session = active_session(conn, repo)
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0  # a busy store: post-commit binds by worktree without the trailer
    if session is None:
        return 0
    updated = add_session_trailer(message, session["id"], chars)
    if updated != message:
        with open(msg_file, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(updated)
    return 0


class _Store:
    """Opens the store on first use and closes it at the end."""

    def __init__(self, repo: HookRepo) -> None:
        self.repo = repo
        self.conn: sqlite3.Connection | None = None

    def __call__(self) -> sqlite3.Connection:
        if self.conn is None:
            self.conn = open_store(self.repo, busy_ms=HOOK_BUSY_MS)
            path = store_path(self.repo)
            if os.path.exists(journal.journal_path(path)):
                journal.replay(self.conn, path)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def post_commit(repo: HookRepo, args: Sequence[str]) -> int:
    from genesis_git.stories import binding

    rules = story_settings(repo.root)
    store = _Store(repo)
    try:
        result = binding.post_commit(repo, rules, store, warn=_warn)
        if result is not None and result.blobs:
            _index(repo, store(), result.blobs)
    except Exception as exc:
        head = repo.git("rev-parse", "HEAD").decode().strip()
        _defer(repo, {"hook": "post-commit", "sha": head}, exc)
    finally:
        store.close()
    return 0


def post_rewrite(repo: HookRepo, args: Sequence[str]) -> int:
    from genesis_git.stories import rewrite

    kind = args[0] if args else "amend"
    pairs = rewrite.parse_rewrites(sys.stdin.read())
    if not pairs:
        return 0
    rules = story_settings(repo.root)
    store = _Store(repo)
    try:
        result = rewrite.post_rewrite(repo, rules.effective, kind, pairs, store,
                                      store_exists=os.path.exists(store_path(repo)))
        if result is not None and result.blobs:
            _index(repo, store(), result.blobs)
    except Exception as exc:
        _defer(repo, {"hook": "post-rewrite", "kind": kind, "pairs": pairs}, exc)
    finally:
        store.close()
    return 0


def _defer(repo: HookRepo, entry: dict[str, object], exc: Exception) -> None:
    """A store that is locked or cannot be written: the binding waits in the journal next
    to the store and the commit goes ahead.  Any other failure is raised on."""
    import sqlite3

    if not isinstance(exc, sqlite3.OperationalError):
        raise exc
    entry.update(root=repo.root, git_dir=repo.git_dir, common_dir=repo.common_dir)
    where = journal.record(store_path(repo), entry)
    if where is None:
        raise exc
    sys.stderr.write(f"genesis: the store is busy or read-only ({exc}); the binding waits in "
                     f"{where} and the next genesis command applies it\n")


def _warn(line: str) -> None:
    sys.stderr.write(f"genesis: {line}\n")


def _index(repo: HookRepo, conn: sqlite3.Connection, blobs: list[tuple[str, str]]) -> None:
    """Index the commit's blobs that the cache lacks.

    ``GENESIS_HOOKS_INDEX``: ``background`` (default: a detached process does it, so the
    commit does not wait for chunking and embedding), ``inline`` or ``off``.  The binding
    is already saved, so a failure here only logs.
    """
    mode = base.ENV_HOOKS_INDEX.choice()
    if mode == "off":
        return
    from genesis_git.kernel.gitrun import no_git_env
    from genesis_git.kernel.spawn import spawn_detached
    from genesis_git.store.blobs import missing_blobs

    try:
        missing = missing_blobs(conn, blobs)
        if not missing:
            return
        if mode == "inline":
            _index_now(repo, conn, missing)
            return
        # the commit is over when the indexer runs: none of its GIT_* environment applies
        payload = "".join(f"{p}\0{s}\0" for p, s in missing).encode("utf-8", "surrogateescape")
        spawn_detached(["-m", "genesis_git.hooks.run", "index-blobs"], payload, no_git_env())
    except Exception as exc:
        _report(repo, "post-commit (indexing)", exc)


def _index_now(repo: HookRepo, conn: sqlite3.Connection,
               entries: list[tuple[str, str]]) -> None:
    """Cache the blobs of ``entries`` the cache lacks; the indexer is loaded only on a miss."""
    from genesis_git.store.blobs import missing_blobs

    missing = missing_blobs(conn, entries)
    if not missing:
        return
    from genesis_git.config.settings import load_config
    from genesis_git.index.indexer import ensure_blobs

    full = repo.to_repo()
    ensure_blobs(conn, full, load_config(full.root), missing)


def index_blobs(repo: HookRepo, args: Sequence[str]) -> int:
    """The detached indexer: ``path\\0sha\\0`` pairs on stdin."""
    parts = sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0")
    entries = [(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
    conn = open_store(repo)
    try:
        _index_now(repo, conn, entries)
    finally:
        conn.close()
    return 0


def pre_push(repo: HookRepo, args: Sequence[str]) -> int:
    """Push the story ledger along with the user's push, when the team shares it.

    Best-effort: any failure is one line on stderr and exit 0, so the user's push
    goes on; ``GENESIS_PREPUSH_TIMEOUT`` (seconds, default 10) bounds the time spent,
    waiting for another sync's lock included, and a transport still running then is
    ended with its whole process group.
    A push of only ``refs/genesis/*`` (genesis's own) is left alone; one that sends them,
    by the user's own refspec, to a remote that does not get the ledger is one warning.
    First, with ``[check] pre_push``, the pushed commits are checked
    (:mod:`genesis_git.hooks.prepush_check`)."""
    lines = [ln.split() for ln in sys.stdin.read().splitlines() if ln.strip()]
    ledger_refs = [p for p in lines if len(p) >= 3 and p[2].startswith("refs/genesis/")]
    remote = args[0] if args else ""
    from pathlib import Path

    from genesis_git.config.settings import Config, load_config

    try:  # read once, for the check and the ledger
        config: Config = load_config(Path(repo.root))
    except Exception as exc:  # one line for both, and the user's push goes on
        from genesis_git.text.quoting import one_line

        why = one_line(str(exc)) or type(exc).__name__
        sys.stderr.write(f"genesis: warning: genesis's settings could not be read ({why}); "
                         "no pre-push check or ledger push this time\n")
        return 0
    if lines and len(ledger_refs) < len(lines):  # `[check] pre_push`: opt-in, warns only
        from genesis_git.hooks.prepush_check import check_push

        if check_push(repo.root, store_path(repo), lines, config):
            return int(ExitCode.CHECK_FAILED)  # `[check] fail_on`: the shim refuses the push
    try:
        from genesis_git.stories.ledger.sync import ledger_remotes, remotes, sync

        if not config.settings.ledger.share:
            return 0
        names = remotes(repo.root)
        shared_to = ledger_remotes(repo.root, config, names)
        if remote not in shared_to:
            if ledger_refs:
                sys.stderr.write(f"genesis: warning: this push sends the story ledger "
                                 f"({ledger_refs[0][2]}) to {remote}, which is not in [ledger] "
                                 f"remotes ({', '.join(shared_to) or 'none'})\n")
            return 0  # the ledger goes only to the remotes named by `genesis init --share`
        if (lines and len(ledger_refs) == len(lines)) or not os.path.exists(store_path(repo)):
            return 0
        timeout = base.ENV_PREPUSH_TIMEOUT.number()
        conn = open_store(repo, busy_ms=max(1, int(timeout * 1000)))  # the store's lock too
        try:
            full = repo.to_repo()
            warned: list[str] = []
            result = sync(conn, full, config, remote, store_dir=Path(store_path(repo)).parent,
                          warn=warned.append, timeout=timeout, bind=None)
        finally:
            conn.close()
        if result["error"]:
            _not_pushed(result["error"])
        elif warned:
            sys.stderr.write(f"genesis: warning: {warned[0]}\n")
    except Exception as exc:  # the user's push goes on whatever happened here
        reason = str(exc).strip().splitlines()
        if getattr(exc, "timed_out", False) and getattr(exc, "command", ()):
            reason = [f"no answer from {remote} within "
                      f"{base.ENV_PREPUSH_TIMEOUT.number():g} s"]
        _not_pushed(reason[-1] if reason else type(exc).__name__)
    return 0


def _not_pushed(reason: str) -> None:
    from genesis_git.text.quoting import one_line

    sys.stderr.write("genesis: warning: the story ledger was not pushed "
                     f"({one_line(reason)}); `genesis sync` retries\n")


HOOKS: dict[str, HookFn] = {
    "commit-msg": commit_msg,
    "post-commit": post_commit,
    "post-rewrite": post_rewrite,
    "pre-push": pre_push,
    "index-blobs": index_blobs,
}


def _report(repo: HookRepo | None, hook: str, exc: BaseException) -> None:
    """The hooks' side of the one error gate (:func:`genesis_git.kernel.errors.handle`): every failure
    goes to the hook log (``genesis story rebuild`` recovers what it missed), one warning
    line goes to stderr, and the commit is kept."""
    from genesis_git.kernel.errors import handle, summary
    from genesis_git.stories import hooklog

    def record(line: str, detail: str) -> object:
        return hooklog.record(repo.to_repo() if repo else None, hook, line, detail)

    failure = handle(exc, record=record, log_expected=True)
    tail = f"details in {failure.log}" if failure.log else "the log could not be written"
    sys.stderr.write(f"genesis: warning: {hook} hook failed ({summary(exc)}); the commit is "
                     f"kept; {tail}; `genesis story rebuild` recovers\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not base.ENV_HOOKS.on():
        return 0
    if not args or args[0] not in HOOKS:
        sys.stderr.write("usage: python -m genesis_git.hooks.run "
                         "{commit-msg|post-commit|post-rewrite|pre-push} [args]\n")
        return ExitCode.USAGE
    hook, rest = args[0], args[1:]
    repo: HookRepo | None = None
    try:
        repo = HookRepo.discover()
        return HOOKS[hook](repo, rest)
    except Exception as exc:
        _report(repo, hook, exc)
        return 0
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
