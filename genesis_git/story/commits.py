"""Commits as the ledger sees them: metadata, story ids, changed files.

Story ids are read with ``story.pattern`` from the subject line, from ids that
open a line of the body (``STORY-8: …``, the shape a squash leaves behind) and
from ``Story:`` trailers (taken as they are, comma or space separated).  Other
prose is not scanned, so that "follows STORY-11" or "UTF-8" inside a sentence
binds nothing.  Changed files come from ``git diff-tree --stdin`` in one call for a
whole batch of commits; a merge is compared with its first parent.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Mapping, Sequence
    from os import PathLike
    from typing import Protocol

    class GitRepo(Protocol):
        """What the story modules need of a repository: :class:`genesis_git.repo.Repo`,
        or the hooks' lighter :class:`genesis_git.hooks.runtime.HookRepo`."""

        @property
        def root(self) -> str | PathLike[str]: ...
        @property
        def git_dir(self) -> str | PathLike[str]: ...
        @property
        def project_id(self) -> str: ...
        def git(self, *args: str, input: bytes | None = ..., check: bool = ...,
                env: Mapping[str, str] | None = ...) -> bytes: ...

SESSION_TRAILER = "Genesis-Session"
STORY_TRAILER = "story"
EXEMPT_PREFIXES = ("Merge ", 'Revert "', "fixup! ", "squash! ", "amend! ")

_FIELDS = ("%H", "%P", "%an", "%ae", "%aI", "%ct", "%s", "%(trailers:only,unfold)", "%B")
LOG_FORMAT = "%x1f".join(_FIELDS)
_STATUS = {"A": "added", "M": "updated", "T": "updated", "D": "removed"}


class Change:
    """One changed file of a commit."""

    __slots__ = ("path", "change_type", "blob", "mode")

    def __init__(self, path: str, change_type: str, blob: str | None, mode: str) -> None:
        self.path = path
        self.change_type = change_type  # added | updated | removed
        self.blob = blob  # the new blob (the old one for a removal)
        self.mode = mode


class CommitInfo:
    """A commit's metadata and message (plain class: the hooks avoid importing dataclasses)."""

    __slots__ = ("sha", "parents", "author_name", "author_email", "author_date",
                 "committer_ts", "subject", "message", "trailers")

    def __init__(self, sha: str, parents: list[str], author_name: str, author_email: str,
                 author_date: str, committer_ts: int, subject: str, message: str,
                 trailers: list[tuple[str, str]] | None = None) -> None:
        self.sha = sha
        self.parents = parents
        self.author_name = author_name
        self.author_email = author_email
        self.author_date = author_date
        self.committer_ts = committer_ts
        self.subject = subject
        self.message = message
        self.trailers = trailers or []

    @property
    def author(self) -> str:
        return f"{self.author_name} <{self.author_email}>"

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    def trailer_values(self, key: str) -> list[str]:
        low = key.lower()
        return [v for k, v in self.trailers if k.lower() == low]

    @property
    def session_id(self) -> str | None:
        values = self.trailer_values(SESSION_TRAILER)
        return values[-1] if values else None

    def meta(self) -> dict[str, object]:
        return {"author": self.author, "date": self.author_date, "subject": self.subject,
                "committed": self.committer_ts, "parents": self.parents}


