"""Late binding: commits with a story id bind the session's work to the story.

For each story id of a commit (docs/how-to/hooks-and-sharing.md, "What binds"):

* the story record is created when it is missing (title from the subject,
  status ``in_progress``; a ``draft`` moves to ``in_progress``);
* the session's unbound notes become story artifacts, and the session's
  ``--doc`` becomes the ``requirement``;
* a ``commit`` link carries the SHA with author, date and subject;
* each changed file becomes a ``doc_change`` artifact (added/updated/removed).

Everything for one hook run happens in one transaction, so two worktrees
committing at once queue on the store's busy timeout and both land.  A rebase
is handled once, by post-rewrite (:mod:`genesis_git.stories.rewrite`), which
moves everything from the old SHAs to the new ones in a single batch.
"""

from __future__ import annotations

import os
import time

from genesis_git.kernel.vocabulary import LINK_COMMIT, ROLE_REQUIREMENT, SESSION_ACTIVE
from genesis_git.store import sessions as session_rows
from genesis_git.store import stories as story_rows
from genesis_git.stories import tables as ledger
from genesis_git.stories.commits import (
    DEFAULT_PATTERN,
    LOG_FORMAT,
    Change,
    CommitInfo,
    changed_files,
    ids_in_text,
    is_merge_subject,
    parse_log,
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

    from genesis_git.config.settings import Config
    from genesis_git.git.repo import Repo
    from genesis_git.stories.commits import GitRepo, StoryRules

    SessionsFor = Callable[[CommitInfo], "list[sqlite3.Row]"]
    OpenStore = Callable[[], sqlite3.Connection]

INDEXED_MODES = ("100644", "100755")
MANUAL_BIND = "story:"  # bound_commit of a note bound by `genesis story bind` (artifacts.py)


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


def worktree_sessions(conn: sqlite3.Connection, repo: GitRepo) -> SessionsFor:
    """The sessions whose notes a commit made in this worktree binds: the session of its
    ``Genesis-Session`` trailer (when the store knows it) and every session of the
    worktree, active or ended.  A note belongs to the session it was written in, so it
    binds whether or not commit-msg ran."""
    # the active one, and ended ones with notes still pending
    rows = session_rows.with_pending_notes(conn, str(repo.root))

    def resolve(commit: CommitInfo) -> list[sqlite3.Row]:
        sid = commit.session_id
        if sid and all(r["id"] != sid for r in rows):
            row = ledger.session_row(conn, sid)
            if row is not None:
                return [row, *rows]
        return list(rows)

    return resolve


# reflog actions that make a commit in this clone (not: pull, merge, rebase, reset, clone)
MADE_HERE_ACTIONS = ("commit", "cherry-pick", "revert")


def made_here(repo: GitRepo) -> set[str]:
    """The commits made in this clone: those HEAD's or a local branch's reflog records as
    made by ``git commit`` (amend included), ``cherry-pick`` or ``revert``.  A commit that
    arrived by fetch, pull, a rebase onto upstream or a squash merge on the server is in
    no such entry, so no pending note binds to it."""
    out = repo.git("log", "-g", "--format=%H %gs", "HEAD", "--branches", "--", check=False)
    found = set()
    for line in out.decode("utf-8", "replace").splitlines():
        sha, _, action = line.partition(" ")
        if action.startswith(MADE_HERE_ACTIONS):
            found.add(sha)
    return found


def history_sessions(conn: sqlite3.Connection, repo: GitRepo) -> SessionsFor:
    """``story rebuild`` and ``genesis sync``: pending notes bind only to a commit made in
    this clone (:func:`made_here`) and, when its ``Genesis-Session`` trailer names a
    session, only that session's; without a trailer, the sessions with pending notes whose
    branch holds the commit (any commit when the branch is gone or unknown).  A commit
    that came from elsewhere binds its files and its link, never a note of this clone."""
    pending = session_rows.all_with_pending_notes(conn)
    reach: dict[str, set[str] | None] = {}
    own_commits: set[str] | None = None

    def reachable(branch: str | None) -> set[str] | None:
        if not branch:
            return None
        if branch not in reach:
            out = repo.git("rev-list", f"refs/heads/{branch}", "--", check=False)
            reach[branch] = set(out.decode().split()) or None
        return reach[branch]

    def resolve(commit: CommitInfo) -> list[sqlite3.Row]:
        nonlocal own_commits
        if own_commits is None:
            own_commits = made_here(repo)
        if commit.sha not in own_commits:
            return []
        own = ledger.session_row(conn, commit.session_id) if commit.session_id else None
        if commit.session_id and own is None:
            return []  # the session of another clone
        out = [own] if own is not None else []
        for s in pending:
            if own is not None and (s["id"] == own["id"] or s["worktree"] != own["worktree"]):
                continue
            shas = reachable(s["branch"])
            if shas is None or commit.sha in shas:
                out.append(s)
        return out

    return resolve


def project_id(conn: sqlite3.Connection, repo: GitRepo) -> str:
    """The ``project_id`` of a story created here, the same in every clone of the
    repository whatever its folder or remote: ``git:`` and the first 12 hex digits of the
    history's root commit (the smallest SHA when HEAD has several).  Read once per clone
    and kept in the store; the folder name only before the first commit."""
    from genesis_git.store import kv

    where = os.fspath(getattr(repo, "common_dir", repo.git_dir))
    known = kv.get(conn, "project", where)
    if known:
        return known
    roots = repo.git("rev-list", "--max-parents=0", "HEAD", "--", check=False).decode().split()
    if not roots:
        return repo.project_id
    value = f"git:{min(roots)[:12]}"
    kv.put(conn, "project", where, value)
    return value


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts))


