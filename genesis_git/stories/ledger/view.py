"""The store as the local view of the ledger refs.

* :func:`flush` writes the records this clone made (``ledger_records`` with
  ``in_ref = 0``, never a private one) into ``refs/genesis/ledger``.
* :func:`refresh` notices that a ledger ref moved (``genesis sync``, or a plain
  ``git fetch`` with the refspec that ``genesis hooks install`` adds), reads
  the records it does not know yet, and folds them into the story tables.  The
  check that nothing moved (:mod:`~genesis_git.stories.ledger.signature`) reads
  a few small files under the git dir and costs no git process, so every
  command can afford it.
* :func:`apply` folds every record of some stories into the story tables:
  title, status and baseline by last writer, links and artifacts by union (a
  link or an artifact whose last record removes it leaves, a link with the
  changed files of its commit), and a story that a ``story.removed`` left with
  nothing leaves too.

The view never writes records: what comes from the ledger is already there.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from genesis_git.kernel.transaction import Transaction
from genesis_git.kernel.vocabulary import (
    CHANGE_TYPES,
    LINK_COMMIT,
    LINK_TYPES,
    STATUS_DRAFT,
    STORY_ROLES,
    STORY_STATUSES,
)
from genesis_git.store import kv
from genesis_git.store import ledger as ledger_rows
from genesis_git.store import stories as story_rows
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import outbox
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger.records import Record, Warn
from genesis_git.stories.ledger.signature import SIG_KEY, signature

REFS_KEY = "refs"


def _kv(conn: sqlite3.Connection, key: str) -> str | None:
    return kv.get(conn, "ledger", key)


def _set_kv(conn: sqlite3.Connection, key: str, value: str) -> None:
    kv.put(conn, "ledger", key, value)


# -- records in the store --------------------------------------------------------------

def store_records(conn: sqlite3.Connection, recs: Sequence[Record],
                  lines: Sequence[str] | None = None, *, warn: Warn | None = None
                  ) -> list[Record]:
    """Save records read from a ledger ref (``lines``: their text, if at hand); returns
    the ones the store did not have, and those whose stored line lost to a conflicting
    duplicate (:func:`~genesis_git.stories.ledger.records.winner`, one warning).  Records
    the store had and had not yet written to the ref are marked written; this clone's
    clock moves past every record read."""
    texts: dict[str, str] = {}
    unique: dict[str, Record] = {}
    conflicts: list[str] = []
    for i, rec in enumerate(recs):
        line = lines[i] if lines is not None else rec.to_json()
        old = texts.get(rec.id)
        if old is not None and old != line:
            conflicts.append(rec.id)
            if R.winner(old.encode(), line.encode(), rec.id.encode()) == old.encode():
                continue
        texts[rec.id], unique[rec.id] = line, rec
    outbox.seen(conn, [r.hlc for r in unique.values() if r.hlc is not None])
    known = ledger_rows.lines_of(conn, list(unique))
    new = [r for r in unique.values() if r.id not in known]
    ledger_rows.add_from_ref(conn, [(r.id, r.kind, r.story_id, r.session_id, texts[r.id])
                                    for r in new])
    ledger_rows.mark_pending_in_ref(conn, [rid for rid in unique if rid in known])
    for rid, stored in known.items():
        line = texts[rid]
        if stored == line or json.loads(stored) == json.loads(line):
            continue
        conflicts.append(rid)
        if R.winner(stored.encode(), line.encode(), rid.encode()) != stored.encode():
            ledger_rows.replace_line(conn, rid, line)
            new.append(unique[rid])
    G.report_conflicts(conflicts, warn)
    return new


def _parse(line: str) -> Record | None:
    try:
        return Record.from_json(line)
    except ValueError:
        return None


def story_records(conn: sqlite3.Connection, story_ids: Sequence[str]) -> dict[str, list[Record]]:
    """Every record the store has of these stories, by story."""
    out: dict[str, list[Record]] = {}
    for sid, line in ledger_rows.story_lines(conn, story_ids):
        rec = _parse(line)
        if rec is not None:
            out.setdefault(sid, []).append(rec)
    return out


# -- the fold into the story tables -------------------------------------------------------

def _removed_links(recs: Sequence[Record]) -> list[tuple[str, str]]:
    last: dict[tuple[str, str], Record] = {}
    for rec in sorted(recs, key=Record.order):
        if rec.kind in ("link.added", "link.removed"):
            last[(str(rec.payload.get("link_type")), str(rec.payload.get("target")))] = rec
    return [key for key, rec in last.items() if rec.kind == "link.removed"]


def apply(conn: sqlite3.Connection, story_ids: Iterable[str], project_id: str, *,
          new: Sequence[Record] = ()) -> int:
    """Make the story tables of ``story_ids`` the fold of their records (inside the
    caller's transaction): a story the fold does not list leaves, an artifact the fold
    no longer holds leaves.  ``new``: records just stored, so that a story whose
    records are all new is folded without reading them back.  Returns the rows added,
    changed or removed."""
    sids = sorted(set(story_ids))
    fresh_by_story: dict[str, list[Record]] = {}
    for rec in new:
        if rec.story_id:
            fresh_by_story.setdefault(rec.story_id, []).append(rec)
    stored_counts = ledger_rows.story_counts(conn, sids)
    reread = [sid for sid in sids if stored_counts.get(sid, 0) != len(fresh_by_story.get(sid, []))]
    by_story = {sid: fresh_by_story.get(sid, []) for sid in sids}
    by_story.update(story_records(conn, reread))
    existing = story_rows.existing(conn, sids)
    with_artifacts = story_rows.with_artifacts(conn, sids)
    new_stories: list[tuple[Any, ...]] = []
    links: list[tuple[Any, ...]] = []
    artifacts: list[tuple[Any, ...]] = []
    changed = 0
    for sid in sids:
        recs = by_story.get(sid, [])
        state = R.fold(recs).get(sid)
        if state is None:
            if sid in existing and any(r.kind == "story.removed" for r in recs):
                changed += story_rows.delete_story(conn, sid)
            continue
        if sid not in existing:
            new_stories.append(_story_row(state, project_id))
        else:
            changed += _update_story(conn, state, {r.kind for r in recs})
            for link_type, target in _removed_links(recs):
                changed += story_rows.delete_link(conn, sid, link_type, target)
                if link_type == LINK_COMMIT:
                    story_rows.delete_story_commit_files(conn, sid, target)
        for link in state.links:
            if link["link_type"] not in LINK_TYPES:
                continue
            meta = link["meta"]
            links.append((sid, link["link_type"], link["target"], link["description"],
                          json.dumps(meta, ensure_ascii=False) if isinstance(meta, dict)
                          else None, link["created_at"], link["record_id"]))
        present: set[str] = set()
        if sid in with_artifacts:
            present, gone = _reconcile_artifacts(conn, sid, state, {r.id for r in recs})
            changed += gone
        for a in state.artifacts:
            if a["record_id"] in present or a["role"] not in STORY_ROLES:
                continue
            if a["change_type"] is not None and a["change_type"] not in CHANGE_TYPES:
                continue
            doc_id = a["doc_id"]
            if doc_id and str(doc_id).startswith("session-artifact:"):
                doc_id = f"note:{a['note_id'] or a['record_id']}"  # the local id means nothing here
            artifacts.append((sid, a["role"], doc_id, a["doc_version"], a["path"], a["section"],
                              a["chunk_id"], a["change_type"], a["content"], a["source_ref"],
                              a["created_at"], a["created_by"], a["record_id"]))
    before = conn.total_changes
    story_rows.add_records(conn, new_stories)
    story_rows.add_links(conn, links)
    story_rows.add_artifacts(conn, artifacts)
    return changed + conn.total_changes - before


def _status(state: R.StoryState) -> str:
    return state.status if state.status in STORY_STATUSES else STATUS_DRAFT


def _story_row(state: R.StoryState, project_id: str) -> tuple[Any, ...]:
    return (state.story_id, state.project_id or project_id, state.title, _status(state),
            state.baseline_commit_sha, state.created_at, state.updated_at, state.created_by,
            state.updated_by)


def _update_story(conn: sqlite3.Connection, state: R.StoryState, kinds: set[str]) -> int:
    """The fields of an existing story that its records decide."""
    sid, changed = state.story_id, 0
    if state.removed:  # the fields start again after a story.removed: take all of them
        changed += story_rows.reset_record(conn, sid, state.title, _status(state),
                                           state.baseline_commit_sha, state.created_at,
                                           state.created_by)
    else:
        if "story.created" in kinds:  # the first creation in the order, as in every clone
            changed += story_rows.set_origin(conn, sid, state.project_id, state.created_at,
                                             state.created_by)
        if state.title and kinds & {"story.title", "story.created"}:
            changed += story_rows.set_title(conn, sid, state.title)
        if kinds & {"story.status", "story.created"} and state.status in STORY_STATUSES:
            changed += story_rows.set_status(conn, sid, state.status)
        if "story.baseline" in kinds:
            changed += story_rows.set_baseline(conn, sid, state.baseline_commit_sha)
    if state.updated_at:  # the last record in the order, not the latest wall clock
        story_rows.set_updated(conn, sid, state.updated_at, state.updated_by)
    return changed


def _reconcile_artifacts(conn: sqlite3.Connection, sid: str, state: R.StoryState,
                         known: set[str]) -> tuple[set[str], int]:
    """Remove the story's artifacts whose record the fold no longer holds (moved,
    retracted, or a same key recorded earlier elsewhere); ``(records kept, rows removed)``.
    A row whose record the store does not know (none, or one lost with a damaged store)
    is left alone."""
    keep = {a["record_id"] for a in state.artifacts}
    rows = story_rows.recorded_artifacts(conn, sid)
    gone = [r[0] for r in rows if r[1] in known and r[1] not in keep]
    story_rows.delete_artifacts(conn, gone)
    return {r[1] for r in rows if r[1] in keep}, len(gone)


# -- moving records between the store and git -------------------------------------------

def pending(conn: sqlite3.Connection) -> list[Record]:
    """The records of this clone that are not in the ledger ref yet (never private ones)."""
    return [Record.from_json(line) for line in ledger_rows.pending_lines(conn)]


def flush(conn: sqlite3.Connection, root: str | Path) -> int:
    """Write the pending records into ``refs/genesis/ledger``; returns how many."""
    recs = pending(conn)
    if not recs:
        return 0
    G.append_records(root, recs)
    return mark_written(conn, [r.id for r in recs])


def mark_written(conn: sqlite3.Connection, ids: Sequence[str]) -> int:
    """Note that these records are in the ledger ref now; returns how many."""
    if not ids:
        return 0
    with Transaction(conn):
        ledger_rows.mark_in_ref(conn, ids)
    return len(ids)


def _changed_paths(root: str | Path, old: str, new: str) -> list[str] | None:
    out = G.git(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new,
                check=False)
    if not out and G.resolve(root, old) is None:
        return None  # the old commit is gone: read everything
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def refresh(conn: sqlite3.Connection, root: str | Path, common_dir: str | Path,
            project_id: str, *, warn: Warn | None = None, force: bool = False) -> dict[str, Any]:
    """Bring the view up to date with the ledger refs.  Cheap when nothing moved."""
    sig = signature(common_dir)
    if not force and sig and _kv(conn, SIG_KEY) == sig:
        return {"imported": 0, "stories": []}
    refs = dict(G.ledger_refs(root))
    seen: dict[str, str] = json.loads(_kv(conn, REFS_KEY) or "{}") if not force else {}
    known = set(seen.values())  # commits whose records are all in the store
    found: list[Record] = []
    lines: list[str] = []
    for name, sha in refs.items():
        if seen.get(name) == sha or sha in known:
            continue
        parents = G.git(root, "rev-list", "--parents", "-n", "1", sha,
                        check=False).decode().split()[1:]
        if len(parents) > 1 and all(p in known for p in parents):
            known.add(sha)  # a merge of two ledgers already read: nothing new in it
            continue
        base = parents[0] if len(parents) == 1 and parents[0] in known else seen.get(name)
        paths = _changed_paths(root, base, sha) if base else None
        recs = G.commit_records(root, sha, paths=paths, warn=warn, what=name, lines=lines)
        if recs is None:
            (warn or R._stderr_warn)(f"{name} is not a genesis ledger; skipped")
            continue
        found.extend(recs)
        known.add(sha)
    with Transaction(conn):
        new = store_records(conn, found, lines, warn=warn)
        stories = sorted({r.story_id for r in new if r.story_id})
        apply(conn, stories, project_id, new=new)
        _set_kv(conn, REFS_KEY, json.dumps(refs, sort_keys=True))
        _set_kv(conn, SIG_KEY, sig)
    return {"imported": len(new), "stories": stories}


def refresh_quietly(conn: sqlite3.Connection, repo: Any) -> None:
    """:func:`refresh` for any command: a failure is one warning, never the command's end."""
    try:
        refresh(conn, repo.root, repo.common_dir, repo.project_id)
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return  # the command says so itself if it needs the store; the next one catches up
        R._stderr_warn(f"the ledger view was not updated: {exc}")
    except (G.GitError, OSError, sqlite3.Error, ValueError) as exc:
        R._stderr_warn(f"the ledger view was not updated: {exc}")
