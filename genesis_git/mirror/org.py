"""Reading the mirror: the stories of every repository, each item marked with its project.

:func:`list_stories` and :func:`story_context` give the same shapes as the
local ``story list --json`` and ``story context --json``, with a ``project``
on every commit, file, artifact and link, and the story's ``projects``.
Files are netted per project (the same path in two repositories is two files).
"""

from __future__ import annotations

import difflib
from datetime import datetime, timezone
from typing import Any

from genesis_git.kernel.errors import NotFound, UsageError
from genesis_git.kernel.vocabulary import ROLE_ORDER
from genesis_git.mirror import schema

COMMIT_SOURCE = "commit"


def _iso(value: Any) -> str | None:
    """A timestamp as the local ledger shows it: UTC, milliseconds, ``Z``."""
    if value is None:
        return None
    if isinstance(value, datetime):
        utc = value.astimezone(timezone.utc)
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    return str(value)


def check_status(status: str | None) -> None:
    if status is not None and status not in schema.STORY_STATUSES:
        raise UsageError(f"unknown status {status!r}",
                         hint="choose from " + ", ".join(schema.STORY_STATUSES))


_LIST = """
WITH a AS (SELECT story_id,
                  count(*) FILTER (WHERE source_ref IS DISTINCT FROM 'commit') AS artifacts,
                  array_agg(DISTINCT project_id) FILTER (WHERE project_id IS NOT NULL) AS projects
           FROM story_artifacts GROUP BY story_id),
     l AS (SELECT story_id, count(*) FILTER (WHERE link_type = 'commit') AS commits,
                  array_agg(DISTINCT project_id) FILTER (WHERE project_id IS NOT NULL) AS projects
           FROM story_links GROUP BY story_id)
SELECT r.story_id, r.title, r.status, r.baseline_commit_sha, r.project_id, r.created_at,
       r.updated_at, r.created_by, r.updated_by, COALESCE(l.commits, 0), COALESCE(a.artifacts, 0),
       a.projects, l.projects
FROM story_records r LEFT JOIN a USING (story_id) LEFT JOIN l USING (story_id)
WHERE (%(status)s::text IS NULL OR r.status = %(status)s)
  AND (%(project)s::text IS NULL OR r.project_id = %(project)s
       OR %(project)s = ANY(a.projects) OR %(project)s = ANY(l.projects))
ORDER BY r.updated_at DESC, r.story_id
"""

_RECORD_KEYS = ("story_id", "title", "status", "baseline_commit_sha", "project_id",
                "created_at", "updated_at", "created_by", "updated_by")


def _record(row: tuple[Any, ...]) -> dict[str, Any]:
    item = dict(zip(_RECORD_KEYS, row[:9], strict=True))
    for key in ("created_at", "updated_at"):
        item[key] = _iso(item[key])
    return item


def _projects(own: str | None, *groups: list[str] | None) -> list[str]:
    found = {own} if own else set()
    for group in groups:
        found.update(group or [])
    return sorted(found)


def list_stories(conn: Any, *, status: str | None = None,
                 project: str | None = None) -> list[dict[str, Any]]:
    """Every story of the mirror, most recently updated first."""
    check_status(status)
    out = []
    for row in conn.execute(_LIST, {"status": status, "project": project}):
        item = _record(row)
        item["commits"], item["artifacts"] = int(row[9]), int(row[10])
        item["projects"] = _projects(row[4], row[11], row[12])
        out.append(item)
    return out


def _require(conn: Any, story_id: str) -> tuple[Any, ...]:
    row = conn.execute(f"SELECT {', '.join(_RECORD_KEYS)} FROM story_records WHERE story_id = %s",
                       (story_id,)).fetchone()
    if row is not None:
        return tuple(row)
    known = [r[0] for r in conn.execute(
        "SELECT story_id FROM story_records WHERE lower(story_id) LIKE lower(%s) LIMIT 2000",
        (story_id.split("-")[0] + "%",))]
    close = difflib.get_close_matches(story_id, known, n=3, cutoff=0.5)
    hint = ("closest known: " + ", ".join(close)) if close else "see `genesis story list --org`"
    raise NotFound(f"unknown story {story_id!r} in the mirror", hint=hint)


def _commits(conn: Any, story_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT l.project_id, l.target_ref, l.description, l.created_at, l.id, g.payload->'meta' "
        "FROM story_links l LEFT JOIN genesis_records g ON g.record_id = l.record_id "
        "WHERE l.story_id = %s AND l.link_type = 'commit'", (story_id,)).fetchall()
    from genesis_git.stories.context import SKEW, in_history

    by_key: dict[str, dict[str, Any]] = {}
    order: dict[str, tuple[Any, ...]] = {}
    parents: dict[str, list[str]] = {}
    for project, sha, description, created, row_id, meta in rows:
        meta = meta if isinstance(meta, dict) else {}
        key = f"{project}\0{sha}"
        by_key[key] = {"project": project, "sha": sha, "short": sha[:10],
                       "date": meta.get("date"), "author": meta.get("author"),
                       "subject": meta.get("subject", description)}
        order[key] = (int(meta.get("committed") or 0), created, row_id)
        parents[key] = [f"{project}\0{p}" for p in meta.get("parents") or []
                        if isinstance(p, str)]
    if len(order) > 1:  # other stories' commits of the same projects may lie between them
        times = [o[0] for o in order.values()]
        projects = sorted({key.partition("\0")[0] for key in order})
        parents = {**_commit_graph(conn, projects, min(times) - SKEW, max(times) + SKEW),
                   **parents}
    return [by_key[key] for key in in_history(order, parents)]


