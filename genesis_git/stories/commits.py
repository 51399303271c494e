"""Commits as the ledger sees them: metadata, story ids, changed files.

Story ids are read with ``story.pattern`` from the subject line, from ids that
open a line of the body (``STORY-8: …``, the shape a squash leaves behind) and
from ``Story:`` trailers (comma or space separated; each value must match the
pattern too).  Other prose of the body is not scanned, so that "follows
STORY-11" binds nothing.  Well-known tokens that look like ids are never story
ids (:data:`NON_STORY_PREFIXES`: ``UTF-8``, ``SHA-256``, ``ISO-8601``, ``RFC-3339``,
``CVE-…`` and the like; ``story.ignore`` adds more), and ``story.prefixes``, when
set, is the only set of prefixes that binds.  Ids stand next to CJK text
(``修复STORY-103问题``, ``【STORY-102】折扣码``, ``STORY-101：新增字段``).  Changed files come from ``git diff-tree --stdin`` in one call for a
whole batch of commits; a merge is compared with its first parent.
"""

from __future__ import annotations

from genesis_git.kernel.environment import parse_bool, setting_variable
from genesis_git.kernel.storyid import DEFAULT_STORY_PATTERN
from genesis_git.kernel.vocabulary import TRAILER_MODES

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from os import PathLike
    from typing import Any, Protocol

    from genesis_git.kernel.gitlog import LogCommit

    class GitRepo(Protocol):
        """What the story modules need of a repository: :class:`genesis_git.git.repo.Repo`,
        or the hooks' lighter :class:`genesis_git.hooks.runtime.HookRepo`."""

        @property
        def root(self) -> str | PathLike[str]: ...
        @property
        def git_dir(self) -> str | PathLike[str]: ...
        @property
        def project_id(self) -> str: ...
        def git(self, *args: str, input: bytes | None = ..., check: bool = ...,
                env: Mapping[str, str] | None = ...) -> bytes: ...
        def log(self, fmt: str, *revs: str, options: Sequence[str] = ...,
                names: bool = ...) -> Iterator[LogCommit]: ...

SESSION_TRAILER = "Genesis-Session"
DEFAULT_PATTERN = DEFAULT_STORY_PATTERN
# Tokens shaped like ids that name encodings, hashes, ciphers, standards, advisories,
# architectures and models: never a story (``story.ignore`` extends the list).
NON_STORY_PREFIXES = (
    "UTF", "UCS", "SHA", "MD", "CRC", "AES", "RSA", "DES", "ECDSA", "HMAC", "BASE",
    "ISO", "IEC", "IEEE", "ANSI", "DIN", "EN", "ECMA", "ES", "RFC", "PEP", "JSR", "WCAG",
    "CVE", "CWE", "GHSA", "OWASP", "HTTP", "TLS", "SSL", "IPV", "X86", "ARM", "AMD64",
    "GPT", "COVID",
    # numbers of the hosting service, not stories: GitHub issues and pull requests,
    # GitLab merge requests (``Follow up for PR-28119``, ``test for GH-4886``)
    "GH", "PR", "MR",
)
# characters that glue to an id: ASCII letters, digits, "_" and "-" (CJK text does not)
_GLUE = "0-9A-Za-z_-"
STORY_TRAILER = "story"
MERGE_PREFIX = "Merge "
EXEMPT_PREFIXES = (MERGE_PREFIX, 'Revert "', "fixup! ", "squash! ", "amend! ")

_FIELDS = ("%H", "%P", "%an", "%ae", "%aI", "%ct", "%s", "%(trailers:only,unfold)", "%B")
LOG_FORMAT = "%x1f".join(_FIELDS)
_STATUS = {"A": "added", "M": "updated", "T": "updated", "D": "removed"}


