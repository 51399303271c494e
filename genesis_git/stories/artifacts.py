"""Session notes: what an analyst records before the work has a story id.

``genesis session note TEXT --role R [--path P] [--section S]`` writes a row of
``session_artifacts`` (its columns: docs/reference/mirror-schema.md). It stays unbound
until a commit whose message names a story; then the post-commit hook binds it (late
binding).

``genesis session retract NOTE`` takes a note back: it leaves the session and
every story that holds it, with a ``note.retracted`` record per story and one
for its session, so that every clone's view drops it after ``genesis sync``.
Any note written in this clone can be retracted, from any worktree's session,
pending or bound; a private note's retraction stays private.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from genesis_git.git.repo import Repo
from genesis_git.kernel.errors import GenesisError, NotFound, UsageError
from genesis_git.kernel.vocabulary import NOTE_ROLES, ROLE_NOTE
from genesis_git.store import sessions as session_rows
from genesis_git.store import stories as story_rows
from genesis_git.store.connect import transaction
from genesis_git.stories import tables as ledger

if TYPE_CHECKING:
    from genesis_git.index.session import Context


def check_role(role: str) -> None:
    if role not in NOTE_ROLES:
        import difflib

        close = difflib.get_close_matches(role.lower(), NOTE_ROLES, n=1, cutoff=0.6)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise UsageError(f"unknown role {role!r}",
                         hint=guess + "choose from " + ", ".join(NOTE_ROLES))


def author(repo: Repo) -> str | None:
    name = repo.config_get("user.name")
    email = repo.config_get("user.email")
    if name and email:
        return f"{name} <{email}>"
    return name or email


def check_text(value: str | None, what: str) -> None:
    """A usage error when ``value`` is not valid UTF-8 (bytes the command line or a file
    gave that Python kept as lone surrogates): the store and the ledger hold UTF-8 only."""
    if value is None:
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"the {what} is not valid UTF-8 (at character {exc.start + 1})",
                         hint="give it as UTF-8 text") from None


def add_note(ctx: Context, text: str, *, role: str = ROLE_NOTE, path: str | None = None,
             section: str | None = None, private: bool = False, allow_secret: bool = False,
             announce: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Record a note in the worktree's session (a session is started when there is none).

    A ``private`` note, and the story artifact it becomes, stay in this clone: their
    records are never written to the shared ledger.  A note whose text, path or section
    holds a secret (:mod:`genesis_git.stories.ledger.secrets`) is kept private too, unless
    ``allow_secret``; the result's ``secret`` then says which rule found it (else ``None``)."""
    check_role(role)
    check_text(text, "note")
    check_text(path, "--path")
    check_text(section, "--section")
    if not text.strip():
        raise UsageError("the note is empty", hint='give its text: genesis session note "..."')
    secret = None
    if not private and not allow_secret:
        from genesis_git.stories.ledger.secrets import first_secret

        found = first_secret(text, section, path)
        if found is not None:
            private = True
            secret = {"rule": found.rule, "what": found.what}
    from genesis_git.index.session import ensure_session

    session_id = ensure_session(ctx, refresh=False, announce=announce)
    rel = (ctx.repo.worktree_path(path, name="--path", hint="name a file of this repository")
           if path else None)
    from genesis_git.stories.ledger import outbox

    stamp = ledger.now()
    by = author(ctx.repo)
    with transaction(ctx.conn):
        rec = outbox.draft(ctx.conn, "note.written",
                           {"role": role, "content": text.strip(), "path": rel,
                            "section": section, "created_at": stamp, "created_by": by},
                           session_id=session_id, at=stamp)
        note_id = session_rows.add_note(ctx.conn, session_id, ctx.repo.project_id, role, rel,
                                        section, text.strip(), by, stamp, 1 if private else 0,
                                        rec.id)
        outbox.save(ctx.conn, rec, private=private)
    row = session_rows.note(ctx.conn, note_id)
    assert row is not None
    return {**artifact_dict(ctx.conn, row), "secret": secret}


