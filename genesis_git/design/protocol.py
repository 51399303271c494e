"""The two outboxes through which two readers talk about design, and ``design status``.

Both files live in the shared folder, next to the library (``.shared/`` by
default): ``outbox-dsh.md`` is written by the side that plans and reviews
(``design brief`` appends ``inspiration`` records there) and
``outbox-deveco.md`` by the side that implements (``design request`` appends
``design-request`` records).  A record is a Markdown heading plus bullets::

    ## [2026-11-03T12:00:00.000Z] design-request · #q-1 · from=deveco to=dsh | dark mode
    - scene: dark mode · home cards · empty list
    - expect: at most 3, restrained

A request is answered by an ``inspiration`` whose ``re=`` names it.  Records
of other kinds are counted and otherwise left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from genesis_git.design.library import Library, file_lock
from genesis_git.design.manage import health
from genesis_git.kernel.errors import GenesisError, UsageError

OUTBOX_DSH = "outbox-dsh.md"
OUTBOX_DEVECO = "outbox-deveco.md"
INSPIRATION = "inspiration"
DESIGN_REQUEST = "design-request"
OUTBOX_LOCK = ".outbox.lock"

_HEAD = re.compile(r"^## \[(?P<at>[^\]]+)\] (?P<kind>[\w-]+) · #(?P<id>[\w-]+) · "
                   r"from=(?P<frm>\S+) to=(?P<to>\S+)(?: · re=#(?P<re>[\w-]+))?"
                   r"(?: \| (?P<title>.*))?$")
_FIELD = re.compile(r"^- (?P<key>[^:：]+)[:：]\s*(?P<value>.*)$")
_KEYS = {"场景": "scene", "期望": "expect", "简报": "brief", "卡片": "cards"}


@dataclass
class Record:
    at: str
    kind: str
    id: str
    frm: str
    to: str
    re: str | None
    title: str
    fields: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"at": self.at, "kind": self.kind, "id": self.id, "from": self.frm, "to": self.to,
                "re": self.re, "title": self.title, "fields": self.fields}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def stamp(moment: datetime) -> str:
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_stamp(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def read_records(lib: Library, name: str) -> list[Record]:
    path = lib.shared_path(name)
    if not path.is_file():
        return []
    records: list[Record] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _HEAD.match(line.rstrip())
        if m:
            records.append(Record(m["at"], m["kind"], m["id"], m["frm"], m["to"], m["re"],
                                  (m["title"] or "").strip()))
            continue
        f = _FIELD.match(line.rstrip())
        if f and records:
            key = f["key"].strip()
            records[-1].fields[_KEYS.get(key, key)] = f["value"].strip()
    return records


def request_id(text: str) -> str:
    """``#q-3``, ``q-3`` and ``3`` all name request ``q-3``."""
    raw = text.strip().lstrip("#")
    if raw.isdigit():
        raw = f"q-{raw}"
    if not re.fullmatch(r"q-\d+", raw):
        raise UsageError(f"--request {text}: not a request id", hint="use the form q-1")
    return raw


def _next_id(records: list[Record], prefix: str) -> str:
    numbers = [int(r.id.split("-", 1)[1]) for r in records
               if r.id.startswith(prefix + "-") and r.id.split("-", 1)[1].isdigit()]
    return f"{prefix}-{max(numbers, default=0) + 1}"