class StoryRules:
    """What makes a story id: ``story.pattern``, ``story.prefixes`` and ``story.ignore``;
    also ``story.require_story`` and ``story.session_trailer`` (a plain class: the hooks
    avoid importing dataclasses)."""

    __slots__ = ("pattern", "prefixes", "ignore", "require", "trailer")

    def __init__(self, pattern: str = DEFAULT_PATTERN, prefixes: Sequence[str] = (),
                 ignore: Sequence[str] = (), require: bool = False,
                 trailer: str = "story") -> None:
        self.pattern = pattern
        self.prefixes = tuple(p.strip().rstrip("-") for p in prefixes if p.strip())
        self.ignore = tuple(p.strip().rstrip("-") for p in ignore if p.strip())
        self.require = require
        self.trailer = trailer if trailer in TRAILER_MODES else "story"

    @classmethod
    def from_config(cls, config: Any) -> StoryRules:
        """From a :class:`genesis_git.config.settings.Config`."""
        story = config.settings.story
        return cls(story.pattern, story.prefixes, story.ignore, story.require_story,
                   story.session_trailer)

    def _key(self) -> tuple[object, ...]:
        return (self.pattern, self.prefixes, self.ignore, self.require, self.trailer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoryRules) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"StoryRules{self._key()!r}"

    @property
    def effective(self) -> str:
        """``story.pattern`` narrowed by the prefixes and the never-binding tokens."""
        return effective_pattern(self.pattern, self.prefixes, NON_STORY_PREFIXES + self.ignore)


def _alternation(words: Iterable[str]) -> str:
    import re

    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


def effective_pattern(pattern: str, prefixes: Iterable[str] = (),
                      ignore: Iterable[str] = ()) -> str:
    """``pattern`` behind look-aheads: only ``prefixes`` (when any), never ``ignore``."""
    out = ""
    prefixes = [p for p in prefixes if p]
    ignore = [p for p in ignore if p and p not in prefixes]
    if prefixes:
        out += f"(?=(?:{_alternation(prefixes)})[^0-9A-Za-z])"
    if ignore:
        out += f"(?!(?:{_alternation(ignore)})[^0-9A-Za-z])"
    if not prefixes:
        # a prefix with a digit names a standard or a version (IEC61131-3, EN50128-1,
        # R12-10): an id only when story.prefixes lists it
        out += "(?![A-Za-z]*[0-9][0-9A-Za-z]*-)"
    return f"{out}(?:{pattern})"


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


def _commit(header: str) -> CommitInfo | None:
    parts = header.split("\x1f", len(_FIELDS) - 1)
    if len(parts) < len(_FIELDS):
        return None
    sha, parents, an, ae, ad, ct, subject, trailers, body = parts
    return CommitInfo(sha=sha, parents=parents.split(), author_name=an, author_email=ae,
                      author_date=ad, committer_ts=int(ct or 0), subject=subject, message=body,
                      trailers=_parse_trailers(trailers))


def parse_log(data: bytes) -> list[CommitInfo]:
    """Parse ``git log -z --format=LOG_FORMAT`` output."""
    found = (_commit(rec.lstrip("\n")) for rec in data.decode("utf-8", "replace").split("\0"))
    return [c for c in found if c is not None]


def log_commits(repo: GitRepo, revs: Sequence[str], options: Sequence[str] = ()
                ) -> list[CommitInfo]:
    """The commits of ``git log options revs`` (the repository's one log walker), newest
    first unless ``options`` order them otherwise; a revision git does not know gives none."""
    found = (_commit(c.header.decode("utf-8", "replace"))
             for c in repo.log(LOG_FORMAT, *revs, options=options, names=False))
    return [c for c in found if c is not None]


def read_commits(repo: GitRepo, shas: Sequence[str]) -> list[CommitInfo]:
    """The given commits, in the given order (one ``git log --no-walk`` call)."""
    return log_commits(repo, shas, ("--no-walk=unsorted",)) if shas else []


def walk_commits(repo: GitRepo, revs: Sequence[str]) -> list[CommitInfo]:
    """Every commit reachable from ``revs``, oldest first, parents before children."""
    return log_commits(repo, revs, ("--reverse", "--topo-order"))


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
            _CACHE[key] = re.compile(rf"(?<![{_GLUE}])(?:{pattern})(?![{_GLUE}]|\.\d)")
        else:  # ids that open a line: STORY-12: …, [STORY-12] …, 【STORY-12】…, STORY-1：…
            _CACHE[key] = re.compile(
                rf"^\s*[\[(【［（〔]?\s*((?:{pattern}))(?![{_GLUE}]|\.\d)\s*[\])】］）〕]?\s*"
                rf"[:,;/\-–—：，；、]?\s*")
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


