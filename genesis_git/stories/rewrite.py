"""Rewritten commits: an amend, a reword, a squash, a fixup or a rebase (post-rewrite).

git gives post-rewrite the pairs of old and new SHAs once, after the whole
rewrite, and the ledger follows them in one transaction:

* the old commit's link and changed files leave its stories
  (``link.removed``), and the new commit is bound as post-commit binds one
  (an amend also binds the worktree's pending notes);
* a note follows the commit that bound it: to the stories the new commit
  names (``artifact.added`` there, ``artifact.removed`` in each story it
  leaves), or back to pending when it names none (``artifact.removed``);
* a story whose last commit left drops the requirement that went along with
  its notes (``artifact.removed``); if it still holds something it goes back
  from ``in_progress`` to ``draft`` (``story.status``), else it is removed
  (``story.removed``).

Every change of a row is a record, so that a teammate's fold of the records
after ``genesis sync`` is this clone's view.
"""

from __future__ import annotations

from genesis_git.kernel.vocabulary import ROLE_REQUIREMENT
from genesis_git.store import sessions as session_rows
from genesis_git.store import stories as story_rows
from genesis_git.stories import tables as ledger
from genesis_git.stories.binding import BindResult, apply, in_rebase, worktree_sessions
from genesis_git.stories.commits import changed_files, read_commits, story_ids

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from genesis_git.stories.binding import OpenStore
    from genesis_git.stories.commits import CommitInfo, GitRepo


def parse_rewrites(text: str) -> list[tuple[str, str]]:
    """The ``old new`` pairs that post-rewrite reads on stdin (an unchanged SHA is left out)."""
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
    commits = [c for c in read_commits(repo, list(dict.fromkeys(n for _, n in pairs)))
               if not c.is_merge]
    if not store_exists and not any(story_ids(c, pattern) for c in commits):
        return None
    return rewrite(open_store(), repo, pattern, kind, pairs, commits)


def rewrite(conn: sqlite3.Connection, repo: GitRepo, pattern: str, kind: str,
            pairs: Sequence[tuple[str, str]],
            commits: Sequence[CommitInfo] | None = None) -> BindResult:
    """What post-rewrite does once it has the store."""
    pairs = [(o, n) for o, n in pairs if o != n]
    news = list(dict.fromkeys(n for _, n in pairs))
    if commits is None:
        commits = [c for c in read_commits(repo, news) if not c.is_merge]
    new_set = set(news)
    ids_of = {c.sha: ids for c in commits if (ids := story_ids(c, pattern))}
    story_commits = [c for c in commits if c.sha in ids_of]
    changes = changed_files(repo, story_commits)
    with ledger.immediate(conn):
        result = BindResult()
        left: dict[str, None] = {}
        moved: list[tuple[int, str]] = []
        for old, new in pairs:
            if old in new_set:
                continue
            result.dropped += ledger.drop_commit(conn, old, stories=left)
            moved += [(note_id, new) for note_id in session_rows.bound_to(conn, old)]
            session_rows.rebind(conn, old, new)
        session_for = worktree_sessions(conn, repo) if kind == "amend" else None
        apply(conn, repo, pattern, story_commits, changes, session_for=session_for,
              result=result)
        changed = dict.fromkeys(left)
        changed.update(_follow_commits(conn, moved, ids_of))
        kept = _retire(conn, list(left))
        for sid in changed:
            if sid in kept or sid not in left:
                ledger.touch(conn, sid)  # its updated_at is its last record's, as elsewhere
    return result


def _follow_commits(conn: sqlite3.Connection, moved: Sequence[tuple[int, str]],
                    ids_of: dict[str, list[str]]) -> dict[str, None]:
    """Notes follow the commit that bound them: to the stories the rewritten commit names
    (a reworded id moves them), or back to pending when it names none.  Returns the
    stories that gained or lost a note."""
    changed: dict[str, None] = {}
    for note_id, new in moved:
        targets = ids_of.get(new, [])
        doc_id = f"session-artifact:{note_id}"
        rows = story_rows.artifacts_of_doc(conn, doc_id)
        if not targets:
            for a in rows:
                ledger.remove_artifact(conn, a)
                changed[a["story_id"]] = None
            session_rows.unbind(conn, note_id)
            continue
        note = session_rows.note_record(conn, note_id)
        for a in rows[:1]:
            for sid in targets:
                ledger.add_artifact(conn, sid, a["artifact_role"], doc_id=doc_id,
                                    doc_version=a["doc_version"], path=a["path"],
                                    section=a["section"], chunk_id=a["chunk_id"],
                                    change_type=a["change_type"], summary=a["summary"],
                                    source_ref=a["source_ref"], created_by=a["created_by"],
                                    created_at=a["created_at"],
                                    note_id=note["record_id"] if note else None,
                                    private=bool(note and note["private"]))
            for req in story_rows.requirements_from(conn, a["source_ref"], a["story_id"]):
                for sid in targets:
                    ledger.add_artifact(conn, sid, ROLE_REQUIREMENT, doc_id=req["doc_id"],
                                        doc_version=req["doc_version"], path=req["path"],
                                        change_type=req["change_type"],
                                        source_ref=req["source_ref"], created_at=req["created_at"])
        if rows:
            changed.update(dict.fromkeys(targets))
        for a in rows:
            if a["story_id"] not in targets:
                ledger.remove_artifact(conn, a)
                changed[a["story_id"]] = None
    return changed


def _retire(conn: sqlite3.Connection, story_ids_: Sequence[str]) -> set[str]:
    """A story whose last commit was rewritten away: a requirement that went along with
    the notes is dropped; a story left with nothing is removed, one that still holds
    something goes back to ``draft``.  Returns the stories that are still there."""
    kept: set[str] = set()
    for sid in story_ids_:
        if ledger.commit_links(conn, sid):
            kept.add(sid)
            continue
        for req in story_rows.shared_requirements(conn, sid):
            ledger.remove_artifact(conn, req)
        held = story_rows.held(conn, sid)
        if held:
            ledger.set_draft(conn, sid)
            kept.add(sid)
        else:
            ledger.remove_story(conn, sid)
    return kept
