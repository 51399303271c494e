"""The change under review, read from git: its files, the lines each hunk touched, its commits.

A change is one of

* the staged changes (``--staged``): the index against ``HEAD``;
* the working tree's tracked changes against ``HEAD`` (no argument), as ``git diff HEAD``;
* one commit (``HEAD``, ``a1b2c3d``): the commit against its first parent;
* a range as ``git diff`` reads it: ``A..B`` (the two trees) or ``A...B`` (``B`` against
  the merge base, what a pull request shows).

Renames are read as a deletion and an addition (``--no-renames``), so that both paths are
part of the change.  Paths are read with ``-z`` and never unquoted by guesswork.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from genesis_git.git.repo import Repo
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.kernel.gitrun import GitError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DIFF = ("-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-renames",
         "--no-textconv", "--ignore-submodules")

Lines = list[tuple[int, int]]  # inclusive line ranges


@dataclass
class Change:
    """What a change touched.  ``files`` maps each path to its status (``A``, ``M``, ``D``,
    ``T``); ``new_lines`` and ``old_lines`` are the hunks' line ranges on each side."""

    label: str
    base: str  # the tree-ish of the "before" side
    tip: str | None  # the commit of the "after" side; None for the index or the working tree
    files: dict[str, str] = field(default_factory=dict)
    new_lines: dict[str, Lines] = field(default_factory=dict)
    old_lines: dict[str, Lines] = field(default_factory=dict)
    commits: list[tuple[str, str]] = field(default_factory=list)  # (sha, message), oldest first
    head: str | None = None  # the commit whose history is "the past" (base side)

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "base": self.base, "tip": self.tip,
                "files": [{"path": p, "status": s} for p, s in sorted(self.files.items())],
                "commits": [sha for sha, _ in self.commits]}


def _verify(repo: Repo, rev: str) -> str:
    if rev.startswith("-"):
        raise GenesisError(f"not a revision: {rev!r}", hint="a revision cannot start with '-'")
    out = repo.git("rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}",
                   check=False).decode().strip()
    if not out:
        hint = ("try HEAD, a commit, A..B or origin/main...HEAD" if repo.head_sha() else
                "the repository has no commit yet; --staged checks what is staged")
        raise GenesisError(f"not a revision or range: {rev!r}", hint=hint)
    return out


def _parent(repo: Repo, sha: str) -> str:
    out = repo.git("rev-parse", "--verify", "-q", sha + "^1", check=False).decode().strip()
    return out or EMPTY_TREE


def read_change(repo: Repo, rev: str | None = None, *, staged: bool = False) -> Change:
    """The change named by ``rev`` (see the module's doc), or the staged changes."""
    if staged and rev is not None:
        raise UsageError(f"the staged changes have no revision (got {rev!r})")
    head = repo.head_sha()
    if staged or rev is None:
        base = head or EMPTY_TREE
        change = Change("staged" if staged else "working tree", base, None, head=head)
        args = ["--cached", base] if staged else [base]
    elif "..." in rev or ".." in rev:
        sym = "..." in rev
        left, right = rev.split("..." if sym else "..", 1)
        a, b = _verify(repo, left or "HEAD"), _verify(repo, right or "HEAD")
        base = a
        if sym:
            mb = repo.git("merge-base", a, b, check=False).decode().split()
            if not mb:
                raise GenesisError(f"{rev!r}: the two sides have no common ancestor")
            base = mb[0]
        change = Change(rev, base, b, head=base)
        args = [base, b]
        change.commits = _commits(repo, f"{a}..{b}")
    else:
        tip = _verify(repo, rev)
        base = _parent(repo, tip)
        change = Change(rev, base, tip, head=None if base == EMPTY_TREE else base)
        args = [base, tip]
        change.commits = _commits(repo, tip, one=True)
    status = repo.git(*_DIFF, "--name-status", "-z", *args, "--")
    fields = status.split(b"\0")
    for st, path in zip(fields[0::2], fields[1::2], strict=False):
        if st:
            change.files[path.decode("utf-8", "surrogateescape")] = st.decode()[:1]
    if change.files:
        _read_hunks(repo.git(*_DIFF, "-U0", "--src-prefix=a/", "--dst-prefix=b/", *args, "--"),
                    change)
    return change


