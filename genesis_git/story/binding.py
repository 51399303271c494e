"""Late binding: commits with a story id bind the session's work to the story.

For each story id of a commit (seed 002 §4.5):

* the story record is created when it is missing (title from the subject,
  status ``in_progress``; a ``draft`` moves to ``in_progress``);
* the session's unbound notes become story artifacts, and the session's
  ``--doc`` becomes the ``requirement``;
* a ``commit`` link carries the SHA with author, date and subject;
* each changed file becomes a ``doc_change`` artifact (added/updated/removed).

Everything for one hook run happens in one transaction, so two worktrees
committing at once queue on the store's busy timeout and both land.  A rebase
is handled once, by post-rewrite, which moves everything from the old SHAs to
the new ones in a single batch.
"""

from __future__ import annotations

import os
import time

from genesis_git.story import ledger
from genesis_git.story.commits import (
    DEFAULT_PATTERN,
    Change,
    CommitInfo,
    changed_files,
    read_commits,
    story_ids,
    title_from_subject,
    unrecognised_id,
)

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence
    from typing import Any

    from genesis_git.config import Config
    from genesis_git.repo import Repo
    from genesis_git.story.commits import GitRepo, StoryRules

    SessionFor = Callable[[CommitInfo], "sqlite3.Row | None"]
    OpenStore = Callable[[], sqlite3.Connection]

INDEXED_MODES = ("100644", "100755")


class BindResult:
    """What one binding run added (a plain class: the hooks avoid importing dataclasses)."""

    def __init__(self) -> None:
        self.commits = 0
        self.stories: list[str] = []
        self.created: list[str] = []
        self.links = 0
        self.files = 0
        self.notes = 0
        self.dropped = 0
        self.blobs: list[tuple[str, str]] = []

    def as_dict(self) -> dict[str, Any]:
        return {"commits": self.commits, "stories": self.stories, "created": self.created,
                "links": self.links, "files": self.files, "notes": self.notes,
                "dropped": self.dropped}


def in_rebase(repo: GitRepo) -> bool:
    return any(os.path.isdir(os.path.join(repo.git_dir, name))
               for name in ("rebase-merge", "rebase-apply"))


def session_resolver(conn: sqlite3.Connection, repo: GitRepo) -> SessionFor:
    """The session of a commit: its ``Genesis-Session`` trailer when the store knows it,
    else the worktree's active session."""
    active = ledger.active_session(conn, repo)

    def resolve(commit: CommitInfo) -> sqlite3.Row | None:
        sid = commit.session_id
        if sid:
            row = ledger.session_row(conn, sid)
            if row is not None:
                return row
        return active

    return resolve


def trailer_sessions(conn: sqlite3.Connection) -> SessionFor:
    """Only the ``Genesis-Session`` trailer (``story rebuild``: no worktree guessing)."""

    def resolve(commit: CommitInfo) -> sqlite3.Row | None:
        return ledger.session_row(conn, commit.session_id) if commit.session_id else None

    return resolve


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts))


def apply(conn: sqlite3.Connection, repo: GitRepo, pattern: str, commits: Sequence[CommitInfo],
          changes: dict[str, list[Change]], *, session_for: SessionFor | None = None,
          notes_before_commit: bool = False, forced: Sequence[str] | None = None,
          result: BindResult | None = None) -> BindResult:
    """Bind ``commits`` (inside the caller's transaction); ``pattern`` is ``story.pattern``."""
    result = result or BindResult()
    touched: dict[str, None] = {}
    for commit in commits:
        ids = list(forced) if forced is not None else story_ids(commit, pattern)
        if not ids:
            continue
        result.commits += 1
        session = session_for(commit) if session_for else None
        title = title_from_subject(commit.subject, pattern)
        for sid in ids:
            if ledger.ensure_record(conn, story_id=sid, project_id=repo.project_id, title=title,
                                    by=commit.author):
                result.created.append(sid)
            else:
                conn.execute("UPDATE story_records SET status='in_progress' "
                             "WHERE story_id=? AND status='draft'", (sid,))
            if ledger.add_link(conn, sid, "commit", commit.sha, commit.subject, commit.meta()):
                result.links += 1
            for ch in changes.get(commit.sha, []):
                if ledger.add_artifact(conn, sid, "doc_change", doc_id=commit.sha,
                                       doc_version=ch.blob, path=ch.path,
                                       change_type=ch.change_type,
                                       source_ref=ledger.COMMIT_SOURCE,
                                       created_by=commit.author):
                    result.files += 1
            touched.setdefault(sid, None)
        if session is not None:
            cutoff = _iso(commit.committer_ts + 1) if notes_before_commit else None
            result.notes += _bind_session(conn, session, ids, commit.sha, cutoff)
        for ch in changes.get(commit.sha, []):
            if ch.change_type != "removed" and ch.blob and ch.mode in INDEXED_MODES:
                result.blobs.append((ch.path, ch.blob))
    for sid in touched:
        _refresh_baseline(conn, sid)
        ledger.touch(conn, sid)
        if sid not in result.stories:
            result.stories.append(sid)
    return result


