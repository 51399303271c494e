"""``story_records``, ``story_artifacts`` and ``story_links``: every statement on the stories.

Every insert is ``INSERT OR IGNORE`` against the unique indexes of the schema,
so writing the same fact twice adds nothing; a write returns the rows it
changed.  Callers write inside their own transaction; nothing here begins one.
The git hooks use this module, so it imports only the standard library.
"""

from __future__ import annotations

from genesis_git.store.blobs import parts

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any


# -- story_records ------------------------------------------------------------------------

def record(conn: sqlite3.Connection, story_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM story_records WHERE story_id=?", (story_id,)).fetchone()
    return row


def story_ids(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT story_id FROM story_records")]


def any_story(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM story_records LIMIT 1").fetchone() is not None


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM story_records").fetchone()[0])


def titles(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """``(story_id, title)`` of every story, in id order."""
    return conn.execute("SELECT story_id, title FROM story_records ORDER BY story_id").fetchall()


def records_with_counts(conn: sqlite3.Connection, status: str | None = None
                        ) -> list[sqlite3.Row]:
    """Every story (with ``status``), with the counts of its ``commits`` and of its other
    ``artifacts``; the last updated first."""
    sql = ("SELECT r.*, (SELECT COUNT(*) FROM story_links l WHERE l.story_id=r.story_id "
           "AND l.link_type='commit') AS commits, (SELECT COUNT(*) FROM story_artifacts a "
           "WHERE a.story_id=r.story_id AND COALESCE(a.source_ref,'')<>'commit') AS artifacts "
           "FROM story_records r")
    args: tuple[str, ...] = ()
    if status is not None:
        sql += " WHERE r.status=?"
        args = (status,)
    sql += " ORDER BY r.updated_at DESC, r.story_id"
    return conn.execute(sql, args).fetchall()


def add_record(conn: sqlite3.Connection, story_id: str, project_id: str, title: str | None,
               status: str, baseline: str | None, by: str | None, at: str) -> int:
    """A new story, created and updated ``at`` by ``by``."""
    return int(conn.execute(
        "INSERT OR IGNORE INTO story_records(story_id, project_id, title, status, "
        "baseline_commit_sha, created_by, updated_by, created_at, updated_at) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        (story_id, project_id, title, status, baseline, by, by, at, at)).rowcount)


def add_records(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """New stories: ``(story_id, project_id, title, status, baseline_commit_sha, created_at,
    updated_at, created_by, updated_by)``."""
    conn.executemany(
        "INSERT OR IGNORE INTO story_records(story_id, project_id, title, status, "
        "baseline_commit_sha, created_at, updated_at, created_by, updated_by) "
        "VALUES (?,?,?,?,?,?,?,?,?)", rows)


def fill_title(conn: sqlite3.Connection, story_id: str, title: str) -> int:
    """Give a story without a title this one."""
    return int(conn.execute("UPDATE story_records SET title=? WHERE story_id=? AND "
                            "(title IS NULL OR title='')", (title, story_id)).rowcount)


def set_title(conn: sqlite3.Connection, story_id: str, title: str) -> int:
    return int(conn.execute("UPDATE story_records SET title=? WHERE story_id=? AND "
                            "COALESCE(title,'')<>?", (title, story_id, title)).rowcount)


def move_status(conn: sqlite3.Connection, story_id: str, old: str, new: str) -> int:
    """Status ``old`` becomes ``new``."""
    return int(conn.execute("UPDATE story_records SET status=? WHERE story_id=? AND status=?",
                            (new, story_id, old)).rowcount)


def set_status(conn: sqlite3.Connection, story_id: str, status: str) -> int:
    return int(conn.execute("UPDATE story_records SET status=? WHERE story_id=? "
                            "AND status<>?", (status, story_id, status)).rowcount)


def set_status_and_title(conn: sqlite3.Connection, story_id: str, status: str | None,
                         title: str | None) -> None:
    """Set either or both (``None`` keeps the one it has)."""
    conn.execute("UPDATE story_records SET status=COALESCE(?, status), "
                 "title=COALESCE(?, title) WHERE story_id=?", (status, title, story_id))


def set_baseline(conn: sqlite3.Connection, story_id: str, sha: str | None) -> int:
    return int(conn.execute("UPDATE story_records SET baseline_commit_sha=? WHERE story_id=? "
                            "AND baseline_commit_sha IS NOT ?", (sha, story_id, sha)).rowcount)


def reset_record(conn: sqlite3.Connection, story_id: str, title: str | None, status: str,
                 baseline: str | None, created_at: str | None, created_by: str | None) -> int:
    """Set all the fields that a story's creation sets."""
    return int(conn.execute(
        "UPDATE story_records SET title=?, status=?, baseline_commit_sha=?, created_at=?, "
        "created_by=? WHERE story_id=? AND (title, status, baseline_commit_sha, "
        "created_at, created_by) IS NOT (?,?,?,?,?)",
        (title, status, baseline, created_at, created_by, story_id, title, status, baseline,
         created_at, created_by)).rowcount)


def set_origin(conn: sqlite3.Connection, story_id: str, project_id: str | None,
               created_at: str | None, created_by: str | None) -> int:
    """Set who created the story, when and in which project (the ledger's first creation)."""
    return int(conn.execute(
        "UPDATE story_records SET project_id=COALESCE(?, project_id), created_at=?, "
        "created_by=? WHERE story_id=? AND (COALESCE(?, project_id), ?, ?) "
        "IS NOT (project_id, created_at, created_by)",
        (project_id, created_at, created_by, story_id, project_id, created_at,
         created_by)).rowcount)


def set_updated(conn: sqlite3.Connection, story_id: str, at: str, by: str | None) -> None:
    """The story changed ``at`` by ``by`` (``None`` keeps who it names)."""
    conn.execute("UPDATE story_records SET updated_at=?, updated_by=COALESCE(?, updated_by) "
                 "WHERE story_id=?", (at, by, story_id))


def advance_updated(conn: sqlite3.Connection, story_id: str, at: str | None,
                    by: str | None) -> None:
    """The story changed ``at`` by ``by``, unless it names a later change."""
    conn.execute("UPDATE story_records SET updated_at=?, updated_by=? WHERE story_id=? "
                 "AND updated_at<?", (at, by, story_id, at))


def delete_record(conn: sqlite3.Connection, story_id: str) -> int:
    return int(conn.execute("DELETE FROM story_records WHERE story_id=?",
                            (story_id,)).rowcount)


def delete_story(conn: sqlite3.Connection, story_id: str) -> int:
    """The story with its artifacts and links; returns the rows removed."""
    n = conn.execute("DELETE FROM story_artifacts WHERE story_id=?", (story_id,)).rowcount
    n += conn.execute("DELETE FROM story_links WHERE story_id=?", (story_id,)).rowcount
    return n + delete_record(conn, story_id)


def _present(conn: sqlite3.Connection, table: str, column: str,
             values: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for part in parts(values):
        found.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN "
            f"({','.join('?' * len(part))})", list(part)))
    return found


def existing(conn: sqlite3.Connection, story_ids: Sequence[str]) -> set[str]:
    """The stories of ``story_ids`` that have a record."""
    return _present(conn, "story_records", "story_id", story_ids)


def with_artifacts(conn: sqlite3.Connection, story_ids: Sequence[str]) -> set[str]:
    """The stories of ``story_ids`` that hold an artifact."""
    return _present(conn, "story_artifacts", "story_id", story_ids)


def held(conn: sqlite3.Connection, story_id: str) -> int:
    """The artifacts and links the story holds."""
    return int(conn.execute(
        "SELECT (SELECT COUNT(*) FROM story_artifacts WHERE story_id=?) + "
        "(SELECT COUNT(*) FROM story_links WHERE story_id=?)", (story_id, story_id)).fetchone()[0])


# -- story_links ---------------------------------------------------------------------------

_ADD_LINK = ("INSERT OR IGNORE INTO story_links(story_id, link_type, target_ref, description, "
             "meta, created_at, record_id) VALUES (?,?,?,?,?,?,?)")


def add_link(conn: sqlite3.Connection, story_id: str, link_type: str, target: str,
             description: str | None, meta: str | None, created_at: str,
             record_id: str | None) -> int:
    return int(conn.execute(_ADD_LINK, (story_id, link_type, target, description, meta,
                                        created_at, record_id)).rowcount)


def add_links(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """Links: ``(story_id, link_type, target_ref, description, meta, created_at, record_id)``."""
    conn.executemany(_ADD_LINK, rows)


def commit_links(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM story_links WHERE story_id=? AND link_type='commit' ORDER BY id",
        (story_id,)).fetchall()


def other_links(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    """The story's links that are not commits, in the order added."""
    return conn.execute("SELECT * FROM story_links WHERE story_id=? AND "
                        "link_type<>'commit' ORDER BY id", (story_id,)).fetchall()


def first_commit_meta(conn: sqlite3.Connection, story_id: str) -> tuple[str] | None:
    """``(meta,)`` of the story's earliest commit link, the same in every clone (not the
    order in which this clone learnt of the links): of the commits whose first parent is
    not one of the story's commits, the earliest committed, then the lowest SHA."""
    import json

    metas: dict[str, dict[str, Any]] = {}
    texts: dict[str, str] = {}
    for sha, text in conn.execute("SELECT target_ref, meta FROM story_links WHERE story_id=? "
                                  "AND link_type='commit' AND meta IS NOT NULL", (story_id,)):
        try:
            meta = json.loads(text)
        except ValueError:
            continue
        if isinstance(meta, dict):
            metas[sha], texts[sha] = meta, text
    if not metas:
        return None

    def first_parent(sha: str) -> str | None:
        parents = metas[sha].get("parents") or [None]
        return parents[0] if isinstance(parents, list) else None

    roots = [sha for sha in metas if first_parent(sha) not in metas] or list(metas)

    def when(sha: str) -> tuple[int, str, str]:
        committed = metas[sha].get("committed")
        return (committed if isinstance(committed, int) else 0,
                str(metas[sha].get("date") or ""), sha)

    return (texts[min(roots, key=when)],)


def commit_graph(conn: sqlite3.Connection, since: int, until: int) -> dict[str, list[str]]:
    """The parents of every commit some story links that was made from ``since`` to
    ``until`` (in seconds; a commit of unknown time counts too)."""
    import json

    out: dict[str, list[str]] = {}
    for sha, text in conn.execute(
            "SELECT target_ref, meta FROM story_links WHERE link_type='commit' AND "
            "meta IS NOT NULL AND COALESCE(CASE WHEN json_valid(meta) THEN "
            "json_extract(meta, '$.committed') END, ?) BETWEEN ? AND ?",
            (since, since, until)):
        try:
            parents = json.loads(text).get("parents")
        except (ValueError, AttributeError):  # not JSON, or not an object
            continue
        out[sha] = [p for p in parents if isinstance(p, str)] if isinstance(parents, list) else []
    return out


def linking(conn: sqlite3.Connection, sha: str) -> list[str]:
    """The stories that link commit ``sha``."""
    return [r[0] for r in conn.execute("SELECT story_id FROM story_links WHERE "
                                       "link_type='commit' AND target_ref=?", (sha,))]


def linked_commits(conn: sqlite3.Connection) -> list[str]:
    """Every commit a story links, once."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT target_ref FROM story_links WHERE link_type='commit'")]


def linked_among(conn: sqlite3.Connection, shas: Sequence[str]) -> set[str]:
    """The commits of ``shas`` that a story links (a few hundred at most)."""
    marks = ",".join("?" * len(shas))
    return {r[0] for r in conn.execute(
        "SELECT target_ref FROM story_links WHERE link_type='commit' AND target_ref IN "
        f"({marks})", list(shas))}


def delete_commit_links(conn: sqlite3.Connection, sha: str) -> int:
    return int(conn.execute("DELETE FROM story_links WHERE link_type='commit' AND target_ref=?",
                            (sha,)).rowcount)


def delete_link(conn: sqlite3.Connection, story_id: str, link_type: str, target: str) -> int:
    return int(conn.execute("DELETE FROM story_links WHERE story_id=? AND "
                            "link_type=? AND target_ref=?",
                            (story_id, link_type, target)).rowcount)


# -- story_artifacts -------------------------------------------------------------------------

def add_artifact(conn: sqlite3.Connection, story_id: str, role: str, doc_id: str | None,
                 doc_version: str | None, path: str | None, section: str | None,
                 chunk_id: str | None, change_type: str | None, summary: str | None,
                 source_ref: str | None, created_by: str | None, created_at: str,
                 record_id: str | None) -> int:
    return int(conn.execute(
        "INSERT OR IGNORE INTO story_artifacts(story_id, artifact_role, doc_id, doc_version, "
        "path, section, chunk_id, change_type, summary, source_ref, created_by, created_at, "
        "record_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (story_id, role, doc_id, doc_version, path, section, chunk_id, change_type, summary,
         source_ref, created_by, created_at, record_id)).rowcount)


def add_artifacts(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """Artifacts: ``(story_id, artifact_role, doc_id, doc_version, path, section, chunk_id,
    change_type, summary, source_ref, created_at, created_by, record_id)``."""
    conn.executemany(
        "INSERT OR IGNORE INTO story_artifacts(story_id, artifact_role, doc_id, "
        "doc_version, path, section, chunk_id, change_type, summary, source_ref, "
        "created_at, created_by, record_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)


def artifacts_of_doc(conn: sqlite3.Connection, doc_id: str) -> list[sqlite3.Row]:
    """The artifacts made from ``doc_id`` (a note's ``session-artifact:<id>``), in order."""
    return conn.execute("SELECT * FROM story_artifacts WHERE doc_id=? ORDER BY id",
                        (doc_id,)).fetchall()


def stories_of_doc(conn: sqlite3.Connection, doc_id: str) -> list[str]:
    """The stories that hold an artifact made from ``doc_id``, in id order."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT story_id FROM story_artifacts WHERE doc_id=? ORDER BY story_id",
        (doc_id,))]


def holds_note(conn: sqlite3.Connection, record_id: str) -> bool:
    """Whether a story holds the note of record ``record_id`` (written in any clone)."""
    return conn.execute(
        "SELECT 1 FROM story_artifacts WHERE doc_id=? OR (record_id=? AND doc_id LIKE "
        "'note:%')", (f"note:{record_id}", record_id)).fetchone() is not None


def artifact_texts(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    """``(path, summary, source_ref)`` of the story's artifacts, in order."""
    return conn.execute("SELECT path, summary, source_ref FROM story_artifacts WHERE story_id=? "
                        "ORDER BY id", (story_id,)).fetchall()


def recorded_artifacts(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    """``(id, record_id)`` of the story's artifacts that came with a record."""
    return conn.execute("SELECT id, record_id FROM story_artifacts WHERE story_id=? AND "
                        "record_id IS NOT NULL", (story_id,)).fetchall()


def commit_files(conn: sqlite3.Connection, story_id: str, source_ref: str) -> list[sqlite3.Row]:
    """``(doc_id, path, change_type, id)`` of the files the story's commits changed."""
    return conn.execute(
        "SELECT doc_id, path, change_type, id FROM story_artifacts WHERE story_id=? AND "
        "source_ref=? AND path IS NOT NULL", (story_id, source_ref)).fetchall()


def files_touched(conn: sqlite3.Connection, story_id: str, source_ref: str) -> int:
    return int(conn.execute(
        "SELECT COUNT(DISTINCT path) FROM story_artifacts WHERE story_id=? AND source_ref=?",
        (story_id, source_ref)).fetchone()[0])


def role_counts(conn: sqlite3.Connection, story_id: str, source_ref: str) -> dict[str, int]:
    """The story's artifacts by role, those from ``source_ref`` left out."""
    return dict(conn.execute(
        "SELECT artifact_role, COUNT(*) FROM story_artifacts WHERE story_id=? AND "
        "COALESCE(source_ref,'')<>? GROUP BY artifact_role", (story_id, source_ref)).fetchall())


def shown_artifacts(conn: sqlite3.Connection, story_id: str,
                    source_ref: str) -> list[sqlite3.Row]:
    """The story's artifacts not from ``source_ref``, with ``record_private`` (the privacy
    of their record; ``NULL`` without one), oldest first."""
    return conn.execute(
        "SELECT a.*, r.private AS record_private FROM story_artifacts a "
        "LEFT JOIN ledger_records r ON r.id = a.record_id "
        "WHERE a.story_id=? AND COALESCE(a.source_ref,'')<>? "
        "ORDER BY a.created_at, a.id", (story_id, source_ref)).fetchall()


def requirements_from(conn: sqlite3.Connection, source_ref: str,
                      story_id: str) -> list[sqlite3.Row]:
    """The story's requirements that came from ``source_ref`` (a session)."""
    return conn.execute(
        "SELECT * FROM story_artifacts WHERE artifact_role='requirement' AND "
        "source_ref=? AND story_id=?", (source_ref, story_id)).fetchall()


def shared_requirements(conn: sqlite3.Connection, story_id: str) -> list[sqlite3.Row]:
    """The story's requirements that another story holds too (same document and source)."""
    return conn.execute(
        "SELECT * FROM story_artifacts WHERE story_id=? AND artifact_role='requirement' "
        "AND EXISTS (SELECT 1 FROM story_artifacts o WHERE o.story_id<>? AND "
        "o.artifact_role='requirement' AND o.doc_id IS story_artifacts.doc_id AND "
        "o.source_ref IS story_artifacts.source_ref)", (story_id, story_id)).fetchall()


def delete_artifact(conn: sqlite3.Connection, artifact_id: int) -> None:
    conn.execute("DELETE FROM story_artifacts WHERE id=?", (artifact_id,))


def delete_artifacts(conn: sqlite3.Connection, artifact_ids: Sequence[int]) -> None:
    for part in parts(artifact_ids):
        conn.execute(f"DELETE FROM story_artifacts WHERE id IN ({','.join('?' * len(part))})",
                     part)


def delete_commit_artifacts(conn: sqlite3.Connection, sha: str, source_ref: str) -> int:
    """The files commit ``sha`` changed, in every story."""
    return int(conn.execute("DELETE FROM story_artifacts WHERE doc_id=? AND source_ref=?",
                            (sha, source_ref)).rowcount)


def delete_story_commit_files(conn: sqlite3.Connection, story_id: str, sha: str) -> None:
    """The files commit ``sha`` changed, in one story."""
    conn.execute("DELETE FROM story_artifacts WHERE story_id=? AND doc_id=? AND "
                 "source_ref='commit'", (story_id, sha))