def _one_line(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def append_record(lib: Library, name: str, *, kind: str, prefix: str, frm: str, to: str,
                  title: str, fields: dict[str, str], re_id: str | None = None,
                  now: datetime | None = None) -> Record:
    lib.shared_dir.mkdir(parents=True, exist_ok=True)
    with file_lock(lib.shared_path(OUTBOX_LOCK)):
        records = read_records(lib, name)
        record = Record(stamp(now or utcnow()), kind, _next_id(records, prefix), frm, to, re_id,
                        _one_line(title), fields)
        head = (f"## [{record.at}] {kind} · #{record.id} · from={frm} to={to}"
                + (f" · re=#{re_id}" if re_id else "") + f" | {record.title}")
        body = "".join(f"- {k}: {_one_line(v, 400)}\n" for k, v in fields.items())
        path = lib.shared_path(name)
        prefix_text = "" if path.is_file() else (
            f"# {name[:-3]}\n\nRecords appended by `genesis design`; the newest is last.\n")
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{prefix_text}\n{head}\n{body}")
    return record


def request(lib: Library, scene: str, expect: str = "", *,
            now: datetime | None = None) -> Record:
    """Append a ``design-request`` to ``outbox-deveco.md``."""
    if not scene.strip():
        raise UsageError("the scene is empty", hint='e.g. genesis design request "dark mode · '
                         'home cards"')
    fields = {"scene": scene.strip()}
    if expect.strip():
        fields["expect"] = expect.strip()
    return append_record(lib, OUTBOX_DEVECO, kind=DESIGN_REQUEST, prefix="q", frm="deveco",
                         to="dsh", title=scene, fields=fields, now=now)


def find_request(lib: Library, rid: str) -> Record:
    wanted = request_id(rid)
    for rec in read_records(lib, OUTBOX_DEVECO):
        if rec.kind == DESIGN_REQUEST and rec.id == wanted:
            return rec
    raise GenesisError(f"unknown design request #{wanted}",
                       hint="see `genesis design status` for open requests")


def answer(lib: Library, rid: str | None, *, title: str, brief_path: str, cards: list[str],
           query: str, now: datetime | None = None) -> Record:
    """Append an ``inspiration`` to ``outbox-dsh.md`` (``re=`` the request, if any)."""
    fields = {"brief": brief_path,
              "cards": ", ".join(cards) if cards else "none (no reference library)",
              "query": query}
    return append_record(lib, OUTBOX_DSH, kind=INSPIRATION, prefix="i", frm="dsh", to="deveco",
                         title=title, fields=fields, re_id=rid, now=now)


def status(lib: Library, *, now: datetime | None = None) -> dict[str, Any]:
    """The library's health and every design request: answered, pending or stalled."""
    moment = now or utcnow()
    stall = lib.config.settings.design.stall_minutes
    state, message = health(lib)
    dsh = read_records(lib, OUTBOX_DSH)
    deveco = read_records(lib, OUTBOX_DEVECO)
    answers: dict[str, str] = {}
    for rec in dsh:
        if rec.kind == INSPIRATION and rec.re and rec.re not in answers:
            answers[rec.re] = rec.id
    requests: list[dict[str, Any]] = []
    for rec in deveco:
        if rec.kind != DESIGN_REQUEST:
            continue
        at = parse_stamp(rec.at)
        age = round((moment - at).total_seconds() / 60, 1) if at else None
        answered = rec.id in answers
        requests.append({
            "id": rec.id, "at": rec.at, "title": rec.title,
            "scene": rec.fields.get("scene", rec.title), "expect": rec.fields.get("expect", ""),
            "answered": answered, "answeredBy": answers.get(rec.id),
            "ageMinutes": age, "stalled": (not answered and age is not None and age > stall),
        })
    counts: dict[str, dict[str, int]] = {}
    for name, records in ((OUTBOX_DSH, dsh), (OUTBOX_DEVECO, deveco)):
        per: dict[str, int] = {}
        for rec in records:
            per[rec.kind] = per.get(rec.kind, 0) + 1
        counts[name] = dict(sorted(per.items()))
    pending = [r for r in requests if not r["answered"]]
    return {
        "library": {"state": state, "message": message, "available": state in ("ok", "reader")},
        "stallMinutes": stall,
        "requests": requests,
        "pending": len(pending),
        "stalled": sum(1 for r in pending if r["stalled"]),
        "records": counts,
    }
