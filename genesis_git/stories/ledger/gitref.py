"""The ledger ref in git: its trees read, records appended by compare-and-swap.

:mod:`genesis_git.stories.ledger.records` says what a record is and where it lives in
the ledger's tree; this module reads and writes those trees with git's own
plumbing (``cat-file --batch``, ``ls-tree``, ``read-tree``/``write-tree``,
``commit-tree`` and ``update-ref REF NEW OLD``), never touching a working
tree or the user's index.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from genesis_git.kernel.gitrun import GitError, no_git_env, run_git
from genesis_git.stories.ledger.outbox import wall_ms
from genesis_git.stories.ledger.records import (
    FORMAT,
    LEDGER_REF,
    MARKER,
    REMOTES_PREFIX,
    Record,
    Warn,
    _stderr_warn,
    batch_files,
    parse_blob,
    winner,
)


def git(root: str | Path, *args: str, input: bytes | None = None, check: bool = True,
        env: dict[str, str] | None = None, timeout: float | None = None) -> bytes:
    """``git args`` in ``root`` through the one door, without the inherited ``GIT_*``
    variables (:func:`~genesis_git.kernel.gitrun.no_git_env`) unless ``env`` is given; a
    failure is a :class:`~genesis_git.kernel.gitrun.GitError`."""
    return run_git(args, root, input=input, env=env or no_git_env(), check=check, timeout=timeout,
                   name=args[0]).stdout


def resolve(root: str | Path, ref: str) -> str | None:
    out = git(root, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
    return out.decode().strip() or None


def ledger_refs(root: str | Path) -> list[tuple[str, str]]:
    """``(ref, object)`` of the local ledger ref and every remote's copy, in name order."""
    out = git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/genesis/")
    refs = []
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, sha = line.partition(" ")
        if name == LEDGER_REF or (name.startswith(REMOTES_PREFIX) and name.endswith("/ledger")):
            refs.append((name, sha))
    return refs


def _cat_batch(root: str | Path, names: Sequence[str]) -> list[bytes | None]:
    """The contents of objects (``None`` for a missing one) with one ``git cat-file``."""
    if not names:
        return []
    out = git(root, "cat-file", "--batch", input="".join(n + "\n" for n in names).encode())
    result: list[bytes | None] = []
    pos = 0
    for _ in names:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[-1] == b"missing":
            result.append(None)
            continue
        size = int(header[2])
        result.append(out[pos:pos + size])
        pos += size + 1
    return result


def tree_files(root: str | Path, commit: str) -> dict[str, str] | None:
    """``path -> blob`` of a ledger commit's tree; ``None`` when it is not a ledger."""
    out = git(root, "ls-tree", "-r", "-z", "--full-tree", commit, check=False)
    files: dict[str, str] = {}
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            files[path.decode("utf-8", "surrogateescape")] = parts[2].decode()
    if MARKER not in files:
        return None
    return files


def read_blobs(root: str | Path, shas: Sequence[str]) -> dict[str, bytes]:
    unique = list(dict.fromkeys(shas))
    return {sha: data or b"" for sha, data in zip(unique, _cat_batch(root, unique), strict=True)}


def _report(bad: list[str], warn: Warn | None, what: str) -> None:
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        (warn or _stderr_warn)(f"skipped {len(bad)} malformed ledger record"
                               f"{'s' if len(bad) > 1 else ''} in {what}: {bad[0]}{more}")


def commit_records(root: str | Path, commit: str, *, paths: Iterable[str] | None = None,
                   warn: Warn | None = None, what: str | None = None,
                   lines: list[str] | None = None) -> list[Record] | None:
    """The records of one ledger commit (only ``paths`` when given); ``None`` if the
    commit is not a ledger.  With ``lines``, each record's text is appended to it."""
    files = tree_files(root, commit)
    if files is None:
        return None
    wanted = [p for p in (files if paths is None else paths) if p in files and p != MARKER]
    blobs = read_blobs(root, [files[p] for p in wanted])
    bad: list[str] = []
    out: list[Record] = []
    for p in wanted:
        out.extend(parse_blob(blobs[files[p]], p, bad, lines))
    _report(bad, warn, what or commit[:12])
    return out


