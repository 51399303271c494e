"""``genesis impact "REQUIREMENT"``: the files, symbols and fields a requirement affects, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from genesis_git.impact.agent import ImpactReport


def _reasons(f: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:+.3f}" for k, v in f["reasons"].items())


def _where(item: dict[str, Any]) -> str:
    from genesis_git.text.quoting import quote_path

    lines = item["lines"]
    path = quote_path(str(item["path"]))
    return f"{path}:{lines[0]}-{lines[1]}" if lines else path


def _render_text(report: ImpactReport) -> None:
    from genesis_git.cli.output import echo

    result = report.result
    echo(f"impact of: {result['requirement'].strip()}  [{result['mode']}]")
    echo("")
    echo("files:")
    from genesis_git.text.quoting import escape_controls as esc
    from genesis_git.text.quoting import quote_path

    for i, f in enumerate(result["files"], 1):
        echo(f"{i:>3}. {quote_path(f['path'])}  {f['score']:.3f}  ({_reasons(f)})")
    echo("")
    echo("impacts:")
    for item in result["impacts"]:
        echo(f"  [{item['type']}] {item['kind']} {esc(item['target'])}  {_where(item)}")
        if item["detail"]:
            echo(f"      {esc(item['detail'])}")
        for ev in item["evidence"]:
            echo(f"      > {esc(ev)}")


def _render_markdown(report: ImpactReport) -> None:
    from genesis_git.cli.output import echo

    result = report.result
    echo(f"# Impact: {result['requirement'].strip()}")
    echo("")
    echo(f"Mode: {result['mode']}")
    echo("")
    from genesis_git.text.quoting import escape_controls as esc
    from genesis_git.text.quoting import quote_path

    echo("| # | file | score | reasons |")
    echo("|---|---|---|---|")
    for i, f in enumerate(result["files"], 1):
        echo(f"| {i} | `{quote_path(f['path'])}` | {f['score']:.3f} | {_reasons(f)} |")
    echo("")
    echo("## Impacts")
    echo("")
    for item in result["impacts"]:
        echo(f"- **{item['type']}** {item['kind']} `{esc(item['target'])}` (`{_where(item)}`)"
             + (f": {esc(item['detail'])}" if item["detail"] else ""))
        for ev in item["evidence"]:
            echo(f"  - `{esc(ev)}`")


def impact(
    requirement: Annotated[str, typer.Argument(
        help='The requirement, e.g. "订单表新增字段 discount_code" or "add a discount code to orders".')],
    rag: Annotated[bool | None, typer.Option(
        "--rag/--no-rag",
        help="Ask the LLM engine with the retrieved chunks (default: on when an engine is set).")
    ] = None,
    engine: Annotated[str | None, typer.Option(
        "--engine", help='LLM engine: none, openai, or "cmd:<command line>" (default: impact.engine).')
    ] = None,
    k: Annotated[int, typer.Option("-k", help="Files (and file impacts) to return.")] = 10,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the result as Markdown.")] = False,
    prompt: Annotated[bool, typer.Option(
        "--prompt", help="Print the assembled LLM prompt and exit (pipe it into any LLM).")] = False,
    no_history: Annotated[bool, typer.Option(
        "--no-history", help="Leave out the git history signals (co-change, similar commits, churn).")] = False,
    no_graph: Annotated[bool, typer.Option(
        "--no-graph", help="Leave out the reference-graph signal (imports, table columns).")] = False,
    no_stories: Annotated[bool, typer.Option(
        "--no-stories", help="Leave out the signal from similar stories of the ledger.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="Do not refresh the session index first.")] = False,
) -> None:
    """Rank the files, symbols and fields a requirement affects, with evidence lines and reasons."""
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import emit_json, note, warn
    from genesis_git.kernel.errors import UsageError
    from genesis_git.text.quoting import quoted

    if json_out and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if k < 1:
        raise UsageError(f"-k must be at least 1 (got {k})")
    with Genesis() as g:
        report = g.investigate(requirement, use_rag=rag, engine=engine, k=k, graph=not no_graph,
                               history=not no_history, stories=not no_stories,
                               prompt_only=prompt, refresh=not no_refresh, announce=note)
    if prompt:
        assert report.prompt is not None
        typer.echo(report.prompt, nl=False)
        return
    for w in report.warnings:
        warn(w)
    if json_out:
        emit_json(report.to_json())
    elif markdown:
        _render_markdown(report)
    elif report.matched:
        _render_text(report)
    if not report.matched:
        text = f"nothing in the index matches {quoted(requirement)}"
        if report.suggestions:
            text += "; close terms: " + ", ".join(report.suggestions)
        note(text)


def register(app: Any) -> None:
    """Add the top-level ``impact`` command to ``app``."""
    app.command("impact")(impact)
