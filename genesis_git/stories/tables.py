"""The story tables: records, artifacts and links (their columns: docs/reference/mirror-schema.md).

Every insert is ``INSERT OR IGNORE`` against the unique indexes of the schema,
so writing the same fact twice adds nothing.  Callers that write several facts
wrap them in :class:`immediate` (one ``BEGIN IMMEDIATE`` transaction).

Every write here also saves its ledger record through
:func:`genesis_git.stories.ledger.outbox.emit`, in the same transaction: the records
are what ``genesis sync`` shares, and what another clone's store is rebuilt
from.

Artifacts that come from a commit's changed files have ``artifact_role``
``doc_change``, ``doc_id`` = the commit SHA, ``doc_version`` = the blob SHA and
``source_ref`` = ``"commit"``; everything else (notes, decisions, the
requirement document) exists only in the ledger.
"""

from __future__ import annotations

from genesis_git.kernel.transaction import Transaction
from genesis_git.kernel.vocabulary import LINK_COMMIT, ROLE_ORDER, STATUS_DRAFT, STATUS_IN_PROGRESS
from genesis_git.store import ledger as ledger_rows
from genesis_git.store import sessions as session_rows
from genesis_git.store import stories as story_rows
from genesis_git.stories.ledger import outbox

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from genesis_git.stories.commits import GitRepo

COMMIT_SOURCE = "commit"


def now() -> str:
    """UTC, milliseconds, the format of the schema's defaults (the records' wall clock)."""
    return outbox.now_iso()


def immediate(conn: sqlite3.Connection) -> Transaction:
    """One write transaction (``BEGIN IMMEDIATE``): :class:`genesis_git.kernel.transaction.Transaction`."""
    return Transaction(conn)


# -- sessions (read side; the session module owns their life cycle) -----------

def active_session(conn: sqlite3.Connection, repo: GitRepo) -> sqlite3.Row | None:
    """The active session of this worktree (the hooks use this to stay free of the indexer)."""
    return session_rows.active(conn, str(repo.root))


