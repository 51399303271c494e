"""``genesis check [REV-RANGE | --staged]``: the files a change probably should have touched
and did not, each with its evidence."""

from __future__ import annotations

from typing import Annotated, Any

import typer


def check(
    rev: Annotated[str | None, typer.Argument(
        metavar="REV-RANGE",
        help="A commit (HEAD), or a range as git diff reads it: A..B, or A...B for B against "
             "the merge base (what a pull request shows). Default: the working tree's "
             "changes to tracked files.")] = None,
    staged: Annotated[bool, typer.Option(
        "--staged", "--cached", help="Check the staged changes (what git commit would record).")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print Markdown for a pull-request comment (nothing when nothing is "
                           "missing).")] = False,
    show_all: Annotated[bool, typer.Option(
        "--all", help="List every candidate, below the confidence threshold too.")] = False,
    min_confidence: Annotated[float | None, typer.Option(
        "--min-confidence", metavar="P",
        help="Show files whose confidence (0-1) reaches P (default: check.min_confidence).")
    ] = None,
    top: Annotated[int | None, typer.Option(
        "-k", "--top", help="Rank at most this many files (default: check.top).")] = None,
    source: Annotated[list[str] | None, typer.Option(
        "--source", metavar="SOURCE",
        help="Read only this evidence (repeatable): co-change, references, tests, story, docs "
             "(default: check.sources).")] = None,
    story: Annotated[list[str] | None, typer.Option(
        "--story", metavar="ID",
        help="Lend the evidence of this story (repeatable; default: the stories the commits "
             "name).")] = None,
    fail_on: Annotated[float | None, typer.Option(
        "--fail-on", metavar="P",
        help="Exit 6 when a file's confidence reaches P (default: check.fail_on; 0 never).")
    ] = None,
) -> None:
    """Rank the files this change probably should have touched and did not: files that changed
    with these in the past, users of the definitions it edited, the tests of the modules it
    edited, the story's files, and docs that name what it edited.

    Only files whose confidence reaches check.min_confidence are shown; on a complete change
    the answer is usually nothing.  Exit 0 (also when something is shown, as a linter
    that only warns), 6 with --fail-on when a file reaches that confidence.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note, warn, width
    from genesis_git.kernel.errors import ExitCode, UsageError
    from genesis_git.render import check as render

    if json_out and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if staged and rev is not None:
        raise UsageError("--staged and a revision cannot be used together")
    for value, name in ((min_confidence, "--min-confidence"), (fail_on, "--fail-on")):
        if value is not None and not 0 <= value <= 1:
            raise UsageError(f"{name} must be between 0 and 1 (got {value:g})")
    with Genesis() as g:
        result = g.check.run(rev, staged=staged, min_confidence=0.0 if show_all else min_confidence,
                             top=top, sources=source, story=story if story else True)
        limit = fail_on if fail_on is not None else g.workspace.config.settings.check.fail_on
    for w in result.warnings:
        warn(w)
    data = result.to_json()
    if json_out:
        emit_json(data)
    elif markdown:
        for line in render.markdown_lines(data):
            echo(line)
    else:
        for line in render.text_lines(data, width()):
            echo(line)
    if not result.change.files:
        note(f"nothing to check: {result.change.label} has no changes")
    elif not data["missing"]:
        note(render.nothing_missing(data))
    if result.fails(limit):
        raise typer.Exit(int(ExitCode.CHECK_FAILED))


def register(app: Any) -> None:
    """Add the top-level ``check`` command to ``app``."""
    app.command("check")(check)
