"""``genesis story context``: the whole increment of a story, without its original session.

Sections, in order: the record; the commits (SHA, date, author, subject; whether
this clone has fetched each and whether it is still reachable); the net changed
files (a file added and then removed nets to nothing; the files of a commit that
was rewritten or dropped here do not count); the
artifacts grouped by role, the requirement first; the links; and, on request,
the most relevant chunks of the current index for the story's text.
"""

from __future__ import annotations

import heapq
import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from genesis_git.git.repo import Repo
from genesis_git.store import stories as story_rows
from genesis_git.stories import tables as ledger

if TYPE_CHECKING:
    from genesis_git.index.session import Context

# (story text, k) -> (hits, notes): the code search of the repository the story belongs to
CodeSearch = Callable[[str, int], tuple[list[dict[str, Any]], list[str]]]


SKEW = 24 * 3600  # seconds a clock may be behind another's and its commits still ordered


def _commits(conn: sqlite3.Connection, story_id: str) -> list[dict[str, Any]]:
    """The story's commits, oldest first, the same in every clone: an ancestor always
    before its descendant, however the clocks that made them were set and through
    whichever story's commits they descend; otherwise by commit time, then the time of
    the link's record and the SHA. The ledger's commits are read from a day (:data:`SKEW`)
    before the first to a day after the last."""
    by_sha: dict[str, dict[str, Any]] = {}
    order: dict[str, tuple[Any, ...]] = {}
    parents: dict[str, list[str]] = {}
    for link in ledger.commit_links(conn, story_id):
        sha = link["target_ref"]
        meta = json.loads(link["meta"]) if link["meta"] else {}
        by_sha[sha] = {"sha": sha, "short": sha[:10], "date": meta.get("date"),
                       "author": meta.get("author"),
                       "subject": meta.get("subject", link["description"])}
        order[sha] = (int(meta.get("committed") or 0), link["created_at"] or "", sha)
        parents[sha] = [p for p in meta.get("parents") or [] if isinstance(p, str)]
    if len(order) > 1:  # other stories' commits may lie between them
        times = [o[0] for o in order.values()]
        # the story's own links say their parents even without a time
        parents = {**story_rows.commit_graph(conn, min(times) - SKEW, max(times) + SKEW),
                   **parents}
    return [by_sha[sha] for sha in in_history(order, parents)]


