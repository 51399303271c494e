"""The story tables: records, artifacts and links (seed 002 §2, §5).

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

import time

from genesis_git.kernel.base import Transaction
from genesis_git.kernel.vocabulary import LINK_COMMIT, ROLE_ORDER, STATUS_DRAFT, STATUS_IN_PROGRESS
from genesis_git.stories.ledger import outbox

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from genesis_git.stories.commits import GitRepo

COMMIT_SOURCE = "commit"


def now() -> str:
    """UTC, milliseconds, the format of the schema's defaults."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def immediate(conn: sqlite3.Connection) -> Transaction:
    """One write transaction (``BEGIN IMMEDIATE``): :class:`genesis_git.kernel.base.Transaction`."""
    return Transaction(conn)


# -- sessions (read side; the session module owns their life cycle) -----------

def active_session(conn: sqlite3.Connection, repo: GitRepo) -> sqlite3.Row | None:
    """The active session of this worktree (the hooks use this to stay free of the indexer)."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM sessions WHERE worktree=? AND status='active'", (str(repo.root),)
    ).fetchone()
    return row


def session_row(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM sessions WHERE id=?", (session_id,)).fetchone()
    return row


# -- writes --------------------------------------------------------------------

def ensure_record(conn: sqlite3.Connection, *, story_id: str, project_id: str,
                  title: str | None, status: str = STATUS_IN_PROGRESS, baseline: str | None = None,
                  by: str | None = None) -> bool:
    """Create the story if it is missing; fill an empty title.  True when it was created."""
    stamp = now()
    cur = conn.execute(
        "INSERT OR IGNORE INTO story_records(story_id, project_id, title, status, "
        "baseline_commit_sha, created_by, updated_by, created_at, updated_at) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        (story_id, project_id, title, status, baseline, by, by, stamp, stamp))
    if cur.rowcount:
        outbox.emit(conn, "story.created", {"title": title, "status": status,
                                            "project_id": project_id,
                                            "baseline_commit_sha": baseline,
                                            "created_by": by},
                    story_id=story_id, at=stamp)
        return True
    if title:
        cur = conn.execute("UPDATE story_records SET title=? WHERE story_id=? AND "
                           "(title IS NULL OR title='')", (title, story_id))
        if cur.rowcount:
            outbox.emit(conn, "story.title", {"title": title}, story_id=story_id)
    return False


def _move_status(conn: sqlite3.Connection, story_id: str, old: str, new: str) -> bool:
    """Status ``old`` becomes ``new`` (with its record); False when the story is not ``old``."""
    cur = conn.execute("UPDATE story_records SET status=? WHERE story_id=? AND status=?",
                       (new, story_id, old))
    if cur.rowcount:
        outbox.emit(conn, "story.status", {"status": new}, story_id=story_id)
    return bool(cur.rowcount)


def promote(conn: sqlite3.Connection, story_id: str) -> bool:
    """A ``draft`` story that gets a commit moves to ``in_progress``."""
    return _move_status(conn, story_id, STATUS_DRAFT, STATUS_IN_PROGRESS)


def touch(conn: sqlite3.Connection, story_id: str, by: str | None = None) -> None:
    """The story changed: ``updated_at``/``updated_by`` are those of its last shared record
    (what every clone's view shows), else now and ``by``."""
    import json

    at, who = now(), by
    row = conn.execute(
        "SELECT line FROM ledger_records WHERE story_id=? AND private=0 "
        "ORDER BY json_extract(line, '$.time') DESC, json_extract(line, '$.author_email') DESC, "
        "id DESC LIMIT 1", (story_id,)).fetchone()
    if row is not None:
        rec = json.loads(row[0])
        name, email = rec.get("author_name") or "", rec.get("author_email") or ""
        at = rec.get("time") or at
        who = f"{name} <{email}>" if name and email else (name or email or by)
    conn.execute("UPDATE story_records SET updated_at=?, updated_by=COALESCE(?, updated_by) "
                 "WHERE story_id=?", (at, who, story_id))


def add_link(conn: sqlite3.Connection, story_id: str, link_type: str, target: str,
             description: str | None = None, meta: dict[str, Any] | None = None, *,
             record: bool = True) -> bool:
    import json

    rid = outbox.new_id() if record else None
    stamp = now()  # the row's time is its record's, as in every other clone's view
    cur = conn.execute(
        "INSERT OR IGNORE INTO story_links(story_id, link_type, target_ref, description, meta, "
        "created_at, record_id) VALUES (?,?,?,?,?,?,?)",
        (story_id, link_type, target, description,
         json.dumps(meta, ensure_ascii=False) if meta is not None else None, stamp, rid))
    if cur.rowcount and rid:
        outbox.emit(conn, "link.added", {"link_type": link_type, "target": target,
                                         "description": description, "meta": meta},
                    story_id=story_id, rid=rid, at=stamp)
    return bool(cur.rowcount)


def add_artifact(conn: sqlite3.Connection, story_id: str, role: str, *,
                 doc_id: str | None = None, doc_version: str | None = None,
                 path: str | None = None, section: str | None = None,
                 chunk_id: str | None = None, change_type: str | None = None,
                 summary: str | None = None, source_ref: str | None = None,
                 created_by: str | None = None, created_at: str | None = None,
                 note_id: str | None = None, private: bool = False,
                 record: bool = True) -> bool:
    """Add an artifact; its record is ``private`` when it comes from a private note."""
    rid = outbox.new_id() if record else None
    created_at = created_at or now()
    created_by = created_by or (outbox.author_text(conn) if record else None)
    cur = conn.execute(
        "INSERT OR IGNORE INTO story_artifacts(story_id, artifact_role, doc_id, doc_version, "
        "path, section, chunk_id, change_type, summary, source_ref, created_by, created_at, "
        "record_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (story_id, role, doc_id, doc_version, path, section, chunk_id, change_type, summary,
         source_ref, created_by, created_at, rid))
    if cur.rowcount and rid:
        outbox.emit(conn, "artifact.added", {
            "role": role, "content": summary, "path": path, "section": section,
            "doc_id": doc_id, "doc_version": doc_version, "chunk_id": chunk_id,
            "change_type": change_type, "source_ref": source_ref,
            "source_session": None if source_ref == COMMIT_SOURCE else source_ref,
            "note_id": note_id, "created_at": created_at, "created_by": created_by},
            story_id=story_id, rid=rid, private=private)
    return bool(cur.rowcount)


