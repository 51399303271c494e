"""Writing ledger records into the mirror: idempotent, concurrent, one transaction per batch.

1. Ask the mirror which of the records it already holds (one query); only the
   others are sent.  With nothing new, that is all a mirror run costs.
2. Each batch (:data:`BATCH` records, sorted by id) is one transaction:
   the records go into ``genesis_records`` with ``ON CONFLICT DO NOTHING``;
   the stories they touch are locked (advisory locks, in story-id order, so
   that concurrent mirrors never deadlock each other), and each story's rows
   in ``story_records``, ``story_artifacts`` and ``story_links`` are made
   equal to the fold of *all* its records in the mirror, from every
   repository, by the git ledger's own :func:`~genesis_git.stories.ledger.records.fold`.
   A story's title and status therefore follow the same last-writer rule as
   in every clone, whatever the order in which clones mirrored; an artifact
   that moved to another story or was retracted leaves, and a story that a
   ``story.removed`` left with nothing is deleted.
3. Session notes that no story holds yet go to ``session_artifacts``.

Rows are written with their record's id and the mirroring repository's
``project_id``.  A failure rolls the current batch back whole; batches already
committed stay (they are complete on their own), and the next run sends only
what is missing.  A record whose values the seed's constraints would refuse
(an unknown status, role or link type, from a newer genesis) is kept in
``genesis_records`` but not folded into the seed's tables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from genesis_git.mirror import schema

BATCH = 2000
RETRIES = 5
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)$")
_STORY_LOCK = "genesis-story:"


@dataclass
class PushResult:
    records: int = 0  # records of the local ledger
    sent: int = 0  # of those, not yet in the mirror
    added: int = 0  # rows added to genesis_records (fewer than sent when another clone won)
    batches: int = 0
    stories: list[str] = field(default_factory=list)  # stories whose rows were recomputed
    notes: int = 0  # session notes added

    def as_dict(self) -> dict[str, Any]:
        return {"records": self.records, "sent": self.sent, "added": self.added,
                "batches": self.batches, "stories": len(self.stories), "notes": self.notes}


# -- values the seed's tables accept ------------------------------------------------

def _clean(value: Any) -> Any:
    """PostgreSQL text holds no NUL character: drop it wherever it is."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return _clean(str(value))


def _time(value: Any, fallback: str) -> str:
    return value if isinstance(value, str) and _TIME.match(value) else fallback


def _foldable(rec: Any) -> Any | None:
    """``rec`` as the fold should see it, or ``None`` when the seed's constraints forbid it."""
    p = rec.payload
    if rec.kind == "story.created":
        if p.get("status") and p["status"] not in schema.STORY_STATUSES:
            return replace(rec, payload={k: v for k, v in p.items() if k != "status"})
    elif rec.kind == "story.status":
        if p.get("status") not in schema.STORY_STATUSES:
            return None
    elif rec.kind == "artifact.added":
        if p.get("role") not in schema.STORY_ROLES:
            return None
        if p.get("change_type") not in (None, "", *schema.CHANGE_TYPES):
            return None
    elif rec.kind in ("link.added", "link.removed"):
        if p.get("link_type") not in schema.LINK_TYPES:
            return None
    return rec


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


# -- the mirror's side ------------------------------------------------------------------

def known_ids(conn: Any, ids: Sequence[str]) -> set[str]:
    """The ids among ``ids`` that the mirror already holds."""
    found: set[str] = set()
    for part in _chunks(list(ids), 50_000):
        # one text parameter: record ids hold no comma, and psycopg quotes every element
        # of a list with a regular expression
        found.update(r[0] for r in conn.execute(
            "SELECT record_id FROM genesis_records "
            "WHERE record_id = ANY(string_to_array(%s, ','))", (",".join(part),)))
    return found


_INSERT_RECORDS = """
INSERT INTO genesis_records(record_id, project_id, kind, story_id, session_id,
                            author_name, author_email, record_time, payload)
SELECT r, %s, k, s, ss, an, ae, t, p::jsonb
FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
            %s::text[], %s::text[]) AS u(r, k, s, ss, an, ae, t, p)
ORDER BY r
ON CONFLICT (record_id) DO NOTHING
RETURNING record_id
"""


def _insert_records(conn: Any, project: str, recs: Sequence[Any]) -> set[str]:
    cols: list[list[Any]] = [[], [], [], [], [], [], [], []]
    for r in recs:
        for col, value in zip(cols, (r.id, r.kind, r.story_id, r.session_id, r.author_name,
                                     r.author_email, r.time,
                                     json.dumps(_clean(r.payload), ensure_ascii=False)),
                              strict=True):
            col.append(_clean(value))
    return {row[0] for row in conn.execute(_INSERT_RECORDS, (project, *cols), binary=True)}


def _stored_form(rec: Any) -> Any:
    """``rec`` as the mirror stores it (no NUL character anywhere)."""
    return replace(rec, **{k: _clean(getattr(rec, k)) for k in (
        "story_id", "session_id", "author_name", "author_email", "time", "payload")})


