"""``genesis sync [REMOTE]``: fetch the remote's ledger, merge, push, update the view.

1. The clone's pending records go into ``refs/genesis/ledger``.
2. ``git fetch REMOTE +refs/genesis/*:refs/genesis/remotes/REMOTE/*``; a remote
   without a ledger fetches nothing, which is fine.
3. Merge, as git-bug merges its entities: nothing to do when one side
   contains the other, a fast-forward when the remote is ahead, else a merge
   commit (two parents) whose files are the union of both sides' records.
   The result does not depend on who merged first: the same records give the
   same files.
4. ``git push REMOTE refs/genesis/ledger`` (never forced).  If the remote
   moved meanwhile the push is refused as a non-fast-forward, and steps 2-4
   run again (a few times).  A remote that refuses the ref for another reason
   (a hook), cannot be reached, or holds something that is not a ledger under
   ``refs/genesis/ledger`` makes ``error`` of the result one line that keeps the
   remote's own reason; nothing is lost, the records wait for the next sync.
5. The view takes the records it did not have, and commits that name a story
   and that no hook saw (a squash merge done on the server, pulled since) are
   bound.

What the remote has is what step 2 fetched, with ``--prune``: a remote whose
ledger was deleted, or a new host behind the same remote name, has none, and
gets it pushed again.  A local ledger ref that was deleted is written again from
the store, which keeps every record apart from the refs.

Only with ``[ledger] share = true`` is anything pushed, and only to the remotes that
get the ledger (:func:`ledger_remotes`, ``[ledger] remotes``): a sync with another remote
fetches and merges its ledger but never pushes there.  Two syncs at once in
one clone queue on a lock file in the store; every ref update is git's own
compare-and-swap (``git update-ref REF NEW OLD``), retried when it loses.  With
a ``timeout`` (the pre-push hook) every wait, the lock's included, ends by one
deadline.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from genesis_git.kernel.gitrun import no_git_env, run_git
from genesis_git.kernel.transaction import Transaction
from genesis_git.store import kv
from genesis_git.store import ledger as ledger_rows
from genesis_git.store import stories as story_rows
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger import view
from genesis_git.stories.ledger.records import Record, Warn
from genesis_git.stories.ledger.wire import (
    REPAIR,
    Deadline,
    _fetch,
    _push,
    fetch_refspec,
    ledger_state,
    sync_lock,
    tracking_ref,
)

# binds story commits that arrived without a hook seeing them; the story layer gives it
Binder = Callable[[sqlite3.Connection, Any, Any], list[str]]

ATTEMPTS = 5


def _remote_config(root: str | Path) -> tuple[list[str], dict[str, list[str]],
                                                dict[str, str]]:
    """``(remote names, fetch lines by remote, branch -> remote)`` from one git call."""
    out = G.git(root, "config", "-z", "--get-regexp",
                r"^(remote\..*\.(url|fetch)|branch\..*\.remote)$", check=False)
    names: list[str] = []
    fetch: dict[str, list[str]] = {}
    upstream: dict[str, str] = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        key, _, value = item.partition("\n")
        if key.startswith("remote."):
            name, _, what = key[len("remote."):].rpartition(".")
            if name not in names:
                names.append(name)
            if what == "fetch":
                fetch.setdefault(name, []).append(value)
        elif key.startswith("branch.") and key.endswith(".remote"):
            upstream[key[len("branch."):-len(".remote")]] = value
    return names, fetch, upstream


def remotes(root: str | Path) -> list[str]:
    return _remote_config(root)[0]


def _current_branch(root: str | Path) -> str | None:
    head = G.git(root, "rev-parse", "--git-path", "HEAD", check=False).decode().strip()
    try:
        text = (Path(root) / head).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text[len("ref: refs/heads/"):] if text.startswith("ref: refs/heads/") else None


def default_remote(root: str | Path, git_dir: str | Path | None = None) -> str | None:
    """The current branch's upstream remote, else ``origin``, else the only remote."""
    names, _, upstream = _remote_config(root)
    if git_dir is not None:
        try:
            text = (Path(git_dir) / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        branch = text[len("ref: refs/heads/"):] if text.startswith("ref: refs/heads/") else None
    else:
        branch = _current_branch(root)
    up = upstream.get(branch or "")
    if up and up != "." and up in names:
        return up
    if "origin" in names:
        return "origin"
    return names[0] if len(names) == 1 else None


def ledger_remotes(root: str | Path, config: Any,
                   names: Sequence[str] | None = None) -> list[str]:
    """The remotes that get the shared ledger: ``[ledger] remotes`` (written by ``genesis
    init --share``), else ``origin``, else the only remote.  No other remote is ever pushed
    the ledger, whatever the user pushes there.  A named remote that does not exist (now)
    is kept in the list: it gets the ledger once it is added."""
    named = [r.strip() for r in config.settings.ledger.remotes if r.strip()]
    if named:
        return list(dict.fromkeys(named))
    if names is None:
        names = _remote_config(root)[0]
    if "origin" in names:
        return ["origin"]
    return [names[0]] if len(names) == 1 else []


def ensure_fetch_refspec(root: str | Path, remote: str,
                         have: list[str] | None = None) -> bool:
    """Add the ledger's fetch refspec to ``remote`` (so that ``git fetch`` brings it).
    True when it was added."""
    spec = fetch_refspec(remote)
    if have is None:
        have = _remote_config(root)[1].get(remote, [])
    if spec in have:
        return False
    G.git(root, "config", "--add", f"remote.{remote}.fetch", spec)
    return True


def remove_fetch_refspecs(root: str | Path) -> list[str]:
    removed = []
    names, fetch, _ = _remote_config(root)
    for remote in names:
        spec = fetch_refspec(remote)
        if spec in fetch.get(remote, []):
            G.git(root, "config", "--fixed-value", "--unset-all", f"remote.{remote}.fetch", spec,
                  check=False)
            removed.append(remote)
    return removed


def _diff_blobs(root: str | Path, old: str, new: str) -> list[tuple[str, str | None, str | None]]:
    """``(path, old blob, new blob)`` of the files that differ between two ledger commits."""
    out = G.git(root, "diff-tree", "-r", "-z", "--no-renames", old, new)
    tokens = out.split(b"\0")
    result = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if not tok.startswith(b":"):
            continue
        meta = tok[1:].split()
        path = tokens[i].decode("utf-8", "surrogateescape")
        i += 1
        zero = set(b"0")
        a = meta[2].decode() if set(meta[2]) != zero else None
        b = meta[3].decode() if set(meta[3]) != zero else None
        result.append((path, a, b))
    return result


def merged_files(root: str | Path, local: str, theirs: str) -> dict[str, bytes]:
    """The files of ``theirs`` that differ from ``local``, as the union of both sides."""
    files: dict[str, bytes] = {}
    diffs = _diff_blobs(root, local, theirs)
    blobs = G.read_blobs(root, [s for _, a, b in diffs for s in (a, b) if s])
    for path, a, b in diffs:
        if path == R.MARKER:
            continue
        files[path] = R.union_lines(blobs.get(a or "", b""), blobs.get(b or "", b""))
    return files


def merge(root: str | Path, local: str, theirs: str) -> str:
    """A commit with both sides' records (``local`` first parent)."""
    return G.write_commit(root, local, merged_files(root, local, theirs), [local, theirs],
                          "genesis ledger: merge")


def count_new(root: str | Path, old: str | None, new: str) -> int:
    """Records in ``new`` that ``old`` does not have."""
    if old is None:
        recs = G.commit_records(root, new, warn=lambda _m: None)
        return len(recs or [])
    n = 0
    diffs = _diff_blobs(root, old, new)
    blobs = G.read_blobs(root, [s for _, a, b in diffs for s in (a, b) if s])
    for path, a, b in diffs:
        if path == R.MARKER or not b:
            continue
        before = {R._line_id(x) for x in blobs.get(a or "", b"").splitlines() if x.strip()}
        n += sum(1 for x in blobs[b].splitlines() if x.strip() and R._line_id(x) not in before)
    return n


def _merge_into_local(root: str | Path, theirs: str | None,
                      extra: Sequence[Record] = ()) -> str | None:
    """Merge ``theirs`` and the records ``extra`` into the local ledger ref, in one commit
    at most (compare-and-swap, retried); the new tip."""
    batch = R.batch_files(extra, G.wall_ms())  # one new file; nothing written changes
    for attempt in range(20):
        local = G.resolve(root, R.LEDGER_REF)
        base, parents = local, [local] if local else []
        files: dict[str, bytes] = {}
        if theirs is not None and theirs != local:
            if local is None:
                base, parents = theirs, [theirs]
            else:
                common = G.git(root, "merge-base", local, theirs, check=False).decode().strip()
                if common == local:
                    base, parents = theirs, [theirs]  # a fast-forward
                elif common != theirs:
                    files = merged_files(root, local, theirs)
                    parents = [local, theirs]
        if batch:
            current = G.tree_files(root, base) if base else {}
            if current is None:
                raise G.GitError(f"{R.LEDGER_REF} is not a genesis ledger")
            files.update({p: data for p, data in batch.items() if p not in current})
        if not files and len(parents) < 2:
            target = base  # nothing new to write: at most a fast-forward
            if target is None or target == local:
                return local
        else:
            target = G.write_commit(root, base, files, parents,
                                    "genesis ledger: merge" if len(parents) > 1 else
                                    f"genesis ledger: {len(extra)} records")
        if G.update_ref(root, R.LEDGER_REF, target, local, "genesis: merge the remote ledger"):
            return target
        time.sleep(0.02 * (attempt + 1))
    raise G.GitError(f"{R.LEDGER_REF} kept moving during the merge")


def _once(say: Warn) -> Warn:
    """``say``, each line once."""
    said: set[str] = set()

    def once(line: str) -> None:
        if line not in said:
            said.add(line)
            say(line)
    return once


TIP_KEY = "local.tip"  # the local ledger ref as this clone's last sync left it


def _repend_if_ref_lost(conn: sqlite3.Connection, root: str | Path) -> None:
    """A local ledger ref that was deleted, or moved to a commit that does not contain
    what the last sync left there, may have taken records with it: the store's shared
    records wait again, so that the merge puts them back (the union keeps each once)."""
    local = G.resolve(root, R.LEDGER_REF)
    last = kv.get(conn, "ledger", TIP_KEY)
    if local is not None and (last is None or last == local or _contains(root, last, local)):
        return
    with Transaction(conn):
        ledger_rows.repend_shared(conn)


def _contains(root: str | Path, old: str, new: str) -> bool:
    return run_git(["merge-base", "--is-ancestor", old, new], root, env=no_git_env(),
                   check=False).returncode == 0


def _remember_tip(conn: sqlite3.Connection, tip: str | None) -> None:
    if tip is not None:
        with Transaction(conn):
            kv.put(conn, "ledger", TIP_KEY, tip)


def sync(conn: sqlite3.Connection, repo: Any, config: Any, remote: str | None = None, *,
         store_dir: Path, warn: Warn | None = None, timeout: float | None = None,
         bind: Binder | None = None) -> dict[str, Any]:
    """Fetch, merge, push and update the view (see the module's docstring).  ``bind``:
    binds story commits that no hook saw (the pre-push hook leaves it out: it
    must stay quick, and the commits it pushes were made here, under the hooks).
    ``timeout`` bounds the whole sync, lock and network included.  ``error`` of the
    result: why the remote did not get or give the ledger (``None`` when all went well)."""
    root = repo.root
    say = _once(warn or R._stderr_warn)
    share = config.settings.ledger.share
    notes: list[str] = []
    names, fetch_lines, _ = _remote_config(root)
    shared_to = ledger_remotes(root, config, names)
    if remote is None:
        remote = next((r for r in shared_to if r in names), None) if share else None
        remote = remote or default_remote(root, repo.git_dir)
    elif remote not in names:
        from genesis_git.kernel.errors import GenesisError

        raise GenesisError(f"no remote named {remote!r}", hint="see `git remote -v`")
    deadline = Deadline(timeout, f"no answer from {remote}")
    pulled = pushed = 0
    error: str | None = None
    stories: set[str] = set()
    with sync_lock(store_dir, deadline):
        flushed = 0
        _repend_if_ref_lost(conn, root)
        broken = ledger_state(root, R.LEDGER_REF)[1]
        if broken:
            error = f"{R.LEDGER_REF} is broken ({broken}); {REPAIR}"
        elif remote is None:
            if bind:
                stories.update(bind(conn, repo, config))
            flushed = view.flush(conn, root)
            _remember_tip(conn, G.resolve(root, R.LEDGER_REF))
            notes.append("no remote: the ledger stays in this clone "
                         "(add one with `git remote add origin URL`)")
        else:
            ensure_fetch_refspec(root, remote, fetch_lines.get(remote, []))
            for attempt in range(ATTEMPTS):
                error = _fetch(root, remote, deadline)
                theirs, wrong = ledger_state(root, tracking_ref(remote))
                got = view.refresh(conn, root, repo.common_dir, repo.project_id, warn=say)
                pulled += got["imported"]
                stories.update(got["stories"])
                if wrong:
                    theirs = None
                    error = error or (f"{remote}'s {R.LEDGER_REF} is broken ({wrong}); "
                                      f"not merged; {REPAIR}")
                if attempt == 0:
                    if theirs is None and not error:
                        notes.append(f"{remote} has no ledger yet")
                    if bind:
                        # commits no hook saw (a squash merge on the server, pulled since),
                        # bound once the remote's records are in: only what is new is recorded
                        stories.update(bind(conn, repo, config))
                waiting = view.pending(conn)  # written with the merge: one commit at most
                local = _merge_into_local(root, theirs, waiting)
                flushed += view.mark_written(conn, [r.id for r in waiting])
                _remember_tip(conn, local)
                if error:
                    break  # the remote cannot be read, or holds no ledger to build on
                if not share or remote not in shared_to:
                    if local != theirs and local is not None:
                        notes.append(
                            "sharing is off: nothing was pushed (`genesis init --share` "
                            "turns it on for the team)" if not share else
                            f"{remote} does not get the ledger ([ledger] remotes = "
                            f"{', '.join(shared_to) or 'none'}): nothing was pushed")
                    break
                if local is None or local == theirs:
                    break
                ahead = count_new(root, theirs, local)
                ok, moved, message = _push(root, remote, deadline)
                if ok:
                    pushed += ahead
                    G.update_ref(root, tracking_ref(remote), local, theirs,
                                 "genesis: pushed the ledger")
                    break
                if not moved or attempt == ATTEMPTS - 1:
                    error = f"{remote} refused the ledger: {message}"
                    break
        view.refresh(conn, root, repo.common_dir, repo.project_id, warn=say)
    total = story_rows.count(conn)
    return {"remote": remote, "share": share, "shared_to": shared_to, "pulled": pulled,
            "pushed": pushed, "written": flushed, "stories": sorted(stories), "total_stories": total,
            "notes": notes, "error": error}