def drop_commit(conn: sqlite3.Connection, sha: str, *, record: bool = True,
                stories: dict[str, None] | None = None) -> int:
    """Forget a commit: its links and its changed-file artifacts.  Returns rows removed.
    ``record=False`` forgets it in this clone only (the shared ledger keeps the link);
    ``stories`` collects the stories that linked it."""
    linked = [r[0] for r in conn.execute("SELECT story_id FROM story_links WHERE "
                                         "link_type='commit' AND target_ref=?", (sha,))]
    if stories is not None:
        stories.update(dict.fromkeys(linked))
    if record:
        for story_id in linked:
            outbox.emit(conn, "link.removed", {"link_type": LINK_COMMIT, "target": sha},
                        story_id=story_id)
    n = conn.execute("DELETE FROM story_links WHERE link_type='commit' AND target_ref=?",
                     (sha,)).rowcount
    n += conn.execute("DELETE FROM story_artifacts WHERE doc_id=? AND source_ref=?",
                      (sha, COMMIT_SOURCE)).rowcount
    return n


def set_baseline(conn: sqlite3.Connection, story_id: str, sha: str | None) -> bool:
    """Set the story's baseline commit (``story.baseline``); True when it changed."""
    cur = conn.execute("UPDATE story_records SET baseline_commit_sha=? WHERE story_id=? AND "
                       "baseline_commit_sha IS NOT ?", (sha, story_id, sha))
    if cur.rowcount:
        outbox.emit(conn, "story.baseline", {"baseline_commit_sha": sha}, story_id=story_id)
    return bool(cur.rowcount)


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
        found = conn.execute("SELECT line, private FROM ledger_records WHERE id=?",
                             (row["record_id"],)).fetchone()
        if found is not None:
            added = json.loads(found[0]).get("payload") or {}
            payload = {k: added.get(k) for k in _KEY_FIELDS}
            private = bool(found[1])
    if not payload:  # a row older than the records: its own columns are the key
        payload = {"role": row["artifact_role"], "doc_id": row["doc_id"], "path": row["path"],
                   "section": row["section"], "change_type": row["change_type"]}
    payload["record_id"] = row["record_id"]
    conn.execute("DELETE FROM story_artifacts WHERE id=?", (row["id"],))
    outbox.emit(conn, "artifact.removed", payload, story_id=row["story_id"], private=private)