def _parse_trailers(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and " " not in key.strip():
            out.append((key.strip(), value.strip()))
    return out


def parse_log(data: bytes) -> list[CommitInfo]:
    """Parse ``git log -z --format=LOG_FORMAT`` output."""
    commits: list[CommitInfo] = []
    for rec in data.decode("utf-8", "replace").split("\0"):
        rec = rec.lstrip("\n")
        if not rec:
            continue
        parts = rec.split("\x1f", len(_FIELDS) - 1)
        if len(parts) < len(_FIELDS):
            continue
        sha, parents, an, ae, ad, ct, subject, trailers, body = parts
        commits.append(CommitInfo(
            sha=sha, parents=parents.split(), author_name=an, author_email=ae, author_date=ad,
            committer_ts=int(ct or 0), subject=subject, message=body,
            trailers=_parse_trailers(trailers)))
    return commits


def read_commits(repo: GitRepo, shas: Sequence[str]) -> list[CommitInfo]:
    """The given commits, in the given order (one ``git log --no-walk`` call)."""
    if not shas:
        return []
    out = repo.git("log", "-z", "--no-walk=unsorted", f"--format={LOG_FORMAT}", *shas, "--")
    return parse_log(out)


def walk_commits(repo: GitRepo, revs: Sequence[str]) -> list[CommitInfo]:
    """Every commit reachable from ``revs``, oldest first, parents before children."""
    out = repo.git("log", "-z", "--reverse", "--topo-order", f"--format={LOG_FORMAT}",
                   *revs, "--")
    return parse_log(out)


def changed_files(repo: GitRepo, commits: Iterable[CommitInfo]) -> dict[str, list[Change]]:
    """Files each commit changed (against its first parent; a root commit against nothing)."""
    lines = []
    for c in commits:
        lines.append(f"{c.sha} {c.parents[0]}" if c.is_merge else c.sha)
    result: dict[str, list[Change]] = {}
    if not lines:
        return result
    out = repo.git("diff-tree", "--stdin", "-r", "-z", "--no-renames", "--root", "--no-abbrev",
                   input=("\n".join(lines) + "\n").encode())
    tokens = out.split(b"\0")
    current: list[Change] | None = None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if not tok:
            continue
        if tok.startswith(b":"):
            path = tokens[i].decode("utf-8", "surrogateescape") if i < len(tokens) else ""
            i += 1
            _, new_mode, old_sha, new_sha, status = tok[1:].decode().split(" ")[:5]
            kind = _STATUS.get(status[:1])
            if current is None or kind is None:
                continue
            blob = old_sha if kind == "removed" else new_sha
            current.append(Change(path, kind, blob, new_mode))
        else:
            current = result.setdefault(tok.decode().strip(), [])
    return result


_CACHE: dict[tuple[str, str], re.Pattern[str]] = {}


def _regex(kind: str, pattern: str) -> re.Pattern[str]:
    """Compiled forms of ``story.pattern`` (``re`` is imported on first use only)."""
    key = (kind, pattern)
    if key not in _CACHE:
        import re

        if kind == "id":
            _CACHE[key] = re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])")
        else:  # ids that open a line: STORY-12: …, [STORY-12] …, STORY-1, STORY-2 - …
            _CACHE[key] = re.compile(rf"^\s*[\[(]?\s*((?:{pattern}))\s*[\])]?\s*[:,;/\-–—]?\s*")
    return _CACHE[key]


def _compiled(pattern: str) -> re.Pattern[str]:
    return _regex("id", pattern)


def ids_in_text(text: str, pattern: str) -> list[str]:
    return [m.group(0) for m in _compiled(pattern).finditer(text)]


def _head(pattern: str) -> re.Pattern[str]:
    return _regex("head", pattern)


def head_ids(line: str, pattern: str) -> tuple[list[str], str]:
    """The ids at the start of ``line`` and the rest of the line."""
    found: list[str] = []
    head = _head(pattern)
    while True:
        m = head.match(line)
        if not m or not m.group(0) or not _compiled(pattern).fullmatch(m.group(1)):
            return found, line
        found.append(m.group(1))
        line = line[m.end():]


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _ids(subject: str, body_lines: Iterable[str], story_values: Iterable[str],
         pattern: str) -> list[str]:
    found = ids_in_text(subject, pattern)
    for line in body_lines:
        found.extend(head_ids(line, pattern)[0])
    for value in story_values:
        found.extend(v for v in value.replace(",", " ").split() if v)
    return _unique(found)


def story_ids(commit: CommitInfo, pattern: str) -> list[str]:
    """Story ids of a commit: the subject, ids that open a body line, ``Story:`` trailers."""
    return _ids(commit.subject, commit.message.splitlines()[1:],
                commit.trailer_values(STORY_TRAILER), pattern)


def message_story_ids(message: str, pattern: str) -> list[str]:
    """Story ids of a message that is not committed yet (the commit-msg hook)."""
    lines = _message_lines(message)
    first = _first_paragraph(lines)
    values = []
    for line in lines:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == STORY_TRAILER:
            values.append(value)
    return _ids(" ".join(first), lines, values, pattern)


SCISSORS = "# ------------------------ >8 ------------------------"


def _message_lines(message: str) -> list[str]:
    """The lines git keeps: comments dropped, nothing after the scissors line."""
    out: list[str] = []
    for ln in message.splitlines():
        if ln.startswith(SCISSORS):
            break
        if not ln.startswith("#"):
            out.append(ln)
    return out


def _first_paragraph(lines: list[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        if not ln.strip():
            if out:
                break
            continue
        out.append(ln.strip())
    return out


def is_exempt(message: str) -> bool:
    """Merge, revert, ``fixup!``, ``squash!`` and ``amend!`` messages need no story id."""
    first = _first_paragraph(_message_lines(message))
    return bool(first) and first[0].startswith(EXEMPT_PREFIXES)


def title_from_subject(subject: str, pattern: str) -> str:
    """``"STORY-12: Add a discount code"`` gives ``"Add a discount code"``."""
    return head_ids(subject, pattern)[1].strip() or subject.strip()