def apply(conn: sqlite3.Connection, repo: GitRepo, pattern: str, commits: Sequence[CommitInfo],
          changes: dict[str, list[Change]], *, session_for: SessionsFor | None = None,
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
        sessions = session_for(commit) if session_for else []
        title = title_from_subject(commit.subject, pattern)
        for sid in ids:
            new = ledger.get_record(conn, sid) is None
            if ledger.ensure_record(conn, story_id=sid, title=title, by=commit.author,
                                    project_id=project_id(conn, repo) if new else ""):
                result.created.append(sid)
            else:
                ledger.promote(conn, sid)
            if ledger.add_link(conn, sid, LINK_COMMIT, commit.sha, commit.subject, commit.meta()):
                result.links += 1
            for ch in changes.get(commit.sha, []):
                if ledger.add_artifact(conn, sid, "doc_change", doc_id=commit.sha,
                                       doc_version=ch.blob, path=ch.path,
                                       change_type=ch.change_type,
                                       source_ref=ledger.COMMIT_SOURCE,
                                       created_by=commit.author):
                    result.files += 1
            touched.setdefault(sid, None)
        cutoff = _iso(commit.committer_ts + 1) if notes_before_commit else None
        for session in sessions:
            with_doc = session["status"] == SESSION_ACTIVE or session["id"] == commit.session_id
            result.notes += _bind_session(conn, session, ids, commit.sha, cutoff, with_doc)
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
                  sha: str, cutoff: str | None, with_doc: bool = True) -> int:
    """Bind the session's unbound notes (written up to ``cutoff``) to the stories; its
    ``--doc`` too when ``with_doc`` or when notes were bound."""
    notes = session_rows.unbound_notes(conn, session["id"], cutoff)
    doc = session["source_doc"] if with_doc or notes else None
    version = None
    if doc:
        from genesis_git.store.sessionmap import doc_version

        version = doc_version(conn, session["id"], doc)
    for sid in story_ids_:
        if doc:
            ledger.add_artifact(conn, sid, ROLE_REQUIREMENT, doc_id=doc, doc_version=version,
                                path=doc, change_type="linked", source_ref=session["id"])
        for a in notes:
            ledger.add_artifact(conn, sid, a["artifact_role"], doc_id=f"session-artifact:{a['id']}",
                                doc_version=a["doc_version"], path=a["path"], section=a["section"],
                                chunk_id=a["chunk_id"], change_type=a["change_type"],
                                summary=a["summary"], source_ref=a["session_id"],
                                created_by=a["created_by"], created_at=a["created_at"],
                                note_id=a["record_id"], private=bool(a["private"]))
    if notes:
        stamp = ledger.now()
        session_rows.bind(conn, [(sha, stamp, a["id"]) for a in notes])
    return len(notes)


def _refresh_baseline(conn: sqlite3.Connection, story_id: str) -> None:
    """The baseline is the first parent of the story's earliest commit."""
    row = story_rows.first_commit_meta(conn, story_id)
    if row is None or not row[0]:
        return
    import json

    parents = json.loads(row[0]).get("parents") or []
    ledger.set_baseline(conn, story_id, parents[0] if parents else None)


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
    """Bind HEAD.  Nothing happens during a rebase, for a merge, or without a story id; a
    merge or a ``Merge …`` subject that names a story says, with ``warn``, that it bound
    nothing (its notes wait for the next story commit)."""
    if in_rebase(repo):
        return None
    commit = head_commit(repo)
    if commit is None:
        return None
    if commit.is_merge or is_merge_subject(commit.subject):
        named = ids_in_text(commit.subject, rules.effective)
        if named and warn:
            warn(f"note: a merge binds nothing: {', '.join(named)} not bound here; pending "
                 "notes wait for the next story commit (or `genesis story bind "
                 f"{named[0]}`)")
        return None
    pattern = rules.effective
    if not story_ids(commit, pattern):
        lower = unrecognised_id(commit.subject) if rules.pattern == DEFAULT_PATTERN else None
        if lower and warn:
            warn(f"note: {lower!r} is not a story id: ids are upper case ({lower.upper()}), "
                 "as story.pattern says; nothing was bound")
        return None
    return bind_commit(open_store(), repo, pattern, commit)


