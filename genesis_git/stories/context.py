"""``genesis story context``: the whole increment of a story, without its original session.

Sections, in order: the record; the commits (SHA, date, author, subject); the
net changed files (a file added and then removed nets to nothing); the
artifacts grouped by role, the requirement first; the links; and, on request,
the most relevant chunks of the current index for the story's text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from genesis_git.git.repo import Repo
from genesis_git.kernel.vocabulary import ROLE_REQUIREMENT
from genesis_git.stories import tables as ledger
from genesis_git.text.quoting import quote_path

CodeSearch = Callable[[str, int], tuple[list[dict[str, Any]], list[str]]]


def _commits(conn: sqlite3.Connection, story_id: str) -> list[dict[str, Any]]:
    out = []
    for link in ledger.commit_links(conn, story_id):
        meta = json.loads(link["meta"]) if link["meta"] else {}
        out.append({
            "sha": link["target_ref"],
            "short": link["target_ref"][:10],
            "date": meta.get("date"),
            "author": meta.get("author"),
            "subject": meta.get("subject", link["description"]),
            "_order": (int(meta.get("committed") or 0), link["id"]),
        })
    out.sort(key=lambda c: c["_order"])
    for c in out:
        del c["_order"]
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
    order = {c["sha"]: i for i, c in enumerate(commits)}
    rows = conn.execute(
        "SELECT doc_id, path, change_type, id FROM story_artifacts WHERE story_id=? AND "
        "source_ref=? AND path IS NOT NULL", (story_id, ledger.COMMIT_SOURCE)).fetchall()
    rows.sort(key=lambda r: (order.get(r["doc_id"], len(order)), r["id"]))
    return net_files([(r["path"], r["change_type"]) for r in rows])


def _artifacts(conn: sqlite3.Connection, story_id: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {role: [] for role in ledger.ROLE_ORDER}
    for a in conn.execute(
            "SELECT a.*, r.private AS record_private FROM story_artifacts a "
            "LEFT JOIN ledger_records r ON r.id = a.record_id "
            "WHERE a.story_id=? AND COALESCE(a.source_ref,'')<>? "
            "ORDER BY a.created_at, a.id", (story_id, ledger.COMMIT_SOURCE)):
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
            for r in conn.execute("SELECT * FROM story_links WHERE story_id=? AND "
                                  "link_type<>'commit' ORDER BY id", (story_id,))]


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


def run_ok(repo: Repo, *args: str) -> bool:
    from genesis_git.git.repo import run_git

    return run_git(list(args), repo.root, check=False).returncode == 0


def build_context(conn: sqlite3.Connection, story_id: str, *, with_code: int = 0,
                  code_search: CodeSearch | None = None,
                  repo: Repo | None = None) -> dict[str, Any]:
    """The story's context; with ``repo``, each commit says whether it is still reachable."""
    row = ledger.require_record(conn, story_id)
    commits = _commits(conn, story_id)
    if repo is not None:
        held = reachable(repo, [c["sha"] for c in commits])
        for c in commits:
            c["reachable"] = held[c["sha"]]
    ctx: dict[str, Any] = {
        "story": ledger.record_dict(row),
        "commits": commits,
        "files": _files(conn, story_id, commits),
        "artifacts": _artifacts(conn, story_id),
        "links": _links(conn, story_id),
        "notes": [],
    }
    if with_code > 0:
        search = code_search or search_code
        hits, notes = search(story_query(ctx), with_code)
        ctx["code"] = hits
        ctx["notes"].extend(notes)
    return ctx