def _bind_session(conn: sqlite3.Connection, session: sqlite3.Row, story_ids_: Sequence[str],
                  sha: str, cutoff: str | None) -> int:
    sql = "SELECT * FROM session_artifacts WHERE session_id=? AND bound_commit IS NULL"
    args: tuple[Any, ...] = (session["id"],)
    if cutoff is not None:
        sql += " AND created_at <= ?"
        args += (cutoff,)
    notes = conn.execute(sql + " ORDER BY id", args).fetchall()
    doc = session["source_doc"]
    version = None
    if doc:
        row = conn.execute("SELECT doc_version FROM rag_session_chunk_map "
                           "WHERE session_id=? AND path=?", (session["id"], doc)).fetchone()
        version = row[0] if row else None
    for sid in story_ids_:
        if doc:
            ledger.add_artifact(conn, sid, "requirement", doc_id=doc, doc_version=version,
                                path=doc, change_type="linked", source_ref=session["id"])
        for a in notes:
            ledger.add_artifact(conn, sid, a["artifact_role"], doc_id=f"session-artifact:{a['id']}",
                                doc_version=a["doc_version"], path=a["path"], section=a["section"],
                                chunk_id=a["chunk_id"], change_type=a["change_type"],
                                summary=a["summary"], source_ref=a["session_id"],
                                created_by=a["created_by"], created_at=a["created_at"])
    if notes:
        stamp = ledger.now()
        conn.executemany("UPDATE session_artifacts SET bound_commit=?, bound_at=? WHERE id=?",
                         [(sha, stamp, a["id"]) for a in notes])
    return len(notes)


def _refresh_baseline(conn: sqlite3.Connection, story_id: str) -> None:
    """The baseline is the first parent of the story's earliest commit."""
    row = conn.execute("SELECT meta FROM story_links WHERE story_id=? AND link_type='commit' "
                       "ORDER BY id LIMIT 1", (story_id,)).fetchone()
    if row is None or not row[0]:
        return
    import json

    parents = json.loads(row[0]).get("parents") or []
    conn.execute("UPDATE story_records SET baseline_commit_sha=? WHERE story_id=?",
                 (parents[0] if parents else None, story_id))


def bind_commits(conn: sqlite3.Connection, repo: GitRepo, pattern: str,
                 commits: Sequence[CommitInfo], changes: dict[str, list[Change]],
                 **kwargs: Any) -> BindResult:
    """:func:`apply` in its own transaction."""
    with ledger.immediate(conn):
        return apply(conn, repo, pattern, commits, changes, **kwargs)


# -- the hooks ---------------------------------------------------------------------

def head_commit(repo: GitRepo) -> CommitInfo | None:
    commits = read_commits(repo, ["HEAD"])
    return commits[0] if commits else None


def post_commit(repo: GitRepo, rules: StoryRules, open_store: OpenStore,
                warn: Callable[[str], None] | None = None) -> BindResult | None:
    """Bind HEAD.  Nothing happens during a rebase, for a merge, or without a story id."""
    if in_rebase(repo):
        return None
    commit = head_commit(repo)
    if commit is None or commit.is_merge:
        return None
    pattern = rules.effective
    if not story_ids(commit, pattern):
        lower = unrecognised_id(commit.subject) if rules.pattern == DEFAULT_PATTERN else None
        if lower and warn:
            warn(f"note: {lower!r} is not a story id: ids are upper case ({lower.upper()}), "
                 "as story.pattern says; nothing was bound")
        return None
    conn = open_store()
    changes = changed_files(repo, [commit])
    return bind_commits(conn, repo, pattern, [commit], changes,
                        session_for=session_resolver(conn, repo))


