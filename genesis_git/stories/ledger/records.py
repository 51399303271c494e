"""Ledger records: immutable facts about stories, kept in git, and their fold.

Every change of the story ledger is one :class:`Record`.  The state of a story
is the :func:`fold` of its records; two clones that wrote at the same time
merge by taking the union of their records, and the fold does not depend on the
order in which records arrived.  Records are taken in one total order: the
hybrid logical clock each record carries (``hlc``: milliseconds and a counter),
then the id; a record written before records carried a clock counts as its wall
time with counter 0.  The single-valued fields (a story's title, status and
baseline, whether a link or an artifact is present) take the last writer in that
order; ``created_at``, ``created_by`` and ``project_id`` come from the first
``story.created``.  A record's id is the hash of its content (:func:`outbox.content_id
<genesis_git.stories.ledger.outbox.content_id>`); of two different lines with one id
every clone keeps the same one (:func:`winner`).

**Where records live.**  The ref ``refs/genesis/ledger`` points at a commit whose
tree holds the marker file ``genesis-ledger`` and files of JSON Lines, one record
a line, sorted and unique by id.  Each write adds one file,
``log/YYYY/MM/DD/<hash>.jsonl`` (:func:`batch_path`), never changed afterwards;
the per-story and per-session files of the older layout (``stories/<story
id>.jsonl``, ``sessions/<session id>.jsonl``, ``other.jsonl``) are still read.
What was fetched from a remote sits under ``refs/genesis/remotes/<remote>/ledger``.

The kinds and their payloads are specified in docs/reference/ledger-records.md.
:mod:`genesis_git.stories.ledger.gitref` reads and writes the ledger's trees in git.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from genesis_git.kernel.vocabulary import LINK_COMMIT, STATUS_DRAFT
from genesis_git.stories.ledger.outbox import (
    id_matches,
    iso,
    new_id,
    now_iso,
    record_line,
    tick,
    wall_ms,
)

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

_process_clock: list[tuple[int, int] | None] = [None]  # Record.new outside a store


def time_ms(stamp: str) -> int:
    """Milliseconds since the epoch of a record's ``time`` (checked by ``_TIME_RE``)."""
    whole, _, frac = stamp[:-1].partition(".")
    secs = calendar.timegm((int(whole[0:4]), int(whole[5:7]), int(whole[8:10]),
                            int(whole[11:13]), int(whole[14:16]), int(whole[17:19]), 0, 0, 0))
    return secs * 1000 + int((frac + "000")[:3])


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
    hlc: tuple[int, int] | None = None  # None: written before records carried a clock

    @classmethod
    def new(cls, kind: str, *, story_id: str | None = None, session_id: str | None = None,
            author_name: str = "", author_email: str = "",
            payload: dict[str, Any] | None = None, time: str | None = None,
            hlc: tuple[int, int] | None = None) -> Record:
        """A record with a content-addressed id; its clock is ``hlc``, else its ``time``
        when given (counter 0), else the next tick of this process's clock."""
        wall = wall_ms()
        if hlc is None and time is not None and _TIME_RE.match(time):
            hlc = (time_ms(time), 0)
        elif hlc is None:
            hlc = _process_clock[0] = tick(_process_clock[0], wall)
        body = dict(payload or {})
        line = record_line(None, kind, story_id, session_id, author_name, author_email,
                           time or iso(wall), body, hlc)
        return cls.from_json(line)

    def to_json(self) -> str:
        """One line, sorted keys, UTF-8 text kept as it is."""
        return record_line(self.id, self.kind, self.story_id, self.session_id,
                           self.author_name, self.author_email, self.time, self.payload,
                           self.hlc)

    @classmethod
    def from_json(cls, line: str) -> Record:
        """Parse one line; ``ValueError`` names what is wrong with a malformed record (a
        record with a clock whose id is not the hash of its content is one)."""
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
        clock = data.get("hlc")
        hlc: tuple[int, int] | None = None
        if clock is not None:
            if (not isinstance(clock, list) or len(clock) != 2
                    or not all(type(v) is int and v >= 0 for v in clock)):
                raise ValueError(f"bad hlc {clock!r}")
            hlc = (clock[0], clock[1])
        rec = cls(id=rid, kind=kind, story_id=data.get("story_id"),
                  session_id=data.get("session_id"), author_name=data.get("author_name", ""),
                  author_email=data.get("author_email", ""), time=stamp, payload=payload,
                  hlc=hlc)
        if hlc is not None and not id_matches(line.strip(), rid):
            canonical = record_line(None, rec.kind, rec.story_id, rec.session_id,
                                    rec.author_name, rec.author_email, rec.time, payload, hlc)
            if not id_matches(canonical, rid):
                raise ValueError(f"id {rid} is not the hash of the record's content")
        return rec

    @property
    def author(self) -> str:
        """``Name <email>`` as the store writes ``created_by``."""
        if self.author_name and self.author_email:
            return f"{self.author_name} <{self.author_email}>"
        return self.author_name or self.author_email

    @property
    def clock(self) -> tuple[int, int]:
        """The record's logical clock; a record written before records carried one counts
        as its wall time in milliseconds with counter 0."""
        return self.hlc if self.hlc is not None else (time_ms(self.time), 0)

    def order(self) -> tuple[int, int, str]:
        """The total order of the fold and of last-writer-wins: clock, then id."""
        ms, count = self.clock
        return (ms, count, self.id)