def artifact_dict(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    stories = story_rows.stories_of_doc(conn, f"session-artifact:{row['id']}")
    return {"id": row["id"], "session": row["session_id"], "role": row["artifact_role"],
            "summary": row["summary"], "path": row["path"], "section": row["section"],
            "created_at": row["created_at"], "created_by": row["created_by"],
            "bound_commit": row["bound_commit"], "bound_at": row["bound_at"],
            "by_hand": bool(row["bound_commit"]) and row["bound_commit"].startswith("story:"),
            "private": bool(row["private"]), "stories": stories}


def list_artifacts(conn: sqlite3.Connection, repo: Repo,
                   session_id: str | None = None) -> dict[str, Any]:
    """The notes of a session (default: the worktree's active session)."""
    if session_id is None:
        current = ledger.active_session(conn, repo)
        if current is None:
            raise GenesisError("no active session in this worktree",
                               hint="start one with `genesis session start`, "
                                    "or name one with --session")
        session_id = str(current["id"])
    elif ledger.session_row(conn, session_id) is None:
        raise NotFound(f"unknown session {session_id!r}", hint="see `genesis session list`")
    items = [artifact_dict(conn, r) for r in session_rows.notes(conn, session_id)]
    return {"session": session_id, "artifacts": items,
            "unbound": sum(1 for a in items if not a["bound_commit"])}


_LOCAL_ID = re.compile(r"^(?:#|session-artifact:)?(\d+)$")
_RECORD_ID = re.compile(r"^(?:note:)?([0-9A-HJKMNP-TV-Z]{26})$", re.IGNORECASE)


def find_note(conn: sqlite3.Connection, ref: str) -> sqlite3.Row:
    """A note of this clone by the id a user sees: ``12`` or ``#12`` (``session
    artifacts``), ``session-artifact:12`` or ``note:<record id>`` (a story's ``doc_id``),
    or the record id itself."""
    text = ref.strip()
    local, record = _LOCAL_ID.match(text), _RECORD_ID.match(text)
    row: sqlite3.Row | None = None
    if local:
        row = session_rows.note(conn, int(local[1]))
    elif record:
        rid = record[1].upper()
        row = session_rows.note_by_record(conn, rid)
        if row is None and story_rows.holds_note(conn, rid):
            raise GenesisError(f"note {text} was written in another clone",
                               hint="only its author can retract it")
    else:
        raise UsageError(f"{ref!r} is not a note id",
                         hint="give the #id that `genesis session artifacts` shows, e.g. 12")
    if row is None:
        raise NotFound(f"no note {text} in this clone",
                       hint="see `genesis session artifacts`, with --session S for an "
                            "ended session; a retracted note is gone from that list")
    return row


def retract_note(conn: sqlite3.Connection, ref: str) -> dict[str, Any]:
    """``genesis session retract``: the note leaves its session and every story that holds
    it; returns the note as it was, with ``retracted`` and the stories it left."""
    from genesis_git.stories.ledger import outbox

    row = find_note(conn, ref)
    item = artifact_dict(conn, row)
    private = bool(row["private"])
    with transaction(conn):
        held = story_rows.artifacts_of_doc(conn, f"session-artifact:{row['id']}")
        for a in held:
            story_rows.delete_artifact(conn, a["id"])
            note_id = row["record_id"] or a["record_id"]
            if note_id:
                outbox.emit(conn, "note.retracted", {"note_id": note_id},
                            story_id=a["story_id"], private=private)
        if row["record_id"]:
            outbox.emit(conn, "note.retracted", {"note_id": row["record_id"]},
                        session_id=row["session_id"], private=private)
        session_rows.delete_note(conn, row["id"])
        for sid in dict.fromkeys(a["story_id"] for a in held):
            ledger.touch(conn, sid)
    item["stories"] = sorted({a["story_id"] for a in held})
    item["retracted"] = True
    return item