def _lock_stories(conn: Any, story_ids: Sequence[str]) -> None:
    conn.execute(
        "SELECT pg_advisory_xact_lock(h) FROM (SELECT hashtextextended(%s || s, 0) AS h "
        "FROM unnest(%s::text[]) AS s ORDER BY s) AS q", (_STORY_LOCK, list(story_ids)))


def _stored_records(conn: Any, story_ids: Sequence[str], *, besides: Sequence[Any] = (),
                    project: str = "") -> tuple[list[Any], dict[str, str]]:
    """The records of ``story_ids`` in the mirror.  ``besides`` (records this transaction
    has just written, for ``project``) are taken as they are instead of being read back."""
    from genesis_git.stories.ledger.records import Record

    recs: list[Any] = list(besides)
    project_of: dict[str, str] = {r.id: project for r in besides}
    for row in conn.execute(
            "SELECT record_id, project_id, kind, story_id, session_id, author_name, "
            "author_email, record_time, payload FROM genesis_records g "
            "WHERE story_id = ANY(%s) AND NOT EXISTS "
            "(SELECT 1 FROM unnest(%s::text[]) AS k(id) WHERE k.id = g.record_id)",
            (list(story_ids), [r.id for r in besides]), binary=True):
        rid, project_id, kind, sid, session, name, email, at, payload = row
        project_of[rid] = project_id
        recs.append(Record(id=rid, kind=kind, story_id=sid, session_id=session,
                           author_name=name, author_email=email, time=at,
                           payload=payload if isinstance(payload, dict) else {}))
    return recs, project_of


def _story_projects(recs: list[Any], project_of: dict[str, str]) -> dict[str, str]:
    """``story_id -> project`` of its earliest ``story.created`` record (else its earliest)."""
    best: dict[str, tuple[bool, tuple[str, str, str], str]] = {}
    for r in recs:
        key = (r.kind != "story.created", r.order(), r.id)
        old = best.get(r.story_id)
        if old is None or key < old:
            best[r.story_id] = key
    return {sid: project_of[key[2]] for sid, key in best.items()}


_UPSERT_STORIES = """
INSERT INTO story_records AS s (story_id, project_id, title, status, baseline_commit_sha,
                                created_at, updated_at, created_by, updated_by)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::timestamptz[], %s::timestamptz[], %s::text[], %s::text[])
ON CONFLICT (story_id) DO UPDATE SET
    project_id = EXCLUDED.project_id, title = EXCLUDED.title, status = EXCLUDED.status,
    baseline_commit_sha = EXCLUDED.baseline_commit_sha, created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, created_by = EXCLUDED.created_by,
    updated_by = EXCLUDED.updated_by
WHERE (s.project_id, s.title, s.status, s.baseline_commit_sha, s.created_at, s.updated_at,
       s.created_by, s.updated_by)
      IS DISTINCT FROM
      (EXCLUDED.project_id, EXCLUDED.title, EXCLUDED.status, EXCLUDED.baseline_commit_sha,
       EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.created_by, EXCLUDED.updated_by)
"""

_INSERT_ARTIFACTS = """
INSERT INTO story_artifacts(record_id, project_id, story_id, artifact_role, doc_id, doc_version,
                            path, section, chunk_id, change_type, summary, source_ref,
                            created_at, created_by)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::timestamptz[], %s::text[])
ON CONFLICT (record_id) DO NOTHING
"""

_INSERT_LINKS = """
INSERT INTO story_links(record_id, project_id, story_id, link_type, target_ref, description,
                        created_at)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::timestamptz[])
ON CONFLICT (record_id) DO NOTHING
"""


# rows of these stories that genesis wrote and the fold no longer holds (an anti-join, so
# that it stays linear in the story's rows)
_DELETE_STALE = """
DELETE FROM {table} t
WHERE t.story_id = ANY(%s) AND t.record_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM unnest(%s::text[]) AS k(id) WHERE k.id = t.record_id)
"""


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    cols: list[list[Any]] = [[] for _ in range(width)]
    for row in rows:
        for col, value in zip(cols, row, strict=True):
            col.append(value)
    return cols