def in_history(order: dict[str, tuple[Any, ...]], parents: dict[str, list[str]]) -> list[str]:
    """The keys of ``order`` sorted so that an ancestor (through ``parents``, which may
    hold other commits) comes before its descendants, and otherwise by ``order``."""
    # the story's commits below each commit, as a bit mask: a walk without recursion
    bit = {sha: 1 << i for i, sha in enumerate(order)}
    below: dict[str, int] = {}
    for start in order:
        stack, on_stack = [start], {start}
        while stack:
            sha = stack[-1]
            if sha in below:
                on_stack.discard(stack.pop())
                continue
            todo = [p for p in parents.get(sha, []) if p not in below and p not in on_stack]
            if todo:
                stack.extend(todo)
                on_stack.update(todo)
                continue
            mask = 0
            for p in parents.get(sha, []):
                mask |= below.get(p, 0) | bit.get(p, 0)
            below[sha] = mask
            on_stack.discard(stack.pop())
    waiting = {sha: bin(below[sha]).count("1") for sha in order}
    after: dict[str, list[str]] = {sha: [] for sha in order}
    for sha in order:
        for other in order:
            if below[sha] & bit[other]:
                after[other].append(sha)
    ready = [(order[sha], sha) for sha in order if waiting[sha] == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _, sha = heapq.heappop(ready)
        out.append(sha)
        for later in after[sha]:
            waiting[later] -= 1
            if waiting[later] == 0:
                heapq.heappush(ready, (order[later], later))
    if len(out) < len(order):  # parents that make a cycle (a ledger written by hand)
        placed = set(out)
        out += sorted((sha for sha in order if sha not in placed), key=order.__getitem__)
    return out


def net_files(changes: list[tuple[str, str]]) -> list[dict[str, str]]:
    """Fold ``(path, change_type)`` in commit order into the net change of each path."""
    first: dict[str, str] = {}
    last: dict[str, str] = {}
    for path, kind in changes:
        first.setdefault(path, kind)
        last[path] = kind
    out = []
    for path in sorted(first):
        existed = first[path] != "added"
        exists = last[path] != "removed"
        if not existed and not exists:
            continue
        change = "updated" if existed and exists else ("added" if exists else "removed")
        out.append({"path": path, "change": change})
    return out


def _files(conn: sqlite3.Connection, story_id: str, commits: list[dict[str, Any]]) -> list[dict]:
    """The net files of the story's commits but those this clone holds and no ref reaches
    (rewritten or dropped: their changes are not in the history any more)."""
    order = {c["sha"]: i for i, c in enumerate(commits)}
    gone = {c["sha"] for c in commits if c.get("reachable") is False and c.get("fetched")}
    rows = [r for r in story_rows.commit_files(conn, story_id, ledger.COMMIT_SOURCE)
            if r["doc_id"] not in gone]
    rows.sort(key=lambda r: (order.get(r["doc_id"], len(order)), r["id"]))
    return net_files([(r["path"], r["change_type"]) for r in rows])


def _artifacts(conn: sqlite3.Connection, story_id: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {role: [] for role in ledger.ROLE_ORDER}
    for a in story_rows.shown_artifacts(conn, story_id, ledger.COMMIT_SOURCE):
        groups[a["artifact_role"]].append({
            "id": a["id"], "summary": a["summary"], "path": a["path"], "section": a["section"],
            "doc_id": a["doc_id"], "doc_version": a["doc_version"],
            "change_type": a["change_type"], "source_ref": a["source_ref"],
            "created_at": a["created_at"], "created_by": a["created_by"],
            # shared: in the ledger that `genesis sync` shares; private: a --private note
            "shared": a["record_private"] == 0, "private": a["record_private"] == 1})
    return {role: items for role, items in groups.items() if items}


def _links(conn: sqlite3.Connection, story_id: str) -> list[dict[str, Any]]:
    return [{"type": r["link_type"], "target": r["target_ref"], "description": r["description"],
             "created_at": r["created_at"]}
            for r in story_rows.other_links(conn, story_id)]


def story_query(ctx: dict[str, Any], limit: int = 2000) -> str:
    """The story's text for a code search: title, commit subjects, artifact summaries."""
    parts = [ctx["story"]["title"] or ""]
    parts += [c["subject"] or "" for c in ctx["commits"]]
    for items in ctx["artifacts"].values():
        parts += [a["summary"] or "" for a in items]
    return " ".join(p for p in parts if p)[:limit]


def reachable(repo: Repo, shas: list[str]) -> dict[str, bool]:
    """Whether a branch, a remote-tracking branch, a tag or HEAD holds each commit (a commit
    dropped by a rebase or a reset is held by none)."""
    out: dict[str, bool] = {}
    for sha in shas:
        held = repo.git("for-each-ref", "--count=1", "--format=%(refname)", "--contains", sha,
                        "refs/heads", "refs/remotes", "refs/tags", check=False).strip()
        if not held:
            held = b"HEAD" if run_ok(repo, "merge-base", "--is-ancestor", sha, "HEAD") else b""
        out[sha] = bool(held)
    return out


def fetched(repo: Repo, shas: list[str]) -> set[str]:
    """The commits whose objects this clone holds (one ``git cat-file`` call): a commit a
    teammate made and pushed is not here until it is fetched, which is not a rewrite."""
    if not shas:
        return set()
    out = repo.git("cat-file", "--batch-check=%(objectname) %(objecttype)",
                   input="".join(f"{sha}\n" for sha in shas).encode(), check=False)
    return {ln.split()[0] for ln in out.decode("utf-8", "replace").splitlines()
            if ln.endswith(" commit")}


def run_ok(repo: Repo, *args: str) -> bool:
    from genesis_git.git.repo import run_git

    return run_git(list(args), repo.root, check=False).returncode == 0


def build_context(conn: sqlite3.Connection, story_id: str, *, with_code: int = 0,
                  code_search: CodeSearch | None = None,
                  repo: Repo | None = None) -> dict[str, Any]:
    """The story's context; with ``repo``, each commit says whether this clone holds it
    (``fetched``) and whether a ref reaches it (``reachable``); the net files leave out
    the commits held here that no ref reaches.

    ``with_code`` adds the most relevant chunks that ``code_search`` finds for the story's
    text: the search of the story's own repository (see :func:`search_code`), never the
    working directory's."""
    row = ledger.require_record(conn, story_id)
    commits = _commits(conn, story_id)
    if repo is not None:
        shas = [c["sha"] for c in commits]
        here = fetched(repo, shas)
        held = reachable(repo, [sha for sha in shas if sha in here])
        for c in commits:
            c["reachable"] = held.get(c["sha"], False)
            c["fetched"] = c["sha"] in here
    ctx: dict[str, Any] = {
        "story": ledger.record_dict(row),
        "commits": commits,
        "files": _files(conn, story_id, commits),
        "artifacts": _artifacts(conn, story_id),
        "links": _links(conn, story_id),
        "notes": [],
    }
    if with_code > 0:
        if code_search is None:
            raise ValueError("with_code needs code_search, the code search of the story's "
                             "repository")
        hits, notes = code_search(story_query(ctx), with_code)
        ctx["code"] = hits
        ctx["notes"].extend(notes)
    return ctx


def search_code(sctx: Context, query: str, k: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``k`` most relevant chunks of the index of ``sctx``'s repository (its session
    refreshed, or started, first)."""
    from genesis_git.index.session import ensure_session
    from genesis_git.search import SearchOptions, search

    if not query.strip():
        return [], ["--with-code skipped: the story has no text to search for"]
    notes: list[str] = []
    session_id = ensure_session(sctx, refresh=True, announce=notes.append)
    result = search(sctx, session_id, query, SearchOptions(k=k))
    notes.extend(result.warnings)
    hits = [{"path": h.path, "start_line": h.start_line, "end_line": h.end_line,
             "section": h.section, "symbol": h.symbol, "score": round(float(h.score), 4),
             "text": h.text} for h in result.hits]
    return hits, notes