def is_merge_subject(subject: str) -> bool:
    """``Merge pull request #1306 from user/PR-1139``, ``Merge branch 'STORY-4'``,
    ``Merge STORY-104 into main``: what follows names branches, never a story."""
    return subject.lstrip().startswith(MERGE_PREFIX)


def collect_ids(subject: str, body_lines: Iterable[str], story_values: Iterable[str],
                pattern: str) -> list[str]:
    """The one rule for what names a story (the hooks, ``story rebuild``, ``genesis sync``
    and the prefixes ``genesis init`` proposes all use it): ids in the subject unless it is
    a merge subject, ids that open a body line, ``Story:`` trailer values."""
    found = [] if is_merge_subject(subject) else ids_in_text(subject, pattern)
    for line in body_lines:
        found.extend(head_ids(line, pattern)[0])
    exact = _compiled(pattern)
    for value in story_values:
        for v in value.replace(",", " ").replace("，", " ").split():
            if exact.fullmatch(v):
                found.append(v)
    return _unique(found)


def story_ids(commit: CommitInfo, pattern: str) -> list[str]:
    """Story ids of a commit: the subject, ids that open a body line, ``Story:`` trailers;
    none for a merge commit (it binds nothing: what it brings was bound by its own commits)."""
    if commit.is_merge:
        return []
    return collect_ids(commit.subject, commit.message.splitlines()[1:],
                commit.trailer_values(STORY_TRAILER), pattern)


def title_from_subject(subject: str, pattern: str) -> str:
    """``"STORY-12: Add a discount code"`` gives ``"Add a discount code"``."""
    return head_ids(subject, pattern)[1].strip() or subject.strip()


def skipped_ids(commit: CommitInfo, rules: StoryRules) -> list[str]:
    """Ids that ``story.pattern`` alone would bind but the prefixes or the never-binding
    tokens rule out (``story rebuild`` reports them)."""
    kept = set(story_ids(commit, rules.effective))
    return [i for i in story_ids(commit, rules.pattern) if i not in kept]


def unrecognised_id(subject: str) -> str | None:
    """A lower- or mixed-case id at the start of a subject (``story-16: …``), which the
    default pattern does not bind."""
    import re

    m = re.match(rf"\s*[\[(【]?\s*([A-Za-z][A-Za-z0-9]+-\d+)(?![{_GLUE}])", subject)
    if m and not re.fullmatch(DEFAULT_PATTERN, m.group(1)) and \
            re.fullmatch(DEFAULT_PATTERN, m.group(1).upper()):
        return m.group(1)
    return None


# -- the settings, as the hooks read them -----------------------------------------------

LIGHT_ENV = (setting_variable("story", "pattern"), setting_variable("story", "require_story"))
STORY_ENV_PREFIX = setting_variable("story", "")


def _mentions_story(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return any("story" in line.lower() for line in fh
                       if not line.lstrip().startswith("#"))
    except OSError:
        return False


def story_settings(root: str) -> StoryRules:
    """The ``story.*`` settings for the worktree at ``root``: read from the environment
    alone when no configuration file mentions stories (the hooks' fast path), else by the
    real loader, which also says what is wrong."""
    import os
    require_env = os.environ.get(LIGHT_ENV[1])
    needs_full = any(_mentions_story(os.path.join(root, name))
                     for name in ("pyproject.toml", ".genesis.toml"))
    if require_env is not None and parse_bool(require_env) is None:
        needs_full = True  # let the real loader say what is wrong
    if any(k.startswith(STORY_ENV_PREFIX) and k not in LIGHT_ENV for k in os.environ):
        needs_full = True
    if needs_full:
        from pathlib import Path

        from genesis_git.config.settings import load_config

        return StoryRules.from_config(load_config(Path(root)))
    pattern = os.environ.get(LIGHT_ENV[0], DEFAULT_PATTERN)
    return StoryRules(pattern, require=bool(require_env is not None and parse_bool(require_env)))