def record_path(story_id: str | None, session_id: str | None) -> str:
    """The file of the per-story layout (written before 2026-12) that holds a record with
    these keys: still read, no longer written (see :func:`batch_path`)."""
    if story_id:
        return f"stories/{quote(story_id)}.jsonl"
    if session_id:
        return f"sessions/{quote(session_id)}.jsonl"
    return "other.jsonl"


def batch_path(content: bytes, ms: int) -> str:
    """Where one batch of records is written: ``log/YYYY/MM/DD/<hash>.jsonl``, sharded by
    the day it was written and named by the hash of its content, so that it is written
    once and never changed, and two clones writing the same batch write the same file."""
    day = iso(ms)[:10].replace("-", "/")
    return f"log/{day}/{hashlib.sha256(content).hexdigest()[:32]}.jsonl"


def batch_files(records: Iterable[Record], ms: int) -> dict[str, bytes]:
    """The new file of a batch of records (none for no records)."""
    content = union_lines("\n".join(r.to_json() for r in records).encode())
    return {batch_path(content, ms): content} if content else {}


def quote(name: str) -> str:
    text = _SAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), name)
    return "%2E" + text[1:] if text.startswith(".") else text


def _line_id(line: bytes) -> bytes:
    """The id of a record line without parsing all of it (``{"author_email":..`` comes
    first, so look for the key); a line without one sorts by itself."""
    at = line.find(b'"id":"')
    return line[at + 6:at + 32] if at >= 0 else line


def _verified(line: bytes, rid: bytes) -> bool:
    if b'"hlc":[' not in line:
        return False
    try:
        return id_matches(line.decode("utf-8"), rid.decode("ascii"))
    except UnicodeDecodeError:
        return False


def winner(a: bytes, b: bytes, rid: bytes) -> bytes:
    """Of two different lines with one id (a conflicting duplicate), the one every clone
    keeps: the one whose id is the hash of its content, else the one with the lowest
    SHA-256."""
    va, vb = _verified(a, rid), _verified(b, rid)
    if va != vb:
        return a if va else b
    return min(a, b, key=lambda x: hashlib.sha256(x).digest())


def union_lines(*blobs: bytes, conflicts: list[bytes] | None = None) -> bytes:
    """The sorted union of record lines, unique by id (for one id with two contents, the
    :func:`winner`; its id goes to ``conflicts``)."""
    by_id: dict[bytes, bytes] = {}
    for blob in blobs:
        for line in blob.splitlines():
            line = line.strip()
            if not line:
                continue
            key = _line_id(line)
            old = by_id.get(key)
            if old is None:
                by_id[key] = line
            elif old != line:
                by_id[key] = winner(old, line, key)
                if conflicts is not None:
                    conflicts.append(key)
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
    order: records are taken in the order of :meth:`Record.order` (clock, then id)."""
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
    created_seen = False  # created_at/created_by come from a story.created
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
        if i > start and not created_seen and (state.created_at is None
                                                or rec.kind == "story.created"):
            # the earliest creation in the records' order, else the earliest record
            state.created_at = rec.time
            state.created_by = (p.get("created_by") if rec.kind == "story.created"
                                else None) or rec.author
            created_seen = rec.kind == "story.created"
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
