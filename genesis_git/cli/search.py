"""``genesis search``: hybrid lexical + vector search over the session index."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from genesis_git.search import SearchResult

HELP = """Search the working tree as it is now: BM25 (identifiers split, Chinese bigrams,
synonyms, path tokens) fused with vector similarity. The session is refreshed
first (only what changed is read); a repository without a session gets one."""


def search_cmd(
    query: Annotated[str, typer.Argument(help="What to look for (words, identifiers, Chinese).")],
    k: Annotated[int | None, typer.Option("-k", "--top", help="Results to show (default: search.k).")] = None,
    mode: Annotated[str | None, typer.Option(
        "--mode", help="hybrid, lexical or vector (default: search.mode).")] = None,
    types: Annotated[list[str] | None, typer.Option(
        "--type", help="Only this artifact type: REQ, ARCH, API, DB, UI, CODE, OTHER (repeatable).")] = None,
    paths: Annotated[list[str] | None, typer.Option(
        "--path", metavar="GLOB", help="Only paths matching this glob, e.g. 'src/**' (repeatable).")] = None,
    component: Annotated[str | None, typer.Option(
        "--component", help="Only this system component (top-level folder or classify.components).")] = None,
    owner: Annotated[str | None, typer.Option(
        "--owner", help="Only files this CODEOWNERS owner owns (e.g. @team-db).")] = None,
    max_staleness: Annotated[float | None, typer.Option(
        "--max-staleness", help="Only files with a staleness score at most this (0 new .. 1 old).")] = None,
    files: Annotated[bool, typer.Option(
        "--files", help="Group by file: a file's score is its best chunk; chunks listed under it.")] = False,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Show each result's score breakdown and matched query terms.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the stable JSON schema.")] = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print a Markdown context block for an LLM prompt.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="Search the session as last indexed; skip the refresh.")] = False,
) -> None:
    """Search code and docs with hybrid BM25 + vector retrieval, filters and explanations."""
    from genesis_git.kernel.errors import UsageError

    if json_out and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if not query.strip():
        raise UsageError("empty query", hint='say what to look for, e.g. genesis search "order table"')
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one matrix-vector product: no pool
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import emit_json, note, warn

    with Genesis() as g:
        options = g.search.options(k=k, mode=mode, types=tuple(types or ()),
                                   paths=tuple(paths or ()), component=component, owner=owner,
                                   max_staleness=max_staleness, files=files)
        result = g.search.run(query, options, refresh=not no_refresh, announce=note)
    for w in result.warnings:
        (note if w.startswith("no results") else warn)(w)
    if json_out:
        from genesis_git.search.shapes import to_json

        emit_json(to_json(result, files))
    elif markdown:
        from genesis_git.cli.output import echo
        from genesis_git.search.shapes import to_markdown

        echo(to_markdown(result, files).rstrip("\n"))
    else:
        _render(result, files, explain)


def _render(result: SearchResult, files: bool, explain: bool) -> None:
    from genesis_git.cli.output import echo, stdout_is_tty
    from genesis_git.search import group_by_file
    from genesis_git.search.explain import explain_lines, snippet
    from genesis_git.text.quoting import quote_path

    rrf_k = int(result.stats.get("rrf_k", 60))
    if stdout_is_tty():
        _render_rich(result, files, explain)
        return
    if files:
        for fh in group_by_file(result.hits):
            ranges = ", ".join(f"{h.start_line}-{h.end_line}" for h in fh.chunks)
            echo(f"{quote_path(fh.path)}\t{fh.score:.6f}\t{fh.artifact_type}\tlines {ranges}")
            if explain:
                best = fh.chunks[0]
                echo(f"    matched: {', '.join(best.matched_terms) or '-'}")
                for line in explain_lines(best.breakdown, rrf_k, result.mode):
                    echo(f"    {line}")
        return
    for h in result.hits:
        echo(f"{quote_path(h.path)}:{h.start_line}-{h.end_line}\t{h.score:.6f}\t{h.artifact_type}\t"
             f"{h.section or h.symbol or '-'}\t"
             f"{snippet(h.text, h.matched_terms, 120)}")
        if explain:
            echo(f"    matched: {', '.join(h.matched_terms) or '-'}")
            for line in explain_lines(h.breakdown, rrf_k, result.mode):
                echo(f"    {line}")


def _highlighted(text: str, terms: list[str]) -> Any:
    from rich.text import Text

    from genesis_git.search.explain import highlight_spans

    out = Text(text)
    for start, end in highlight_spans(text, terms):
        out.stylize("bold yellow", start, end)
    return out


def _render_rich(result: SearchResult, files: bool, explain: bool) -> None:
    from rich.table import Table

    from genesis_git.cli.output import console
    from genesis_git.search import group_by_file
    from genesis_git.search.explain import explain_lines, snippet

    rrf_k = int(result.stats.get("rrf_k", 60))
    table = Table(title=f"{result.query.strip()}  ({result.mode})", title_justify="left",
                  show_lines=explain)
    table.add_column("location" if not files else "file", overflow="fold")
    table.add_column("section", overflow="fold", max_width=30)
    table.add_column("type")
    table.add_column("score", justify="right")
    table.add_column("snippet", overflow="fold", ratio=1)
    if explain:
        table.add_column("why", overflow="fold")
    hits = [fh.chunks[0] for fh in group_by_file(result.hits)] if files else result.hits
    groups = {fh.path: fh for fh in group_by_file(result.hits)} if files else {}
    for h in hits:
        where = h.location
        if files:
            where = f"{h.path}\n" + ", ".join(f"{c.start_line}-{c.end_line}"
                                              for c in groups[h.path].chunks)
        cells: list[Any] = [where, h.section or h.symbol or "", h.artifact_type,
                            f"{h.score:.4f}", _highlighted(snippet(h.text, h.matched_terms),
                                                           h.matched_terms)]
        if explain:
            why = [f"matched: {', '.join(h.matched_terms) or '-'}",
                   *explain_lines(h.breakdown, rrf_k, result.mode)]
            cells.append("\n".join(why))
        table.add_row(*cells)
    console().print(table)


def register(app: typer.Typer) -> None:
    """Add the top-level ``search`` command to the main app."""
    app.command("search", help=HELP)(search_cmd)