def _commit_graph(conn: Any, projects: list[str], since: int, until: int
                  ) -> dict[str, list[str]]:
    """The parents of every commit that any story of ``projects`` links, made from ``since``
    to ``until`` (a commit of unknown time counts too), keyed ``project NUL sha``: the
    mirror's :func:`genesis_git.store.stories.commit_graph`."""
    out: dict[str, list[str]] = {}
    for project, sha, parents in conn.execute(
            "SELECT l.project_id, l.target_ref, g.payload->'meta'->'parents' "
            "FROM story_links l JOIN genesis_records g ON g.record_id = l.record_id "
            "WHERE l.link_type = 'commit' AND l.project_id = ANY(%s) "
            "AND jsonb_typeof(g.payload->'meta') = 'object' "
            "AND COALESCE(CASE WHEN g.payload->'meta'->>'committed' ~ '^[0-9]{1,15}$' "
            "THEN (g.payload->'meta'->>'committed')::bigint END, %s) BETWEEN %s AND %s",
            (projects, since, since, until)).fetchall():
        if isinstance(parents, list):
            out[f"{project}\0{sha}"] = [f"{project}\0{p}" for p in parents
                                         if isinstance(p, str)]
    return out


def _net(changes: list[tuple[str, str]]) -> list[dict[str, str]]:
    from genesis_git.stories.context import net_files

    return net_files(changes)


def _files(conn: Any, story_id: str, commits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    order = {(c["project"], c["sha"]): i for i, c in enumerate(commits)}
    rows = conn.execute(
        "SELECT project_id, doc_id, path, change_type, created_at, id FROM story_artifacts "
        "WHERE story_id = %s AND source_ref = %s AND path IS NOT NULL",
        (story_id, COMMIT_SOURCE)).fetchall()
    rows.sort(key=lambda r: (order.get((r[0], r[1]), len(order)), r[4], r[5]))
    by_project: dict[str, list[tuple[str, str]]] = {}
    for project, _doc, path, change, _at, _id in rows:
        by_project.setdefault(project or "", []).append((path, change or "updated"))
    out = []
    for project in sorted(by_project):
        out += [{"project": project or None, **f} for f in _net(by_project[project])]
    return out


def _artifacts(conn: Any, story_id: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {role: [] for role in ROLE_ORDER}
    for row in conn.execute(
            "SELECT id, project_id, artifact_role, summary, path, section, doc_id, doc_version, "
            "change_type, source_ref, created_at, created_by, record_id FROM story_artifacts "
            "WHERE story_id = %s AND source_ref IS DISTINCT FROM %s ORDER BY created_at, id",
            (story_id, COMMIT_SOURCE)):
        (row_id, project, role, summary, path, section, doc_id, doc_version, change, source,
         created, by, record_id) = row
        groups.setdefault(role, []).append({
            "id": row_id, "project": project, "summary": summary, "path": path,
            "section": section, "doc_id": doc_id, "doc_version": doc_version,
            "change_type": change, "source_ref": source, "created_at": _iso(created),
            "created_by": by, "record_id": record_id})
    return {role: items for role, items in groups.items() if items}


def _links(conn: Any, story_id: str) -> list[dict[str, Any]]:
    return [{"project": project, "type": kind, "target": target, "description": description,
             "created_at": _iso(created)}
            for project, kind, target, description, created in conn.execute(
                "SELECT project_id, link_type, target_ref, description, created_at "
                "FROM story_links WHERE story_id = %s AND link_type <> 'commit' "
                "ORDER BY created_at, id", (story_id,))]


def story_context(conn: Any, story_id: str) -> dict[str, Any]:
    """The whole story from every repository: the shape of ``story context --json`` plus
    ``project`` on each item and the story's ``projects``."""
    record = _record(_require(conn, story_id))
    commits = _commits(conn, story_id)
    ctx: dict[str, Any] = {
        "story": record,
        "commits": commits,
        "files": _files(conn, story_id, commits),
        "artifacts": _artifacts(conn, story_id),
        "links": _links(conn, story_id),
        "notes": [],
    }
    groups = [[c["project"] for c in commits], [f["project"] for f in ctx["files"]],
              [lk["project"] for lk in ctx["links"]]]
    groups += [[a["project"] for a in items] for items in ctx["artifacts"].values()]
    record["projects"] = _projects(record["project_id"], *groups)
    return ctx