def search_code(query: str, k: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``k`` most relevant chunks of the current index (needs the search module)."""
    try:
        from genesis_git.index.session import ensure_session, open_context
        from genesis_git.search import SearchOptions, search
    except ImportError:
        return [], ["--with-code skipped: code search is not available in this installation"]
    if not query.strip():
        return [], ["--with-code skipped: the story has no text to search for"]
    notes: list[str] = []
    sctx = open_context()
    try:
        session_id = ensure_session(sctx, refresh=True, announce=notes.append)
        result = search(sctx, session_id, query, SearchOptions(k=k))
    finally:
        sctx.conn.close()
    notes.extend(result.warnings)
    hits = [{"path": h.path, "start_line": h.start_line, "end_line": h.end_line,
             "section": h.section, "symbol": h.symbol, "score": round(float(h.score), 4),
             "text": h.text} for h in result.hits]
    return hits, notes


# -- rendering ---------------------------------------------------------------------

def _gone(c: dict[str, Any]) -> str:
    return "  (unreachable: rewritten or dropped)" if c.get("reachable") is False else ""


def artifact_body(a: dict[str, Any]) -> str:
    """An artifact on one line: its summary and where it is (path quoted as git does)."""
    where = quote_path(a["path"]) if a["path"] else ""
    if a["section"]:
        where += f" § {a['section']}"
    text = (a["summary"] or "").replace("\n", " ")
    if where and text:
        return f"{text} ({where})"
    return text or where or (a["doc_id"] or "")


def artifact_lines(artifacts: dict[str, list[dict[str, Any]]],
                   line: Callable[[dict[str, Any]], str]) -> list[str]:
    """The artifacts of a story as plain lines, grouped by role (``line`` renders one)."""
    out: list[str] = []
    for role, items in artifacts.items():
        out.append(f"  {role}:")
        out += [f"    - {line(a)}" for a in items]
    return out or ["  (none)"]


def artifact_sections(artifacts: dict[str, list[dict[str, Any]]],
                      line: Callable[[dict[str, Any]], str]) -> list[str]:
    """One Markdown section per role but the requirement (which opens the page)."""
    out: list[str] = []
    for role, items in artifacts.items():
        if role != ROLE_REQUIREMENT:
            out += ["", f"## {role.replace('_', ' ').capitalize()}", *(f"- {line(a)}" for a in items)]
    return out


def _artifact_line(a: dict[str, Any]) -> str:
    line = artifact_body(a)
    who = _who(a.get("created_by"))
    if who:
        when = (a.get("created_at") or "")[:16].replace("T", " ")
        line += f" — {who}" + (f", {when}" if when else "")
    if a.get("private"):
        line += " [private]"
    return line


def _who(created_by: str | None) -> str:
    """``Name <email>`` shown as the name (the e-mail when there is no name)."""
    text = (created_by or "").strip()
    if "<" in text:
        name = text.split("<", 1)[0].strip()
        return name or text.split("<", 1)[1].rstrip(">").strip()
    return text


def render_text(ctx: dict[str, Any]) -> str:
    s = ctx["story"]
    lines = [f"{s['story_id']}: {s['title'] or '(no title)'}",
             f"status: {s['status']}   baseline: {(s['baseline_commit_sha'] or '-')[:10]}   "
             f"updated: {s['updated_at']}", ""]
    lines.append(f"commits ({len(ctx['commits'])}):")
    lines += [f"  {c['short']}  {(c['date'] or '')[:10]}  {c['author']}  {c['subject']}{_gone(c)}"
              for c in ctx["commits"]] or ["  (none)"]
    lines += ["", f"files ({len(ctx['files'])}, net):"]
    lines += [f"  {f['change']:<8} {quote_path(f['path'])}" for f in ctx["files"]] or ["  (none)"]
    lines += ["", "artifacts:", *artifact_lines(ctx["artifacts"], _artifact_line)]
    lines += ["", "links:"]
    lines += [f"  {lk['type']}: {lk['target']}" + (f"  {lk['description']}" if lk["description"]
                                                    else "") for lk in ctx["links"]] or ["  (none)"]
    if "code" in ctx:
        lines += ["", f"relevant code ({len(ctx['code'])}):"]
        lines += [f"  {h['path']}:{h['start_line']}-{h['end_line']}  {h['score']}"
                  for h in ctx["code"]] or ["  (none)"]
    return "\n".join(lines)


def _longest_backticks(text: str) -> int:
    best = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        best = max(best, run)
    return best


def render_markdown(ctx: dict[str, Any]) -> str:
    """The context as Markdown, made to be given to an LLM."""
    s = ctx["story"]
    out = [f"# {s['story_id']}: {s['title'] or '(no title)'}", "",
           f"- status: {s['status']}",
           f"- baseline commit: {s['baseline_commit_sha'] or '-'}",
           f"- updated: {s['updated_at']}", ""]
    reqs = ctx["artifacts"].get(ROLE_REQUIREMENT, [])
    out.append("## Requirement")
    out += [f"- {_artifact_line(a)}" for a in reqs] or ["- (none recorded)"]
    out += ["", f"## Commits ({len(ctx['commits'])})"]
    out += [f"- `{c['short']}` {(c['date'] or '')[:10]} {c['author']}: {c['subject']}{_gone(c)}"
            for c in ctx["commits"]] or ["- (none)"]
    out += ["", f"## Changed files (net, {len(ctx['files'])})"]
    out += [f"- {f['change']}: `{quote_path(f['path'])}`" for f in ctx["files"]] or ["- (none)"]
    out += artifact_sections(ctx["artifacts"], _artifact_line)
    out += ["", "## Links"]
    out += [f"- {lk['type']}: {lk['target']}" + (f" — {lk['description']}" if lk["description"]
                                                   else "") for lk in ctx["links"]] or ["- (none)"]
    if "code" in ctx:
        out += ["", f"## Relevant code ({len(ctx['code'])})"]
        for h in ctx["code"]:
            lang = Path(h["path"]).suffix.lstrip(".")
            fence = "`" * max(3, _longest_backticks(h["text"]) + 1)
            out += ["", f"### `{h['path']}` lines {h['start_line']}-{h['end_line']}", "",
                    f"{fence}{lang}", h["text"].rstrip(), fence]
    return "\n".join(out) + "\n"
