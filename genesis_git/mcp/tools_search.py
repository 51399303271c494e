"""The tools that find things: ``search`` (ranked, exact or regex), ``impact``, ``symbols``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from genesis_git.kernel.vocabulary import ARTIFACT_TYPES, SEARCH_MODES
from genesis_git.mcp.common import STORE_ONLY, WRITES_STORE, call, choice, enum

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from genesis_git.app.facade import Genesis
    from genesis_git.mcp.server import GenesisTools

MATCHES = ("ranked", "fixed", "regex")
Cursor = Annotated[str | None, Field(
    description="The next_cursor of an earlier answer that was cut, to get the rest; repeat "
                "that call's other arguments unchanged.")]
Repo = Annotated[str | None, Field(
    description="Absolute path of the repository (or a folder inside it); default: the "
                "server's working directory.")]

SEARCH = f"""Find where something is in the repository's files as they are now (uncommitted
edits included): code, docs, config, SQL.

Use match="ranked" (default) for words, identifiers, a question or a pasted error message:
the best passages, each with path, lines, score and matched terms. Use match="fixed" or
match="regex" to get EVERY line that holds an exact string or a regular expression (like
git grep -n), files that define it first; use the symbols tool to find where a name is
defined. A long answer is cut and gives next_cursor; pass it back as cursor. {WRITES_STORE}"""

IMPACT = f"""Before changing code for a requirement, issue or bug report: which files,
symbols, tables and fields it affects, ranked, each with evidence lines (path:line) and the
reasons of its score (text match, references, co-change history, similar stories). Pass the
requirement's own text; a pasted issue is fine. A long answer is cut and gives next_cursor;
pass it back as cursor. {WRITES_STORE}"""

SYMBOLS = f"""Where a name is defined (class, function, method, SQL or ORM table,
module-level variable such as a constant), as
path:line with its kind; with refs=true also every line that uses the name as a whole word;
with outline=<file> everything one file defines, in line order. Use it instead of search
when you know the identifier. A dotted name (OrderController.create_order) narrows to that
class, or to the nearest class it derives from that defines the method (Flask.route is
Scaffold.route; via names the two). A long answer is cut and gives next_cursor; pass it back as cursor. {WRITES_STORE}"""


def register(server: MCPServer[Any], tools: GenesisTools) -> None:
    @server.tool(annotations=STORE_ONLY, description=SEARCH)
    def search(
        query: Annotated[str, Field(
            description="What to look for. match=ranked: words, identifiers, Chinese or a "
                        "pasted error message. match=fixed: the exact text. match=regex: a "
                        "Python regular expression.")],
        match: Annotated[str, Field(
            description="ranked: the best passages (default). fixed / regex: every matching "
                        "line, like git grep.", json_schema_extra=enum(*MATCHES))] = "ranked",
        ignore_case: Annotated[bool, Field(
            description="match=fixed or regex only: ignore case.")] = False,
        k: Annotated[int | None, Field(
            description="ranked: results (default 10); with files, files. fixed/regex: at "
                        "most this many files (default all).", ge=1, le=500)] = None,
        type: Annotated[list[str] | None, Field(json_schema_extra=enum(*ARTIFACT_TYPES),
            description="ranked only: keep these kinds of file. REQ requirements, ARCH "
                        "architecture/ADRs, API specs, DB schemas/migrations, UI templates "
                        "and styles, CODE source, OTHER the rest.")] = None,
        path: Annotated[list[str] | None, Field(
            description="Only paths matching one of these globs, e.g. 'src/**' or '*.sql'.")
                        ] = None,
        component: Annotated[str | None, Field(
            description="ranked only: keep one component of the system: its top-level folder "
                        "(e.g. 'billing'), or a name the repository's classify.components "
                        "setting gives.")] = None,
        owner: Annotated[str | None, Field(
            description="ranked only: keep files this CODEOWNERS owner owns, e.g. "
                        "'@team-db'.")] = None,
        max_staleness: Annotated[float | None, Field(
            description="ranked only: keep files at most this stale, 0 (changed recently) to "
                        "1 (untouched for long, by its last commit's age).", ge=0, le=1)]
                        = None,
        files: Annotated[bool, Field(
            description="ranked only: one result per file, its best passages under it.")]
                        = False,
        mode: Annotated[str | None, Field(
            description="ranked only: hybrid (default: words and meaning), lexical (words "
                        "only) or vector (meaning only).",
            json_schema_extra=enum(*SEARCH_MODES))] = None,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        args = {"query": query, "match": match, "ignore_case": ignore_case, "k": k,
                "type": type, "path": path, "component": component, "owner": owner,
                "max_staleness": max_staleness, "files": files, "mode": mode}
        if match in ("fixed", "regex"):
            return _grep(tools, repo, args, cursor)

        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.kernel.errors import UsageError
            from genesis_git.render.search import summary, to_json

            choice("match", match, MATCHES)
            choice("mode", mode, SEARCH_MODES)
            for one in type or ():
                choice("type", one, ARTIFACT_TYPES)
            if ignore_case:
                raise UsageError("ignore_case goes with match=fixed or match=regex")
            options = g.search.options(k=k, mode=mode, types=tuple(type or ()),
                                       paths=tuple(path or ()), component=component,
                                       owner=owner, max_staleness=max_staleness, files=files)
            return to_json(g.search.run(query, options), files), summary
        return call(tools, repo, "search", args, "results", cursor, produce)

    @server.tool(annotations=STORE_ONLY, description=IMPACT)
    def impact(
        requirement: Annotated[str, Field(
            description="The requirement, issue or bug report, in its own words.")],
        k: Annotated[int, Field(description="Files to return (and as many file impacts).",
                                ge=1, le=200)] = 10,
        history: Annotated[bool, Field(
            description="Use the git history: files changed together, similar past commits, "
                        "churn, the files of the last commits.")] = True,
        graph: Annotated[bool, Field(
            description="Use the reference graph: imports, definitions, table columns.")] = True,
        stories: Annotated[bool, Field(
            description="Use the files of similar stories of the ledger.")] = True,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        args = {"requirement": requirement, "k": k, "history": history, "graph": graph,
                "stories": stories}

        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.impact import summary

            report = g.impact.run(requirement, g.impact.options(
                k=k, history=history, graph=graph, stories=stories))
            result = report.result

            def render(data: dict[str, Any]) -> str:
                return summary(result, report.warnings, report.suggestions) if \
                    "truncated" not in data else f"{len(data['files'])} files shown of " \
                    f"{data['truncated']['total']}:\n" + "\n".join(
                        f"{f.get('path')}  {f.get('score')}" for f in data["files"])
            return report.to_json(), render
        return call(tools, repo, "impact", args, "files", cursor, produce)

    @server.tool(annotations=STORE_ONLY, description=SYMBOLS)
    def symbols(
        name: Annotated[str | None, Field(
            description="The identifier: a class, function, method (Class.method) or table, "
                        "as written in code too (Class.method()). Leave it out with "
                        "outline.")] = None,
        refs: Annotated[bool, Field(
            description="Also every line that uses name as a whole word (its references).")]
                        = False,
        outline: Annotated[str | None, Field(
            description="A file (relative to the repository's root): list what it defines "
                        "instead.")] = None,
        path: Annotated[list[str] | None, Field(
            description="refs only: keep references in paths matching these globs.")] = None,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        args = {"name": name, "refs": refs, "outline": outline, "path": path}
        key = "references" if refs else "definitions"

        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.kernel.errors import UsageError
            from genesis_git.mcp.common import repo_relative
            from genesis_git.render.symbols import symbol_summary

            if (name is None) == (outline is None):
                raise UsageError("give name or outline (one of them)")
            if outline is not None:
                if refs or path:
                    raise UsageError("refs and path go with name, not with outline")
                return g.symbols.outline(repo_relative(g, "outline", outline)), symbol_summary
            assert name is not None
            return g.symbols.lookup(name, refs=refs, paths=tuple(path or ())), symbol_summary
        return call(tools, repo, "symbols", args, key, cursor, produce)


def _grep(tools: GenesisTools, repo: str | None, args: dict[str, Any],
          cursor: str | None) -> CallToolResult:
    def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
        from genesis_git.kernel.errors import UsageError
        from genesis_git.render.symbols import grep_json, grep_summary

        ranked_only = [n for n in ("type", "component", "owner", "max_staleness", "files",
                                   "mode") if args[n]]
        if ranked_only:
            raise UsageError(f"{ranked_only[0]} goes with match=ranked, not match="
                             f"{args['match']}")
        result = g.search.grep(args["query"], regex=args["match"] == "regex",
                               ignore_case=args["ignore_case"], paths=tuple(args["path"] or ()),
                               k=args["k"])
        return grep_json(result), grep_summary
    return call(tools, repo, "search", args, "matches", cursor, produce, related="files")