def parse_rewrites(text: str) -> list[tuple[str, str]]:
    pairs = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] != parts[1]:
            pairs.append((parts[0], parts[1]))
    return pairs


def post_rewrite(repo: GitRepo, pattern: str, kind: str, pairs: Sequence[tuple[str, str]],
                 open_store: OpenStore, *, store_exists: bool = True) -> BindResult | None:
    """Move old SHAs to new ones in one batch (amend, rebase, squash and fixup included).

    An amend during a rebase is skipped: the rebase's own post-rewrite covers it.
    Only an amend binds the session's unbound notes; a rebase carries the bindings
    that already exist.
    """
    if kind == "amend" and in_rebase(repo):
        return None
    pairs = [(o, n) for o, n in pairs if o != n]
    if not pairs:
        return None
    news = list(dict.fromkeys(n for _, n in pairs))
    commits = [c for c in read_commits(repo, news) if not c.is_merge]
    if not store_exists and not any(story_ids(c, pattern) for c in commits):
        return None
    conn = open_store()
    new_set = set(news)
    story_commits = [c for c in commits if story_ids(c, pattern)]
    changes = changed_files(repo, story_commits)
    with ledger.immediate(conn):
        result = BindResult()
        for old, new in pairs:
            if old in new_set:
                continue
            result.dropped += ledger.drop_commit(conn, old)
            conn.execute("UPDATE session_artifacts SET bound_commit=? WHERE bound_commit=?",
                         (new, old))
        session_for = session_resolver(conn, repo) if kind == "amend" else None
        apply(conn, repo, pattern, story_commits, changes, session_for=session_for,
              result=result)
    return result


def known_blobs(conn: sqlite3.Connection, shas: Sequence[str]) -> set[str]:
    found: set[str] = set()
    shas = list(dict.fromkeys(shas))
    for i in range(0, len(shas), 500):
        part = shas[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT blob_sha FROM rag_blob_cache WHERE blob_sha IN ({marks})", part))
    return found


def missing_blobs(conn: sqlite3.Connection,
                  entries: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries whose blob the cache has never seen (any chunker, any embedder)."""
    known = known_blobs(conn, [sha for _, sha in entries])
    return [(p, s) for p, s in dict.fromkeys(entries) if s not in known]


def index_blobs(conn: sqlite3.Connection, repo: Repo, config: Config,
                entries: Sequence[tuple[str, str]]) -> int:
    """Make sure the committed blobs are in the cache; the indexer is loaded only on a miss."""
    missing = missing_blobs(conn, entries)
    if not missing:
        return 0
    try:
        from genesis_git.index.indexer import ensure_blobs
    except ImportError:  # pragma: no cover - an install without the indexer
        return 0
    return int(ensure_blobs(conn, repo, config, missing))


def link_story(conn: sqlite3.Connection, repo: Repo, config: Config, story_id: str,
               link_type: str, target: str, description: str | None = None) -> dict[str, Any]:
    """``genesis story link``.  A ``commit`` target is resolved and bound with its files."""
    from genesis_git.errors import GenesisError, UsageError
    from genesis_git.story.commits import StoryRules

    ledger.check_link_type(link_type)
    if not target.strip():
        raise UsageError("--target is empty")
    ledger.require_record(conn, story_id)
    if link_type == "commit":
        sha = repo.git("rev-parse", "--verify", "-q", f"{target}^{{commit}}",
                       check=False).decode().strip()
        if not sha:
            raise GenesisError(f"{target!r} is not a commit of this repository",
                               hint="give a SHA, a branch or a tag")
        commits = read_commits(repo, [sha])
        res = bind_commits(conn, repo, StoryRules.from_config(config).effective, commits,
                           changed_files(repo, commits), forced=[story_id])
        return {"story_id": story_id, "type": "commit", "target": sha,
                "added": res.links > 0, "files": res.files}
    with ledger.immediate(conn):
        added = ledger.add_link(conn, story_id, link_type, target.strip(), description)
        ledger.touch(conn, story_id)
    return {"story_id": story_id, "type": link_type, "target": target.strip(), "added": added}
