"""``genesis search``: hybrid lexical + vector search over the session index."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from genesis_git.kernel.errors import ExitCode

if TYPE_CHECKING:
    from genesis_git.search import SearchResult

NOTHING_FOUND = ExitCode.USER_ERROR  # grep's and rg's 1: the search ran and found nothing

HELP = """Search the working tree as it is now: BM25 (identifiers split, Chinese bigrams,
synonyms, Chinese words in English, path tokens) fused with vector similarity. One
identifier as the query lists its definitions first, then one file after another.
The session is refreshed first (only what changed is read); a repository without a
session gets one."""


def search_cmd(
    words: Annotated[list[str], typer.Argument(
        metavar="QUERY", help="What to look for: words, identifiers, Chinese (several words "
                              "are one query; quoting them is optional).")],
    k: Annotated[int | None, typer.Option(
        "-k", "--top", help="Results to show (default: search.k).")] = None,
    mode: Annotated[str | None, typer.Option(
        "--mode", help="hybrid, lexical or vector (default: search.mode).")] = None,
    types: Annotated[list[str] | None, typer.Option(
        "--type", help="Only this artifact type: REQ, ARCH, API, DB, UI, CODE, OTHER (repeatable); "
                       "CODE keeps every source file, API and DB ones too.")] = None,
    paths: Annotated[list[str] | None, typer.Option(
        "--path", metavar="GLOB", help="Only paths matching this glob, e.g. 'src/**' (repeatable).")] = None,
    component: Annotated[str | None, typer.Option(
        "--component", help="Only this system component (top-level folder or classify.components).")] = None,
    owner: Annotated[str | None, typer.Option(
        "--owner", help="Only files this CODEOWNERS owner owns (e.g. @team-db).")] = None,
    max_staleness: Annotated[float | None, typer.Option(
        "--max-staleness", metavar="SCORE", help="Only files with a staleness score at most this (0 new .. 1 old).")] = None,
    files: Annotated[bool, typer.Option(
        "--files", help="Rank files, with impact's file evidence (text, names, history); "
                        "each file's matched chunks listed under it. One identifier: the "
                        "files that define it first, then those that use it.")] = False,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Show each result's score breakdown and matched query terms.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the stable JSON schema.")] = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print a Markdown context block for an LLM prompt.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="Search the session as last indexed; skip the refresh.")] = False,
    fixed: Annotated[bool, typer.Option(
        "-F", "--fixed-strings", help="Every line that holds QUERY as written (as git grep "
                                      "-F), files ranked; -k limits the files.")] = False,
    regex: Annotated[bool, typer.Option(
        "-E", "--regex", help="Every line that matches the Python regular expression QUERY, "
                              "files ranked; -k limits the files.")] = False,
    ignore_case: Annotated[bool, typer.Option(
        "-i", "--ignore-case", help="With -F or -E: ignore case.")] = False,
) -> None:
    """Search code and docs with hybrid BM25 + vector retrieval, filters and explanations.

    Exit 0 when something is found, 1 when nothing is (as grep and rg do), 2 for a
    query that has nothing to search for.
    """
    from genesis_git.kernel.errors import UsageError

    query = " ".join(words)
    if json_out and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if not query.strip():
        raise UsageError("empty query", hint='say what to look for, e.g. genesis search "order table"')
    if fixed or regex or ignore_case:
        _grep_mode(query, fixed=fixed, regex=regex, ignore_case=ignore_case, k=k, paths=paths,
                   json_out=json_out, no_refresh=no_refresh,
                   others={"--mode": mode, "--type": types, "--component": component,
                           "--owner": owner, "--max-staleness": max_staleness, "--files": files,
                           "--explain": explain, "--markdown": markdown})
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one matrix-vector product: no pool
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import detail, emit_json, note, warn
    from genesis_git.render.search import stats_line

    with Genesis() as g:
        options = g.search.options(k=k, mode=mode, types=tuple(types or ()),
                                   paths=tuple(paths or ()), component=component, owner=owner,
                                   max_staleness=max_staleness, files=files)
        result = g.search.run(query, options, refresh=not no_refresh, announce=note)
    for w in result.warnings:
        (note if w.startswith("no results") else warn)(w)
    detail(stats_line(result))
    if json_out:
        from genesis_git.render.search import to_json

        emit_json(to_json(result, files))
    elif markdown:
        from genesis_git.cli.output import echo
        from genesis_git.render.search import to_markdown

        echo(to_markdown(result, files).rstrip("\n"))
    else:
        _render(result, files, explain)
    if not result.hits:
        raise typer.Exit(int(NOTHING_FOUND))


def _grep_mode(query: str, *, fixed: bool, regex: bool, ignore_case: bool, k: int | None,
               paths: list[str] | None, json_out: bool, no_refresh: bool,
               others: dict[str, object]) -> None:
    """``-F``/``-E``: every matching line, as ``git grep -n`` prints it, files ranked."""
    from genesis_git.kernel.errors import UsageError

    if fixed and regex:
        raise UsageError("-F/--fixed-strings and -E/--regex cannot be used together")
    if not (fixed or regex):
        raise UsageError("-i/--ignore-case goes with -F or -E")
    given = [name for name, value in others.items() if value]
    if given:
        raise UsageError(f"{given[0]} does not go with -F or -E",
                         hint="-F and -E take -k, --path, -i and --json")
    if k is not None and k < 1:
        raise UsageError("-k must be 1 or more")
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note, paint
    from genesis_git.render.symbols import grep_json, grep_lines

    with Genesis() as g:
        result = g.search.grep(query, regex=regex, ignore_case=ignore_case,
                               paths=tuple(paths or ()), k=k, refresh=not no_refresh,
                               announce=note)
    data = grep_json(result)
    if json_out:
        emit_json(data)
    else:
        for line in grep_lines(data, paint()):
            echo(line)
    if not result.matches:
        raise typer.Exit(int(NOTHING_FOUND))


def _render(result: SearchResult, files: bool, explain: bool) -> None:
    """grep-like lines on a terminal (:mod:`genesis_git.render.terminal`), plain
    tab-separated lines in a pipe (:mod:`genesis_git.render.search`)."""
    from genesis_git.cli.output import echo, paint, stdout_is_tty, width
    from genesis_git.render.search import plain_lines
    from genesis_git.render.terminal import search_lines

    lines = (search_lines(result, files, explain, width(), paint()) if stdout_is_tty()
             else plain_lines(result, files, explain, paint()))
    for line in lines:
        echo(line)


def register(app: typer.Typer) -> None:
    """Add the top-level ``search`` command to the main app."""
    app.command("search", help=HELP)(search_cmd)