def _commits(repo: Repo, rev: str, *, one: bool = False) -> list[tuple[str, str]]:
    opts = ["--no-merges", "--reverse"] + (["--max-count=1"] if one else ["--max-count=500"])
    try:
        return [(c.header.partition(b"\x02")[0].decode(),
                 c.header.partition(b"\x02")[2].decode("utf-8", "replace"))
                for c in repo.log("%H%x02%B", rev, options=opts, names=False)]
    except GitError:  # pragma: no cover - the revisions were verified
        return []


def _unquote(raw: bytes) -> bytes:
    """A path as git quotes it in a patch header (C escapes in double quotes)."""
    if not raw.startswith(b'"'):
        return raw
    body = raw[1:-1] if raw.endswith(b'"') else raw[1:]
    out = bytearray()
    i = 0
    named = {ord("n"): 10, ord("t"): 9, ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("r"): 13,
             ord("v"): 11, ord('"'): 34, ord("\\"): 92}
    while i < len(body):
        ch = body[i]
        if ch == 92 and i + 1 < len(body):
            nxt = body[i + 1]
            if 48 <= nxt <= 55:  # three octal digits
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(named.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return bytes(out)


def _read_hunks(patch: bytes, change: Change) -> None:
    old_path = new_path = None
    for line in patch.split(b"\n"):
        if line.startswith(b"--- "):
            name = _unquote(line[4:].rstrip(b"\t"))
            old_path = name[2:].decode("utf-8", "surrogateescape") if name != b"/dev/null" else None
        elif line.startswith(b"+++ "):
            name = _unquote(line[4:].rstrip(b"\t"))
            new_path = name[2:].decode("utf-8", "surrogateescape") if name != b"/dev/null" else None
        elif line.startswith(b"@@"):
            m = _HUNK.match(line)
            if not m:
                continue
            o_start, o_len = int(m.group(1)), int(m.group(2) or 1)
            n_start, n_len = int(m.group(3)), int(m.group(4) or 1)
            if old_path is not None and o_len:
                change.old_lines.setdefault(old_path, []).append((o_start, o_start + o_len - 1))
            if new_path is not None and n_len:
                change.new_lines.setdefault(new_path, []).append((n_start, n_start + n_len - 1))
            elif new_path is not None:  # lines removed only: the line after them changed
                change.new_lines.setdefault(new_path, []).append((n_start, n_start + 1))


def texts(repo: Repo, change: Change, paths: list[str], *, new: bool = True) -> dict[str, str]:
    """The text of each of ``paths`` on one side of the change, read in one batch (a path
    that is absent there, or binary, is left out)."""
    if not paths:
        return {}
    if new and change.tip is None and change.label != "staged":  # the working tree
        raw: dict[str, bytes] = {}
        for path in paths:
            try:
                raw[path] = (repo.root / path).read_bytes()
            except OSError:
                continue
    else:
        if new and change.tip is None:
            listing = repo.git("--literal-pathspecs", "ls-files", "-s", "-z", "--", *paths)
        elif not new and change.base == EMPTY_TREE:
            return {}
        else:
            side = change.tip if new and change.tip else change.base
            listing = repo.git("--literal-pathspecs", "ls-tree", "-z", side, "--", *paths)
        ids: dict[str, str] = {}
        for entry in listing.split(b"\0"):
            head, _, name = entry.partition(b"\t")
            fields = head.split()
            if len(fields) == 3:  # ls-files: mode sha stage; ls-tree: mode type sha
                sha = fields[1] if new and change.tip is None else fields[2]
                ids[name.decode("utf-8", "surrogateescape")] = sha.decode()
        blobs = repo.cat_blobs(sorted(set(ids.values())))
        raw = {path: blobs[sha] for path, sha in ids.items() if sha in blobs}
    return {path: data.decode("utf-8", "replace") for path, data in raw.items()
            if b"\0" not in data[:8000]}