def read_records(repo_root: str | Path, ref: str | None = None, *,
                 warn: Warn | None = None) -> Iterator[Record]:
    """Every record of the ledger ref ``ref`` (default: the local ledger and every
    remote's copy), each id once (of two different records with one id, the
    :func:`~genesis_git.stories.ledger.records.winner`, with one warning).  Malformed
    records are skipped with one warning per ref; a ref that is not a ledger is skipped
    with one warning."""
    refs = [(ref, resolve(repo_root, ref) or "")] if ref else ledger_refs(repo_root)
    chosen: dict[str, tuple[Record, str]] = {}
    conflicts: list[str] = []
    for name, sha in refs:
        if not sha:
            continue
        lines: list[str] = []
        records = commit_records(repo_root, sha, warn=warn, what=name, lines=lines)
        if records is None:
            (warn or _stderr_warn)(f"{name} is not a genesis ledger; skipped")
            continue
        for rec, line in zip(records, lines, strict=True):
            old = chosen.get(rec.id)
            if old is None:
                chosen[rec.id] = (rec, line)
            elif old[1] != line and json.loads(old[1]) != json.loads(line):
                conflicts.append(rec.id)
                best = winner(old[1].encode(), line.encode(), rec.id.encode())
                chosen[rec.id] = old if best == old[1].encode() else (rec, line)
    report_conflicts(conflicts, warn)
    for rec, _line in chosen.values():
        yield rec


def report_conflicts(ids: Sequence[str], warn: Warn | None) -> None:
    """One warning for records whose id came with two different contents."""
    unique = sorted(set(ids))
    if unique:
        more = f" (and {len(unique) - 1} more)" if len(unique) > 1 else ""
        (warn or _stderr_warn)(f"ledger record {unique[0]}{more} came with two different "
                               "contents; every clone keeps the same one")


# -- writing -------------------------------------------------------------------------------

def _identity_env(root: str | Path) -> dict[str, str]:
    """A commit identity for ledger commits: the user's, else a neutral one (a ledger
    write must not fail because ``user.email`` is unset)."""
    env = no_git_env()
    for who in ("AUTHOR", "COMMITTER"):
        for part, key in (("NAME", "user.name"), ("EMAIL", "user.email")):
            var = f"GIT_{who}_{part}"
            if not env.get(var):
                value = git(root, "config", key, check=False).decode().strip()
                env[var] = value or ("genesis" if part == "NAME" else "genesis@localhost")
    return env


def write_commit(root: str | Path, base: str | None, files: dict[str, bytes],
                 parents: Sequence[str], message: str) -> str:
    """A commit whose tree is ``base``'s tree with ``files`` (path -> content) written
    over it; the marker file is always there.  Returns its SHA; no ref moves."""
    env = _identity_env(root)
    with tempfile.TemporaryDirectory(prefix="genesis-ledger-") as tmp:
        index_env = dict(env, GIT_INDEX_FILE=os.path.join(tmp, "index"))
        if base:
            git(root, "read-tree", base, env=index_env)
        else:
            git(root, "read-tree", "--empty", env=index_env)
        contents = dict(files)
        contents.setdefault(MARKER, (FORMAT + "\n").encode())
        names = []
        for i, data in enumerate(contents.values()):
            name = os.path.join(tmp, f"b{i}")
            with open(name, "wb") as fh:
                fh.write(data)
            names.append(name)
        shas = git(root, "hash-object", "-w", "--no-filters", "--stdin-paths",
                   input="".join(n + "\n" for n in names).encode(), env=env).decode().split()
        info = "".join(f"100644 {sha}\t{path}\n" for path, sha in zip(contents, shas, strict=True))
        git(root, "update-index", "--add", "--index-info", input=info.encode(), env=index_env)
        tree = git(root, "write-tree", env=index_env).decode().strip()
    args = ["commit-tree", tree]
    for p in parents:
        args += ["-p", p]
    return git(root, *args, "-m", message, env=env).decode().strip()


def update_ref(root: str | Path, ref: str, new: str, old: str | None, reason: str) -> bool:
    """Move ``ref`` to ``new`` only if it still points at ``old`` (``None``: only if it
    does not exist): git's own compare-and-swap.  False when someone else moved it."""
    zero = "0" * len(new)
    return run_git(["update-ref", "-m", reason, ref, new, old or zero], root, env=no_git_env(),
                   check=False).returncode == 0


def append_records(repo_root: str | Path, records: Iterable[Record], ref: str = LEDGER_REF,
                   *, attempts: int = 20) -> str | None:
    """Add ``records`` to the ledger ``ref`` in one commit, as one new file (nothing
    already written changes); safe against concurrent writers (compare-and-swap on the
    ref, retried).  Returns the new commit, or
    ``None`` when there was nothing new to add."""
    batch = list(records)
    if not batch:
        return None
    files = batch_files(batch, wall_ms())
    for attempt in range(attempts):
        old = resolve(repo_root, ref)
        current = tree_files(repo_root, old) if old else {}
        if current is None:
            raise GitError(f"{ref} is not a genesis ledger")
        changed = {path: data for path, data in files.items() if path not in current}
        if not changed:
            return None
        n = len(batch)
        commit = write_commit(repo_root, old, changed, [old] if old else [],
                              f"genesis ledger: {n} record{'s' if n != 1 else ''}")
        if update_ref(repo_root, ref, commit, old, "genesis: append records"):
            return commit
        time.sleep(min(0.02 * (attempt + 1), 0.2))
    raise GitError(f"{ref} kept moving; the records were not written")