def session_row(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    return session_rows.by_id(conn, session_id)


# -- writes --------------------------------------------------------------------

def ensure_record(conn: sqlite3.Connection, *, story_id: str, project_id: str,
                  title: str | None, status: str = STATUS_IN_PROGRESS, baseline: str | None = None,
                  by: str | None = None) -> bool:
    """Create the story if it is missing; fill an empty title.  True when it was created."""
    stamp = now()
    if story_rows.add_record(conn, story_id, project_id, title, status, baseline, by, stamp):
        outbox.emit(conn, "story.created", {"title": title, "status": status,
                                            "project_id": project_id,
                                            "baseline_commit_sha": baseline,
                                            "created_by": by},
                    story_id=story_id, at=stamp)
        return True
    if title:
        if story_rows.fill_title(conn, story_id, title):
            outbox.emit(conn, "story.title", {"title": title}, story_id=story_id)
    return False


def _move_status(conn: sqlite3.Connection, story_id: str, old: str, new: str) -> bool:
    """Status ``old`` becomes ``new`` (with its record); False when the story is not ``old``."""
    moved = story_rows.move_status(conn, story_id, old, new)
    if moved:
        outbox.emit(conn, "story.status", {"status": new}, story_id=story_id)
    return bool(moved)


def promote(conn: sqlite3.Connection, story_id: str) -> bool:
    """A ``draft`` story that gets a commit moves to ``in_progress``."""
    return _move_status(conn, story_id, STATUS_DRAFT, STATUS_IN_PROGRESS)


def touch(conn: sqlite3.Connection, story_id: str, by: str | None = None) -> None:
    """The story changed: ``updated_at``/``updated_by`` are those of its last shared record
    (what every clone's view shows), else now and ``by``."""
    import json

    at, who = now(), by
    row = ledger_rows.last_shared_line(conn, story_id)
    if row is not None:
        rec = json.loads(row[0])
        name, email = rec.get("author_name") or "", rec.get("author_email") or ""
        at = rec.get("time") or at
        who = f"{name} <{email}>" if name and email else (name or email or by)
    story_rows.set_updated(conn, story_id, at, who)


def add_link(conn: sqlite3.Connection, story_id: str, link_type: str, target: str,
             description: str | None = None, meta: dict[str, Any] | None = None, *,
             record: bool = True) -> bool:
    import json

    stamp = now()  # the row's time is its record's, as in every other clone's view
    rec = outbox.draft(conn, "link.added", {"link_type": link_type, "target": target,
                                            "description": description, "meta": meta},
                       story_id=story_id, at=stamp) if record else None
    added = story_rows.add_link(conn, story_id, link_type, target, description,
                                json.dumps(meta, ensure_ascii=False) if meta is not None
                                else None, stamp, rec.id if rec else None)
    if added and rec:
        outbox.save(conn, rec)
    return bool(added)


def add_artifact(conn: sqlite3.Connection, story_id: str, role: str, *,
                 doc_id: str | None = None, doc_version: str | None = None,
                 path: str | None = None, section: str | None = None,
                 chunk_id: str | None = None, change_type: str | None = None,
                 summary: str | None = None, source_ref: str | None = None,
                 created_by: str | None = None, created_at: str | None = None,
                 note_id: str | None = None, private: bool = False,
                 record: bool = True) -> bool:
    """Add an artifact; its record is ``private`` when it comes from a private note."""
    created_at = created_at or now()
    created_by = created_by or (outbox.author_text(conn) if record else None)
    rec = outbox.draft(conn, "artifact.added", {
        "role": role, "content": summary, "path": path, "section": section,
        "doc_id": doc_id, "doc_version": doc_version, "chunk_id": chunk_id,
        "change_type": change_type, "source_ref": source_ref,
        "source_session": None if source_ref == COMMIT_SOURCE else source_ref,
        "note_id": note_id, "created_at": created_at, "created_by": created_by},
        story_id=story_id) if record else None
    added = story_rows.add_artifact(conn, story_id, role, doc_id, doc_version, path,
                                    section, chunk_id, change_type, summary, source_ref,
                                    created_by, created_at, rec.id if rec else None)
    if added and rec:
        outbox.save(conn, rec, private=private)
    return bool(added)


def drop_commit(conn: sqlite3.Connection, sha: str, *, record: bool = True,
                stories: dict[str, None] | None = None) -> int:
    """Forget a commit: its links and its changed-file artifacts.  Returns rows removed.
    ``record=False`` forgets it in this clone only (the shared ledger keeps the link);
    ``stories`` collects the stories that linked it."""
    linked = story_rows.linking(conn, sha)
    if stories is not None:
        stories.update(dict.fromkeys(linked))
    if record:
        for story_id in linked:
            outbox.emit(conn, "link.removed", {"link_type": LINK_COMMIT, "target": sha},
                        story_id=story_id)
    n = story_rows.delete_commit_links(conn, sha)
    return n + story_rows.delete_commit_artifacts(conn, sha, COMMIT_SOURCE)


def set_baseline(conn: sqlite3.Connection, story_id: str, sha: str | None) -> bool:
    """Set the story's baseline commit (``story.baseline``); True when it changed."""
    changed = story_rows.set_baseline(conn, story_id, sha)
    if changed:
        outbox.emit(conn, "story.baseline", {"baseline_commit_sha": sha}, story_id=story_id)
    return bool(changed)


def set_draft(conn: sqlite3.Connection, story_id: str) -> bool:
    """An ``in_progress`` story whose commits all left goes back to ``draft``."""
    return _move_status(conn, story_id, STATUS_IN_PROGRESS, STATUS_DRAFT)


_KEY_FIELDS = ("role", "doc_id", "path", "section", "change_type", "note_id")


def remove_artifact(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Take one artifact out of its story, with its ``artifact.removed`` record: the key
    of the ``artifact.added`` that made the row (private when that one was)."""
    import json

    payload: dict[str, Any] = {}
    private = False
    if row["record_id"]:
        found = ledger_rows.line(conn, row["record_id"])
        if found is not None:
            added = json.loads(found[0]).get("payload") or {}
            payload = {k: added.get(k) for k in _KEY_FIELDS}
            private = bool(found[1])
        else:  # its record never reached a shared ledger (a private one, say): nor does this
            private = True
    if not payload:  # a row older than the records: its own columns are the key
        payload = {"role": row["artifact_role"], "doc_id": row["doc_id"], "path": row["path"],
                   "section": row["section"], "change_type": row["change_type"]}
    payload["record_id"] = row["record_id"]
    story_rows.delete_artifact(conn, row["id"])
    outbox.emit(conn, "artifact.removed", payload, story_id=row["story_id"], private=private)


def remove_story(conn: sqlite3.Connection, story_id: str) -> None:
    """Remove a story that holds nothing any more (``story.removed``)."""
    story_rows.delete_record(conn, story_id)
    outbox.emit(conn, "story.removed", {}, story_id=story_id)


# -- reads ---------------------------------------------------------------------

def get_record(conn: sqlite3.Connection, story_id: str) -> sqlite3.Row | None:
    return story_rows.record(conn, story_id)


def closest_ids(conn: sqlite3.Connection, story_id: str, n: int = 3) -> list[str]:
    """Known ids most like ``story_id``: with the same prefix (ignoring case), the nearest
    numbers first; else the most similar spelling.  Ties in id order."""
    import difflib

    known = story_rows.story_ids(conn)
    prefix, _, number = story_id.rpartition("-")
    if prefix and number.isdigit():
        near = []
        for k in known:
            kp, _, kn = k.rpartition("-")
            if kp.lower() == prefix.lower() and kn.isdigit():
                near.append((abs(int(kn) - int(number)), int(kn), k))
        if near:
            return [k for *_, k in sorted(near)[:n]]
    scored = []
    for k in known:
        ratio = difflib.SequenceMatcher(None, story_id.lower(), k.lower()).ratio()
        if ratio >= 0.5:
            scored.append((-ratio, k))
    return [k for _, k in sorted(scored)[:n]]


def require_record(conn: sqlite3.Connection, story_id: str) -> sqlite3.Row:
    """The record, or a :class:`NotFound` that names the closest known ids."""
    from genesis_git.kernel.errors import NotFound

    row = get_record(conn, story_id)
    if row is not None:
        return row
    close = closest_ids(conn, story_id)
    if close:
        hint = "closest known: " + ", ".join(close)
    elif story_rows.any_story(conn):
        hint = "see `genesis story list`"
    else:
        hint = ("no stories yet: commit with the id in the subject, "
                "or run `genesis story rebuild` to read them from git log")
    raise NotFound(f"unknown story {story_id!r}", hint=hint)


def commit_links(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    return story_rows.commit_links(conn, story_id)


def record_dict(row: sqlite3.Row) -> dict[str, Any]:
    keys = ("story_id", "title", "status", "baseline_commit_sha", "project_id",
            "created_at", "updated_at", "created_by", "updated_by")
    return {k: row[k] for k in keys}


def list_records(conn: sqlite3.Connection, status: str | None = None) -> list[dict[str, Any]]:
    if status is not None:
        check_status(status)
    out = []
    for row in story_rows.records_with_counts(conn, status):
        item = record_dict(row)
        item["commits"] = row["commits"]
        item["artifacts"] = row["artifacts"]
        out.append(item)
    return out


def check_status(status: str) -> None:
    from genesis_git.kernel.errors import UsageError
    from genesis_git.kernel.vocabulary import STORY_STATUSES

    if status not in STORY_STATUSES:
        raise UsageError(f"unknown status {status!r}",
                         hint="choose from " + ", ".join(STORY_STATUSES))


def check_link_type(link_type: str) -> None:
    from genesis_git.kernel.errors import UsageError
    from genesis_git.kernel.vocabulary import LINK_TYPES

    if link_type not in LINK_TYPES:
        raise UsageError(f"unknown link type {link_type!r}",
                         hint="choose from " + ", ".join(LINK_TYPES))


# -- commands --------------------------------------------------------------------

def set_record(conn: sqlite3.Connection, project_id: str, story_id: str, *,
               status: str | None = None, title: str | None = None,
               by: str | None = None) -> tuple[dict[str, Any], bool]:
    """Change status and/or title; a missing story is created (status ``draft``)."""
    from genesis_git.kernel.errors import UsageError

    if status is None and title is None:
        raise UsageError("nothing to set", hint="give --status and/or --title")
    if status is not None:
        check_status(status)
    if not story_id.strip():
        raise UsageError("the story id is empty")
    with immediate(conn):
        created = ensure_record(conn, story_id=story_id, project_id=project_id, title=title,
                                status=status or STATUS_DRAFT, by=by)
        if not created:
            story_rows.set_status_and_title(conn, story_id, status, title)
            if title is not None:
                outbox.emit(conn, "story.title", {"title": title}, story_id=story_id)
            if status is not None:
                outbox.emit(conn, "story.status", {"status": status}, story_id=story_id)
        touch(conn, story_id, by)
    row = get_record(conn, story_id)
    assert row is not None
    return record_dict(row), created


def story_texts(conn: sqlite3.Connection) -> list[tuple[str, str, list[str]]]:
    """``(story_id, text, paths)`` for every story: the text is the title, commit subjects and
    artifact summaries; the paths are every path the story's artifacts name."""
    out: list[tuple[str, str, list[str]]] = []
    for rec in story_rows.titles(conn):
        sid = rec["story_id"]
        parts = [rec["title"] or ""]
        for link in commit_links(conn, sid):
            parts.append(link["description"] or "")
        paths: dict[str, None] = {}
        for art in story_rows.artifact_texts(conn, sid):
            if art["summary"] and art["source_ref"] != COMMIT_SOURCE:
                parts.append(art["summary"])
            if art["path"]:
                paths.setdefault(art["path"], None)
        out.append((sid, "\n".join(p for p in parts if p), list(paths)))
    return out


def show_record(conn: sqlite3.Connection, story_id: str) -> dict[str, Any]:
    """The record with counts of its commits, touched files, artifacts by role, and links."""
    row = require_record(conn, story_id)
    out = record_dict(row)
    out["commits"] = len(commit_links(conn, story_id))
    out["files_touched"] = story_rows.files_touched(conn, story_id, COMMIT_SOURCE)
    counts = story_rows.role_counts(conn, story_id, COMMIT_SOURCE)
    out["artifacts"] = {role: counts[role] for role in ROLE_ORDER if role in counts}
    out["links"] = [{"type": r["link_type"], "target": r["target_ref"],
                     "description": r["description"]}
                    for r in story_rows.other_links(conn, story_id)]
    return out
