"""Ledger records: immutable, time-sortable facts about stories, kept in git.

Every change of the story ledger is one :class:`Record`.  The state of a story
is the :func:`fold` of its records; two clones that wrote at the same time
merge by taking the union of their records, and the fold does not depend on the
order in which records arrived.  Only the single-valued fields (a story's title,
status and baseline, whether a link or an artifact is present) take the last
writer, ordered by ``(time, author_email, id)``.  :mod:`genesis_git.stories.ledger.gitref`
reads and writes the ledger's trees in git.

**Where records live.**  The ref ``refs/genesis/ledger`` points at a commit
whose tree holds one JSON Lines file per story and per session (records are
keyed by story id and session id, never by commit SHA, so that a squash merge
or a rebase on the server loses nothing)::

    genesis-ledger                 marker ("1"): a tree without it is not a ledger
    stories/<story id>.jsonl       records with a story id
    sessions/<session id>.jsonl    records of a session that no story holds yet
    other.jsonl                    records with neither

Each file holds one record per line, sorted by id and unique by id, so the
union of two versions of a file is their sorted, de-duplicated lines (the
``cat_sort_uniq`` strategy of git notes).  A name outside ``[A-Za-z0-9._-]``
is percent-encoded in the path.  What was fetched from a remote sits under
``refs/genesis/remotes/<remote>/ledger``.

**Kinds and their payloads** (the columns of the story tables,
docs/reference/mirror-schema.md; a payload key whose value is unknown may be missing
or null; consumers skip kinds they do not know, and new keys may appear in any
payload):

``story.created``
    ``title``, ``status`` (draft, in_progress, review, done, archived),
    ``project_id``, ``baseline_commit_sha``, ``created_by`` (``Name <email>``,
    when it is not the record's author: the author of the commit that named the
    story).  A story created in two clones has two such records; the earliest
    gives ``created_at``/``created_by``.
``story.title``
    ``title``: the title set by hand (beats the title of ``story.created``).
``story.status``
    ``status``.
``story.baseline``
    ``baseline_commit_sha``: the first parent of the story's earliest commit, written
    when a binding changes it; the last one wins over the baseline of
    ``story.created``.
``story.removed``
    No payload: the story was left with nothing (its commits rewritten away, its
    notes moved or back to pending).  After the last one, the story is not
    listed unless a ``story.created``, ``story.title``, ``story.status`` or
    ``story.baseline`` record follows, or an artifact or a link is still present
    (artifacts and links leave only by their own records, so whatever another
    clone added meanwhile keeps the story, with its fields).  A removal that a
    later ``story.created`` answers starts the story again: those four kinds of
    record before it no longer count, and ``created_at`` is the first record
    after it.
``artifact.added``
    ``role`` (requirement, analysis, doc_change, test_model, note, decision,
    risk), ``content`` (the text: ``story_artifacts.summary``), ``path``,
    ``section``, ``doc_id``, ``doc_version``, ``chunk_id``, ``change_type``
    (added, updated, removed, linked), ``source_ref`` (``commit`` for a
    commit's changed file, else the id of the session it came from),
    ``source_session``, ``note_id`` (the id of the ``note.written`` record it
    binds, if any), ``created_at``, ``created_by`` (the original author,
    ``Name <email>``).  Artifacts are unique by (role, doc_id, path, section,
    change_type), or by ``note_id`` when they bind a note; the earliest record
    since the key's last ``artifact.removed`` wins.  A ``doc_change`` artifact of
    a commit (``source_ref`` = ``commit``, ``doc_id`` = the SHA) is part of the
    story only while its commit link is.
``artifact.removed``
    The artifact leaves this story only (a note that followed its commit to
    another story or back to pending, a requirement that went with it): its key,
    ``note_id`` when it binds a note, else ``role``, ``doc_id``, ``path``,
    ``section``, ``change_type``; and ``record_id``, the ``artifact.added`` it
    undoes (the key of an artifact with neither a note nor a document).  It
    removes what was added before it; a later ``artifact.added`` of the same key
    brings the artifact back.
``link.added``
    ``link_type`` (story, adr, ticket, pr, commit, doc, external), ``target``,
    ``description``, ``meta`` (an object: for a commit its author, date,
    subject and parents).
``link.removed``
    ``link_type``, ``target``: a commit that a rebase or an amend replaced.
``note.written``
    A session note before any story holds it: ``role``, ``content``, ``path``,
    ``section``, ``created_at``, ``created_by``.
``note.retracted``
    ``note_id``: the id of a ``note.written`` or ``artifact.added`` record: its
    author took the note back (``genesis session retract``).  The artifacts that
    carry it leave every story of the fold, whatever the order and for good.  One
    record is written under each story that holds the note (a story's own records
    are enough to fold it) and one under the note's session (no story id), which
    withdraws the pending note.  A private note's retraction is private too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from genesis_git.kernel.vocabulary import LINK_COMMIT, STATUS_DRAFT
from genesis_git.stories.ledger.outbox import new_id, now_iso, record_line

__all__ = ["KINDS", "LEDGER_REF", "Record", "StoryState", "fold", "new_id", "now_iso",
           "record_path"]

LEDGER_REF = "refs/genesis/ledger"
REMOTES_PREFIX = "refs/genesis/remotes/"
MARKER = "genesis-ledger"
FORMAT = "1"

KINDS = ("story.created", "story.title", "story.status", "story.baseline", "story.removed",
         "artifact.added", "artifact.removed", "link.added", "link.removed", "note.written",
         "note.retracted")

_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")

Warn = Callable[[str], None]


def _stderr_warn(message: str) -> None:
    """A warning no result carries: logged (:func:`genesis_git.kernel.log.warn`)."""
    from genesis_git.kernel.log import warn

    warn(message)


# -- the record ------------------------------------------------------------------------

@dataclass(frozen=True)
class Record:
    id: str
    kind: str
    story_id: str | None
    session_id: str | None
    author_name: str
    author_email: str
    time: str
    payload: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, kind: str, *, story_id: str | None = None, session_id: str | None = None,
            author_name: str = "", author_email: str = "",
            payload: dict[str, Any] | None = None, time: str | None = None) -> Record:
        return cls(id=new_id(), kind=kind, story_id=story_id, session_id=session_id,
                   author_name=author_name, author_email=author_email,
                   time=time or now_iso(), payload=dict(payload or {}))

    def to_json(self) -> str:
        """One line, sorted keys, UTF-8 text kept as it is."""
        return record_line(self.id, self.kind, self.story_id, self.session_id,
                           self.author_name, self.author_email, self.time, self.payload)

    @classmethod
    def from_json(cls, line: str) -> Record:
        """Parse one line; ``ValueError`` names what is wrong with a malformed record."""
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        rid = data.get("id")
        if not isinstance(rid, str) or not _ID_RE.match(rid):
            raise ValueError(f"bad id {rid!r}")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise ValueError(f"bad kind {kind!r}")
        for key in ("story_id", "session_id"):
            value = data.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"bad {key} {value!r}")
        for key in ("author_name", "author_email"):
            if not isinstance(data.get(key, ""), str):
                raise ValueError(f"bad {key}")
        stamp = data.get("time")
        if not isinstance(stamp, str) or not _TIME_RE.match(stamp):
            raise ValueError(f"bad time {stamp!r}")
        payload = data.get("payload", {})
        if not isinstance(payload, dict):
            raise ValueError("the payload is not an object")
        return cls(id=rid, kind=kind, story_id=data.get("story_id"),
                   session_id=data.get("session_id"), author_name=data.get("author_name", ""),
                   author_email=data.get("author_email", ""), time=stamp, payload=payload)

    @property
    def author(self) -> str:
        """``Name <email>`` as the store writes ``created_by``."""
        if self.author_name and self.author_email:
            return f"{self.author_name} <{self.author_email}>"
        return self.author_name or self.author_email

    def order(self) -> tuple[str, str, str]:
        """The last-writer-wins order."""
        return (self.time, self.author_email, self.id)


def record_path(story_id: str | None, session_id: str | None) -> str:
    """The file of the ledger tree that holds a record with these keys."""
    if story_id:
        return f"stories/{quote(story_id)}.jsonl"
    if session_id:
        return f"sessions/{quote(session_id)}.jsonl"
    return "other.jsonl"


def quote(name: str) -> str:
    text = _SAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), name)
    return "%2E" + text[1:] if text.startswith(".") else text


def _line_id(line: bytes) -> bytes:
    """The id of a record line without parsing all of it (``{"author_email":..`` comes
    first, so look for the key); a line without one sorts by itself."""
    at = line.find(b'"id":"')
    return line[at + 6:at + 32] if at >= 0 else line


def union_lines(*blobs: bytes) -> bytes:
    """The sorted union of record lines, unique by id (for one id the smallest line)."""
    by_id: dict[bytes, bytes] = {}
    for blob in blobs:
        for line in blob.splitlines():
            line = line.strip()
            if not line:
                continue
            key = _line_id(line)
            old = by_id.get(key)
            if old is None or line < old:
                by_id[key] = line
    return b"".join(by_id[k] + b"\n" for k in sorted(by_id))


def parse_blob(data: bytes, where: str, bad: list[str],
               lines: list[str] | None = None) -> list[Record]:
    """The records of one file; malformed lines are named in ``bad``.  With ``lines``,
    each record's text is appended to it too."""
    out = []
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            out.append(Record.from_json(text))
        except (ValueError, UnicodeDecodeError) as exc:
            bad.append(f"{where} line {n}: {exc}")
            continue
        if lines is not None:
            lines.append(text.strip())
    return out



# -- the fold ------------------------------------------------------------------------------

ARTIFACT_KEYS = ("role", "doc_id", "path", "section", "change_type")
# what a story.removed resets: the story's own fields, not its artifacts and links
SCALAR_KINDS = ("story.created", "story.title", "story.status", "story.baseline")


@dataclass
class StoryState:
    story_id: str
    title: str | None = None
    status: str = STATUS_DRAFT
    project_id: str | None = None
    baseline_commit_sha: str | None = None
    created_at: str | None = None
    created_by: str | None = None
    updated_at: str | None = None
    updated_by: str | None = None
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    record_ids: list[str] = field(default_factory=list)
    removed: bool = False  # a story.removed counts: the fields before it were reset


def artifact_key(art: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two artifacts the same: the note they bind, else the unique key of
    ``story_artifacts`` when there is a document, else the record itself."""
    if art.get("note_id"):
        return ("note", art["note_id"])
    if art.get("doc_id"):
        return tuple(art.get(k) for k in ARTIFACT_KEYS)
    return ("record", art.get("record_id"))


def _artifact(rec: Record) -> dict[str, Any]:
    p = rec.payload
    item = {k: p.get(k) for k in ("role", "content", "path", "section", "doc_id",
                                  "doc_version", "chunk_id", "change_type", "source_ref",
                                  "source_session", "note_id")}
    item["created_at"] = p.get("created_at") or rec.time
    item["created_by"] = p.get("created_by") or rec.author
    item["record_id"] = rec.id
    item["recorded_by"] = rec.author
    item["recorded_at"] = rec.time
    return item


def removed_key(payload: dict[str, Any]) -> tuple[Any, ...]:
    """The key of the artifact an ``artifact.removed`` takes out of its story."""
    return artifact_key({**{k: payload.get(k) for k in (*ARTIFACT_KEYS, "note_id")},
                         "record_id": payload.get("record_id")})


def fold(records: Iterable[Record]) -> dict[str, StoryState]:
    """``story_id -> state``.  The same set of records gives the same states in any
    order: records are taken in ``(time, author_email, id)`` order."""
    by_story: dict[str, list[Record]] = {}
    for rec in records:
        if rec.story_id:
            by_story.setdefault(rec.story_id, []).append(rec)
    retracted = {str(r.payload.get("note_id")) for recs in by_story.values() for r in recs
                 if r.kind == "note.retracted"}
    out: dict[str, StoryState] = {}
    for sid, recs in by_story.items():
        state = _fold_story(sid, sorted({r.id: r for r in recs}.values(), key=Record.order),
                            retracted)
        if state is not None:
            out[sid] = state
    return out


def _fold_story(sid: str, recs: list[Record], retracted: set[str]) -> StoryState | None:
    """One story's records, in order; ``None`` when nothing lists the story."""
    removals = [i for i, r in enumerate(recs) if r.kind == "story.removed"]
    created = [i for i, r in enumerate(recs) if r.kind == "story.created"]
    # the fields start again after the last removal that a later creation answered
    start = max((i for i in removals if created and created[-1] > i), default=-1)
    cut = removals[-1] if removals else -1
    state = StoryState(story_id=sid, removed=start >= 0)
    created_title: str | None = None
    created_status: str | None = None
    title: str | None = None
    status: str | None = None
    baseline: tuple[str | None] | None = None
    fresh = False  # a field record after the last removal
    links: dict[tuple[str, str], tuple[bool, dict[str, Any]]] = {}
    artifacts: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i, rec in enumerate(recs):
        p = rec.payload
        if rec.kind in SCALAR_KINDS and i < start:
            continue  # before the story was removed and created again
        if rec.kind == "story.created":
            if created_title is None and p.get("title"):
                created_title = str(p["title"])
            if created_status is None and p.get("status"):
                created_status = str(p["status"])
            state.project_id = state.project_id or p.get("project_id")
            state.baseline_commit_sha = (state.baseline_commit_sha
                                         or p.get("baseline_commit_sha"))
        elif rec.kind == "story.title" and p.get("title"):
            title = str(p["title"])
        elif rec.kind == "story.status" and p.get("status"):
            status = str(p["status"])
        elif rec.kind == "story.baseline":
            value = p.get("baseline_commit_sha")
            baseline = (str(value) if value else None,)
        elif rec.kind in ("link.added", "link.removed"):
            key = (str(p.get("link_type")), str(p.get("target")))
            if not key[1] or key[1] == "None":
                continue
            item = {"link_type": key[0], "target": key[1],
                    "description": p.get("description"), "meta": p.get("meta"),
                    "created_at": rec.time, "record_id": rec.id,
                    "recorded_by": rec.author}
            links[key] = (rec.kind == "link.added", item)
        elif rec.kind == "artifact.added":
            art = _artifact(rec)
            if rec.id in retracted or (art["note_id"] and str(art["note_id"]) in retracted):
                continue
            artifacts.setdefault(artifact_key(art), art)
        elif rec.kind == "artifact.removed":
            artifacts.pop(removed_key(p), None)
        elif rec.kind not in ("note.retracted", "story.removed"):
            continue
        fresh = fresh or (i > cut and rec.kind in SCALAR_KINDS)
        if state.created_at is None and i > start:
            state.created_at = rec.time
            state.created_by = (p.get("created_by") if rec.kind == "story.created"
                                else None) or rec.author
        state.updated_at, state.updated_by = rec.time, rec.author
        state.record_ids.append(rec.id)
    state.title = title or created_title
    state.status = status or created_status or STATUS_DRAFT
    if baseline is not None:
        state.baseline_commit_sha = baseline[0]
    present = [item for alive, item in links.values() if alive]
    commits = {item["target"] for item in present if item["link_type"] == LINK_COMMIT}
    state.links = sorted(present, key=lambda i: (i["created_at"], i["record_id"]))
    state.artifacts = sorted(
        (a for a in artifacts.values()
         if a["source_ref"] != "commit" or a["doc_id"] in commits),
        key=lambda a: (a["created_at"], a["record_id"]))
    if cut >= 0 and not (fresh or state.links or state.artifacts):
        return None  # removed, and nothing holds it since
    return state if state.record_ids else None
