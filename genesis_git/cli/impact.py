"""``genesis impact "REQUIREMENT"``: the files, symbols and fields a requirement affects, and why."""

from __future__ import annotations

from typing import Annotated, Any

import typer


def _render(lines: list[str]) -> None:
    from genesis_git.cli.output import echo

    for line in lines:
        echo(line)


def impact(
    words: Annotated[list[str], typer.Argument(
        metavar="REQUIREMENT",
        help='The requirement, e.g. "订单表新增字段 discount_code" or "add a discount code to '
             'orders" (several words are one requirement; quoting them is optional).')],
    rag: Annotated[bool | None, typer.Option(
        "--rag/--no-rag",
        help="Ask the LLM engine with the retrieved chunks (default: on when an engine is set).")
    ] = None,
    engine: Annotated[str | None, typer.Option(
        "--engine", help='LLM engine: none, openai, or "cmd:<command line>" (default: impact.engine).')
    ] = None,
    k: Annotated[int, typer.Option("-k", "--top", help="Files (and file impacts) to return.")] = 10,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the result as Markdown.")] = False,
    prompt: Annotated[bool, typer.Option(
        "--prompt", help="Print the assembled LLM prompt and exit (pipe it into any LLM).")] = False,
    no_history: Annotated[bool, typer.Option(
        "--no-history", help="Leave out the git history signals (co-change, similar commits, churn, the last commits).")] = False,
    no_graph: Annotated[bool, typer.Option(
        "--no-graph", help="Leave out the reference-graph signal (imports, table columns).")] = False,
    no_stories: Annotated[bool, typer.Option(
        "--no-stories", help="Leave out the signal from similar stories of the ledger.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="Do not refresh the session index first.")] = False,
) -> None:
    """Rank the files, symbols and fields a requirement affects, with evidence lines and reasons.

    Exit 0 when something matched, 1 when nothing did (as grep does), 2 for a
    requirement that has nothing to search for.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import emit_json, note, warn
    from genesis_git.kernel.errors import ExitCode, UsageError

    requirement = " ".join(words)

    if json_out and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if k < 1:
        raise UsageError(f"-k must be at least 1 (got {k})")
    with Genesis(use_rag=None) as g:  # --rag/--no-rag not given: the configured engine decides
        options = g.impact.options(k=k, graph=not no_graph, history=not no_history,
                                   stories=not no_stories)
        report = g.impact.run(requirement, options, use_rag=rag, engine=engine,
                              prompt_only=prompt, refresh=not no_refresh, announce=note)
    if prompt:
        assert report.prompt is not None
        typer.echo(report.prompt, nl=False)
        return
    for w in report.warnings:
        warn(w)
    from genesis_git.render.impact import markdown_lines, no_match, text_lines

    if json_out:
        emit_json(report.to_json())
    elif markdown:
        _render(markdown_lines(report.result))
    elif report.matched:
        _render(text_lines(report.result))
    if not report.matched:
        note(no_match(requirement, report.suggestions))
        raise typer.Exit(int(ExitCode.USER_ERROR))


def register(app: Any) -> None:
    """Add the top-level ``impact`` command to ``app``."""
    app.command("impact")(impact)