def bind_commit(conn: sqlite3.Connection, repo: GitRepo, pattern: str, commit: CommitInfo,
                *, late: bool = False) -> BindResult:
    """What post-commit does once it has the store (``late``: replayed from the journal,
    so only notes written up to the commit bind)."""
    sessions_for = worktree_sessions(conn, repo)
    earlier = missed_commits(conn, repo, pattern, commit, sessions_for(commit))
    changes = changed_files(repo, [*earlier, commit])
    with ledger.immediate(conn):
        # notes older than an earlier story commit whose hooks did not run go to that one
        result = apply(conn, repo, pattern, earlier, changes, session_for=sessions_for,
                       notes_before_commit=True)
        return apply(conn, repo, pattern, [commit], changes, session_for=sessions_for,
                     notes_before_commit=late, result=result)


def missed_commits(conn: sqlite3.Connection, repo: GitRepo, pattern: str, commit: CommitInfo,
                   sessions: Sequence[sqlite3.Row], limit: int = 200) -> list[CommitInfo]:
    """Story commits before ``commit`` (oldest first) made after the oldest unbound note of
    ``sessions``, made in this clone and not by another session: the commits that should
    have bound those notes
    when their hooks were skipped (``--no-verify`` skips none, but a client without genesis,
    a read-only store or no session at the time do).  No git call without such notes."""
    if not sessions or not commit.parents:
        return []
    ids = [s["id"] for s in sessions]
    row = session_rows.oldest_unbound(conn, ids)
    if row is None or row[0] is None:
        return []
    out = repo.git("log", "-z", "--no-merges", f"-n{limit}", f"--since=@{int(row[0]) - 1}",
                   f"--format={LOG_FORMAT}", commit.parents[0], "--", check=False)
    known = set(ids)
    found = [c for c in parse_log(out)
             if (c.session_id is None or c.session_id in known) and story_ids(c, pattern)]
    if found:  # only commits made here: never one that a pull or a rebase brought
        own = made_here(repo)
        found = [c for c in found if c.sha in own]
    if found:  # a commit the ledger links had its hook run: what is pending came later
        linked = story_rows.linked_among(conn, [c.sha for c in found])
        found = [c for c in found if c.sha not in linked]
    found.reverse()
    return found


def link_story(conn: sqlite3.Connection, repo: Repo, config: Config, story_id: str,
               link_type: str, target: str, description: str | None = None) -> dict[str, Any]:
    """``genesis story link``.  A ``commit`` target is resolved and bound with its files."""
    from genesis_git.kernel.errors import GenesisError, UsageError
    from genesis_git.stories.commits import StoryRules

    ledger.check_link_type(link_type)
    if not target.strip():
        raise UsageError("--target is empty")
    ledger.require_record(conn, story_id)
    if link_type == LINK_COMMIT:
        sha = repo.git("rev-parse", "--verify", "-q", f"{target}^{{commit}}",
                       check=False).decode().strip()
        if not sha:
            raise GenesisError(f"{target!r} is not a commit of this repository",
                               hint="give a SHA, a branch or a tag")
        commits = read_commits(repo, [sha])
        res = bind_commits(conn, repo, StoryRules.from_config(config).effective, commits,
                           changed_files(repo, commits), forced=[story_id])
        return {"story_id": story_id, "type": LINK_COMMIT, "target": sha,
                "added": res.links > 0, "files": res.files}
    with ledger.immediate(conn):
        added = ledger.add_link(conn, story_id, link_type, target.strip(), description)
        ledger.touch(conn, story_id)
    return {"story_id": story_id, "type": link_type, "target": target.strip(), "added": added}


def bind_notes(conn: sqlite3.Connection, repo: GitRepo, story_id: str,
               session_id: str | None = None) -> dict[str, Any]:
    """``genesis story bind``: the pending notes of a session (default: every session of
    this worktree) and its ``--doc`` go to an existing story, by hand."""
    from genesis_git.kernel.errors import NotFound

    ledger.require_record(conn, story_id)
    if session_id is not None:
        row = ledger.session_row(conn, session_id)
        if row is None:
            raise NotFound(f"unknown session {session_id!r}",
                           hint="see `genesis session list --all`")
        sessions = [row]
    else:
        sessions = worktree_sessions(conn, repo)(CommitInfo("", [], "", "", "", 0, "", ""))
        sessions = [s for s in sessions
                    if s["status"] == SESSION_ACTIVE or session_rows.has_unbound(conn, s["id"])]
    bound = 0
    with ledger.immediate(conn):
        for s in sessions:
            bound += _bind_session(conn, s, [story_id], MANUAL_BIND + story_id, None, True)
        ledger.touch(conn, story_id)
    return {"story_id": story_id, "sessions": [s["id"] for s in sessions], "notes": bound}