def refold(conn: Any, story_ids: Sequence[str], *, written: Sequence[Any] = (),
           project: str = "") -> None:
    """Make the seed's rows of ``story_ids`` the fold of all their records in the mirror.

    Runs inside the caller's transaction; takes the stories' advisory locks.
    """
    from genesis_git.stories.ledger.records import fold

    ids = sorted(set(story_ids))
    if not ids:
        return
    _lock_stories(conn, ids)
    recs, project_of = _stored_records(
        conn, ids, besides=[_stored_form(r) for r in written if r.story_id], project=project)
    states = fold(f for f in (_foldable(r) for r in recs) if f is not None)
    story_project = _story_projects(recs, project_of)
    stories: list[tuple[Any, ...]] = []
    artifacts: list[tuple[Any, ...]] = []
    links: list[tuple[Any, ...]] = []
    ended = {r.story_id for r in recs if r.kind == "story.removed"}
    removed = [sid for sid in ids if sid not in states and sid in ended]
    if removed:  # left with nothing: the story goes, its rows with it (ON DELETE CASCADE)
        conn.execute("DELETE FROM story_records WHERE story_id = ANY(%s)", (removed,))
    for sid in ids:
        st = states.get(sid)
        if st is None:
            continue
        created = _time(st.created_at, "1970-01-01T00:00:00Z")
        stories.append((_clean(sid), story_project[sid], _text(st.title),
                        st.status, _text(st.baseline_commit_sha), created,
                        _time(st.updated_at, created), _text(st.created_by),
                        _text(st.updated_by)))
        for a in st.artifacts:
            rid = a["record_id"]
            artifacts.append((rid, project_of.get(rid), _clean(sid), a["role"],
                              _text(a.get("doc_id")), _text(a.get("doc_version")),
                              _text(a.get("path")), _text(a.get("section")),
                              _text(a.get("chunk_id")), _text(a.get("change_type")),
                              _text(a.get("content")), _text(a.get("source_ref")),
                              _time(a.get("created_at"), a["recorded_at"]),
                              _text(a.get("created_by"))))
        for lk in st.links:
            rid = lk["record_id"]
            links.append((rid, project_of.get(rid), _clean(sid), lk["link_type"],
                          _clean(str(lk["target"])), _text(lk.get("description")),
                          _time(lk.get("created_at"), created)))
    conn.execute(_UPSERT_STORIES, _columns(stories, 9), binary=True)
    keep_artifacts = [a[0] for a in artifacts]
    conn.execute(_DELETE_STALE.format(table="story_artifacts"), (ids, keep_artifacts), binary=True)
    conn.execute(_INSERT_ARTIFACTS, _columns(artifacts, 14), binary=True)
    keep_links = [lk[0] for lk in links]
    conn.execute(_DELETE_STALE.format(table="story_links"), (ids, keep_links), binary=True)
    conn.execute(_INSERT_LINKS, _columns(links, 7), binary=True)


_INSERT_NOTES = """
INSERT INTO session_artifacts(record_id, project_id, session_id, artifact_role, path, section,
                              summary, created_at, created_by)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::text[], %s::timestamptz[], %s::text[]) AS u(r, pr, ss, ro, pa, se, su, ca, cb)
WHERE NOT EXISTS (SELECT 1 FROM genesis_records g
                  WHERE g.kind = 'note.retracted' AND g.payload->>'note_id' = u.r)
ON CONFLICT (record_id) DO NOTHING
"""


def _session_notes(conn: Any, project: str, recs: Sequence[Any]) -> int:
    rows = []
    retracted = []
    for r in recs:
        p = r.payload
        if r.kind == "note.retracted" and p.get("note_id"):
            retracted.append(str(p["note_id"]))
        elif (r.kind == "note.written" and not r.story_id and r.session_id
              and p.get("role") in schema.SESSION_ROLES):
            rows.append((r.id, project, _clean(r.session_id), p["role"], _text(p.get("path")),
                         _text(p.get("section")), _text(p.get("content")),
                         _time(p.get("created_at"), r.time),
                         _text(p.get("created_by")) or _text(r.author)))
    added = 0
    if rows:
        added = conn.execute(_INSERT_NOTES, _columns(rows, 9), binary=True).rowcount or 0
    if retracted:
        conn.execute("DELETE FROM session_artifacts WHERE record_id = ANY(%s)", (retracted,))
    return added


# -- one run ----------------------------------------------------------------------------

def push(conn: Any, records: Iterable[Any], project: str, *,
         batch_size: int = BATCH) -> PushResult:
    """Mirror ``records`` (of the repository ``project``) into ``conn`` (autocommit mode)."""
    from genesis_git.mirror.connect import psycopg

    pg = psycopg()
    unique = sorted({r.id: r for r in records}.values(), key=lambda r: r.id)
    result = PushResult(records=len(unique))
    have = known_ids(conn, [r.id for r in unique])
    new = [r for r in unique if r.id not in have]
    result.sent = len(new)
    touched: set[str] = set()
    for batch in _chunks(new, max(1, batch_size)):
        for attempt in range(RETRIES):
            try:
                with conn.transaction():
                    added = _insert_records(conn, project, batch)
                    fresh = [r for r in batch if r.id in added]
                    stories = sorted({r.story_id for r in fresh if r.story_id})
                    refold(conn, stories, written=fresh, project=project)
                    notes = _session_notes(conn, project, fresh)
                break
            except (pg.errors.DeadlockDetected, pg.errors.SerializationFailure):
                if attempt == RETRIES - 1:
                    raise
        result.added += len(added)
        result.notes += notes
        result.batches += 1
        touched.update(stories)
    result.stories = sorted(touched)
    return result