def remove_story(conn: sqlite3.Connection, story_id: str) -> None:
    """Remove a story that holds nothing any more (``story.removed``)."""
    conn.execute("DELETE FROM story_records WHERE story_id=?", (story_id,))
    outbox.emit(conn, "story.removed", {}, story_id=story_id)


# -- reads ---------------------------------------------------------------------

def get_record(conn: sqlite3.Connection, story_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM story_records WHERE story_id=?", (story_id,)).fetchone()
    return row


def closest_ids(conn: sqlite3.Connection, story_id: str, n: int = 3) -> list[str]:
    """Known ids most like ``story_id``: with the same prefix (ignoring case), the nearest
    numbers first; else the most similar spelling.  Ties in id order."""
    import difflib

    known = [r[0] for r in conn.execute("SELECT story_id FROM story_records")]
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
    """The record, or a GenesisError that names the closest known ids."""
    from genesis_git.kernel.errors import GenesisError

    row = get_record(conn, story_id)
    if row is not None:
        return row
    close = closest_ids(conn, story_id)
    if close:
        hint = "closest known: " + ", ".join(close)
    elif conn.execute("SELECT 1 FROM story_records LIMIT 1").fetchone():
        hint = "see `genesis story list`"
    else:
        hint = ("no stories yet: commit with the id in the subject, "
                "or run `genesis story rebuild` to read them from git log")
    raise GenesisError(f"unknown story {story_id!r}", hint=hint)


def commit_links(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM story_links WHERE story_id=? AND link_type='commit' ORDER BY id",
        (story_id,)).fetchall()


def record_dict(row: sqlite3.Row) -> dict[str, Any]:
    keys = ("story_id", "title", "status", "baseline_commit_sha", "project_id",
            "created_at", "updated_at", "created_by", "updated_by")
    return {k: row[k] for k in keys}


def list_records(conn: sqlite3.Connection, status: str | None = None) -> list[dict[str, Any]]:
    if status is not None:
        check_status(status)
    sql = ("SELECT r.*, (SELECT COUNT(*) FROM story_links l WHERE l.story_id=r.story_id "
           "AND l.link_type='commit') AS commits, (SELECT COUNT(*) FROM story_artifacts a "
           "WHERE a.story_id=r.story_id AND COALESCE(a.source_ref,'')<>'commit') AS artifacts "
           "FROM story_records r")
    args: tuple[str, ...] = ()
    if status is not None:
        sql += " WHERE r.status=?"
        args = (status,)
    sql += " ORDER BY r.updated_at DESC, r.story_id"
    out = []
    for row in conn.execute(sql, args):
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
            conn.execute("UPDATE story_records SET status=COALESCE(?, status), "
                         "title=COALESCE(?, title) WHERE story_id=?", (status, title, story_id))
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
    records = conn.execute("SELECT story_id, title FROM story_records ORDER BY story_id").fetchall()
    for rec in records:
        sid = rec["story_id"]
        parts = [rec["title"] or ""]
        for link in commit_links(conn, sid):
            parts.append(link["description"] or "")
        paths: dict[str, None] = {}
        for art in conn.execute(
                "SELECT path, summary, source_ref FROM story_artifacts WHERE story_id=? "
                "ORDER BY id", (sid,)):
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
    out["files_touched"] = conn.execute(
        "SELECT COUNT(DISTINCT path) FROM story_artifacts WHERE story_id=? AND source_ref=?",
        (story_id, COMMIT_SOURCE)).fetchone()[0]
    counts = dict(conn.execute(
        "SELECT artifact_role, COUNT(*) FROM story_artifacts WHERE story_id=? AND "
        "COALESCE(source_ref,'')<>? GROUP BY artifact_role", (story_id, COMMIT_SOURCE)).fetchall())
    out["artifacts"] = {role: counts[role] for role in ROLE_ORDER if role in counts}
    out["links"] = [{"type": r["link_type"], "target": r["target_ref"],
                     "description": r["description"]}
                    for r in conn.execute("SELECT * FROM story_links WHERE story_id=? AND "
                                          "link_type<>'commit' ORDER BY id", (story_id,))]
    return out
