"""What the story pages show, read through the :class:`~genesis_git.app.facade.Genesis`
façade: the requirement document, the timeline, the net files by artifact type and what a
tester should look at.  Nothing here writes, and nothing here is HTML but the requirement,
which markdown-it renders with raw HTML turned off (its text escaped, unsafe links
dropped)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

# the longest requirement read for its impact and rendered on the page (characters)
REQUIREMENT_CHARS = 200_000
# the things a tester is shown
LOOK_AT = 12


def requirement(g: Genesis, ctx: dict[str, Any], *, html: bool = True) -> dict[str, Any] | None:
    """The story's requirement document as recorded (the blob the session named), else as
    the working tree holds it: ``{"path", "section", "text", "html", "version"}``; without
    ``html`` (a reader of its text only), ``"html"`` is ``None`` and nothing is rendered."""
    reqs = ctx["artifacts"].get("requirement") or []
    if not reqs:
        return None
    art = reqs[-1]  # the latest requirement bound to the story
    text = None
    version = art.get("doc_version")
    if version and len(version) in (40, 64):
        try:
            blob = g.workspace.repo.cat_blobs([version]).get(version)
        except GenesisError:
            blob = None
        if blob is not None:
            text = blob[:REQUIREMENT_CHARS * 4].decode("utf-8", "replace")
    if text is None and art.get("path"):  # a version this clone lacks: the file as it is here
        data = tracked_file(g, art["path"])
        text = data[:REQUIREMENT_CHARS * 4].decode("utf-8", "replace") if data is not None else None
    return {"path": art.get("path"), "section": art.get("section"), "version": version,
            "text": text, "html": markdown(text) if html and text is not None else None,
            "by": art.get("created_by"), "project": art.get("project")}


def tracked_file(g: Genesis, path: str, limit: int = 2_000_000) -> bytes | None:
    """The working tree's copy of ``path`` when git tracks it , its first ``limit`` bytes (a path
    outside the repository, a link leading out of it or an untracked file is ``None``)."""
    if not path or "\0" in path or path.startswith("/"):
        return None
    repo = g.workspace.repo
    try:
        listed = repo.git("ls-files", "-z", "--", f":(literal){path}")
    except GenesisError:
        return None
    if path.encode("utf-8", "surrogateescape") not in listed.split(b"\0"):
        return None
    root = repo.root.resolve()
    full = (root / path).resolve()
    if not full.is_relative_to(root) or not full.is_file():
        return None
    try:
        with full.open("rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def markdown(text: str) -> str:
    """Markdown as HTML with raw HTML shown as text (``js-default``: no HTML, no unsafe
    link schemes)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("js-default").enable("table").render(text[:REQUIREMENT_CHARS])


def timeline(ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """Commits, artifacts (notes with their roles, decisions, risks, the requirement) and
    links in one list, oldest first: ``{"kind", "at", "who", "text", "sha"?, "path"?, …}``."""
    items: list[dict[str, Any]] = []
    for c in ctx["commits"]:
        gone = c.get("reachable") is False
        items.append({"kind": "commit", "at": c.get("date") or "", "who": c.get("author"),
                      "text": c.get("subject") or "", "sha": c["sha"], "short": c["short"],
                      "project": c.get("project"),
                      "state": ("not fetched here" if gone and c.get("fetched") is False
                                else "unreachable: rewritten or dropped" if gone else "")})
    for role, arts in ctx["artifacts"].items():
        for a in arts:
            items.append({"kind": role, "at": a.get("created_at") or "", "who": a.get("created_by"),
                          "text": (a.get("summary") or "").strip(), "path": a.get("path"),
                          "section": a.get("section"), "private": bool(a.get("private")),
                          "project": a.get("project")})
    for lk in ctx["links"]:
        items.append({"kind": "link", "at": lk.get("created_at") or "", "who": None,
                      "text": lk.get("description") or "", "link_type": lk["type"],
                      "target": lk["target"], "project": lk.get("project")})
    items.sort(key=lambda i: _instant(i["at"]))
    return items


def _instant(stamp: str) -> str:
    """A sortable UTC instant of a commit date (``+00:00``) or a record time (``Z``)."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def files_by_type(g: Genesis | None, files: list[dict[str, Any]]) -> dict[str, list[dict]]:
    """The net files grouped by artifact type (the classification ``genesis search --type``
    uses, with the repository's ``[classify] rules``), types in their usual order."""
    from genesis_git.index.classify import artifact_type
    from genesis_git.kernel.vocabulary import ARTIFACT_TYPES

    rules: dict[str, str] = {}
    if g is not None:
        rules = {str(k): str(v) for k, v in g.workspace.config.settings.classify.rules.items()}
    groups: dict[str, list[dict[str, Any]]] = {t: [] for t in ARTIFACT_TYPES}
    for f in files:
        groups[artifact_type(f["path"], None, rules)].append(f)
    return {t: items for t, items in groups.items() if items}


def diff_text(ctx: dict[str, Any]) -> str:
    """What the story's diff is about, as a requirement: its changed paths and its commit
    subjects."""
    parts = [f["path"] for f in ctx["files"] if f["change"] != "removed"]
    parts += [c.get("subject") or "" for c in ctx["commits"]]
    return " ".join(p for p in parts if p)


def requirement_text(ctx: dict[str, Any], req: dict[str, Any] | None) -> str:
    """The requirement's text, else the story's title and its analysis and decisions."""
    if req is not None and req.get("text"):
        return str(req["text"])
    parts = [ctx["story"].get("title") or ""]
    for role in ("requirement", "analysis", "decision", "test_model"):
        parts += [a.get("summary") or "" for a in ctx["artifacts"].get(role, [])]
    return " ".join(p for p in parts if p)


def look_at(g: Genesis, ctx: dict[str, Any], req: dict[str, Any] | None) -> dict[str, Any]:
    """What a tester should look at: the impact of the story's requirement and of its diff,
    merged per target, highest score first, each with its evidence and whether the story
    changed its file.  ``{"items": [...], "warnings": [...]}``."""
    changed = {f["path"] for f in ctx["files"]}
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    notes: list[str] = []
    refresh = True  # the session refreshed once, for the first of the two
    for origin, text in (("requirement", requirement_text(ctx, req)), ("diff", diff_text(ctx))):
        if not text.strip():
            continue
        try:
            result = g.impact.run(text, g.impact.options(k=LOOK_AT), use_rag=False,
                                  refresh=refresh)
            refresh = False
        except GenesisError as exc:
            notes.append(f"impact of the {origin}: {exc}")
            continue
        for imp in result.impacts:
            key = (imp.kind, imp.target)
            item = merged.get(key)
            if item is None:
                item = merged[key] = {**imp.as_dict(), "origins": [], "changed": imp.path in changed}
            elif imp.score > item["score"]:
                item.update({**imp.as_dict(), "origins": item["origins"], "changed": item["changed"]})
            if origin not in item["origins"]:
                item["origins"].append(origin)
    items = sorted(merged.values(), key=lambda i: (-i["score"], -len(i["origins"]), i["target"]))
    return {"items": items[:LOOK_AT], "warnings": notes, "story": ctx["story"]["story_id"]}
