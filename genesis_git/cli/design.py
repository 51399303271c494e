"""``genesis design …``: the design reference library (init, ingest, search, brief, protocol)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from genesis_git.kernel.errors import ExitCode

if TYPE_CHECKING:
    from genesis_git.design.ingest import IngestReport
    from genesis_git.design.library import Library

app = typer.Typer(
    help="The design reference library: cards with tokens and sources, deterministic search, "
         "briefs, requests and feedback. Plain files under design.library_dir.",
    no_args_is_help=True)
ingest_app = typer.Typer(help="Add cards: the shipped rules, a docs folder, the inbox, or "
                              "another library's manifest.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _lib() -> Library:
    from genesis_git.app.facade import Genesis

    return Genesis().design.library


def _echo(lines: list[str]) -> None:
    from genesis_git.cli.output import echo

    for line in lines:
        echo(line)


def _render_ingest(report: IngestReport, json_out: bool) -> None:
    from genesis_git.cli.output import emit_json, warn
    from genesis_git.kernel.errors import GenesisError
    from genesis_git.render.design import ingest_lines, ingest_warnings

    for w in ingest_warnings(report):
        warn(w)
    if json_out:
        emit_json(report.as_dict())
    else:
        _echo(ingest_lines(report))
    if report.rejected:
        raise GenesisError(f"{len(report.rejected)} item(s) rejected",
                           hint="fix them and ingest again; the others were ingested")


@app.command()
def init(json_out: JsonOpt = False) -> None:
    """Create the library folder, the reader query.mjs and an empty manifest (idempotent)."""
    from genesis_git.cli.output import emit_json
    from genesis_git.design.manage import init_library
    from genesis_git.render.design import init_lines

    result = init_library(_lib())
    if json_out:
        emit_json(result)
        return
    _echo(init_lines(result))


@ingest_app.command("rules")
def ingest_rules(json_out: JsonOpt = False) -> None:
    """Ingest the rule cards shipped with genesis (WCAG 2.2, Material, Apple HIG, HarmonyOS)."""
    from genesis_git.design.ingest import ingest_rules as run

    _render_ingest(run(_lib()), json_out)


@ingest_app.command("docs")
def ingest_docs(
    folder: Annotated[str, typer.Argument(help="Folder of Markdown documents (inside the "
                                               "repository); one card per document.")],
    json_out: JsonOpt = False,
) -> None:
    """Ingest one card per Markdown document: a summary plus the key values found in it."""
    from genesis_git.design.ingest import ingest_docs as run

    _render_ingest(run(_lib(), folder), json_out)


@ingest_app.command("inbox")
def ingest_inbox(json_out: JsonOpt = False) -> None:
    """Ingest inbox/<name>.png|jpg with <name>.meta.json (title, tags, source, license)."""
    from genesis_git.design.ingest import ingest_inbox as run

    _render_ingest(run(_lib()), json_out)


@ingest_app.command("manifest")
def ingest_manifest(
    file: Annotated[str, typer.Argument(help="manifest.json of another library (inside the "
                                             "repository).")],
    json_out: JsonOpt = False,
) -> None:
    """Import the cards of another library's manifest.json, with their images."""
    from genesis_git.design.ingest import ingest_manifest as run

    _render_ingest(run(_lib(), file), json_out)


@app.command()
def search(
    query: Annotated[list[str], typer.Argument(help="Words to search for, e.g. 深色 卡片 间距.")],
    top: Annotated[int | None, typer.Option("-k", "--top", min=1,
                                            help="Results to show (default design.top).")] = None,
    top_n: Annotated[int | None, typer.Option("-n", min=1, hidden=True,
                                              help="The former spelling of -k.")] = None,
    json_out: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
) -> None:
    """Search the library: BM25 plus token, tag and profile boosts, with a score breakdown.

    Exit 0 when a card is found, 1 when none is.
    """
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note, warn
    from genesis_git.render.design import search_markdown, search_text

    result = Genesis().design.search(" ".join(query), top if top is not None else top_n,
                                     strict=False)
    for w in result["warnings"]:
        warn(w)
    if json_out:
        emit_json(result)
    elif markdown:
        echo(search_markdown(result).rstrip("\n"))
    elif not result["results"]:
        note("no results")  # stdout stays empty, as grep's does
    else:
        echo(search_text(result).rstrip("\n"))
    if not result["results"]:
        raise typer.Exit(int(ExitCode.USER_ERROR))


@app.command("list")
def list_cmd(
    kind: Annotated[str | None, typer.Option("--kind", help="Only cards of this source kind: "
                                                            "official, rule, user, project.")] = None,
    status: Annotated[str | None, typer.Option("--status",
                                               help="Only active or blocked cards.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List the cards of the library."""
    from genesis_git.cli.output import emit_json
    from genesis_git.design.manage import list_cards
    from genesis_git.render.design import card_lines

    cards = list_cards(_lib(), kind=kind, status=status)
    if json_out:
        emit_json(cards)
        return
    _echo(card_lines(cards))


@app.command()
def brief(
    task: Annotated[str | None, typer.Argument(help="The task or query the brief is for "
                                                    "(default: the request's scene).")] = None,
    out: Annotated[str | None, typer.Option("--out", help="Where to write the brief "
                                                          "(default tasks/design-brief.md).")] = None,
    request: Annotated[str | None, typer.Option("--request", help="Answer this design "
                                                                  "request, e.g. q-1.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Write 3-5 reference cards for a task and append an inspiration record to outbox-dsh.md."""
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, note, warn

    result = Genesis().design.brief(task, out=out, request=request)
    for w in result["warnings"]:
        warn(w)
    if json_out:
        emit_json(result)
        return
    from genesis_git.render.design import brief_note

    echo(result["text"].rstrip("\n"))
    note(brief_note(result))


@app.command()
def request(
    scene: Annotated[str, typer.Argument(help="What the reference is for, e.g. "
                                              "'dark mode · home cards · empty list'.")],
    expect: Annotated[str, typer.Option("--expect", help="What kind of answer is expected.")] = "",
    json_out: JsonOpt = False,
) -> None:
    """Append a design-request record to outbox-deveco.md (answer it with brief --request)."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.protocol import OUTBOX_DEVECO
    from genesis_git.design.protocol import request as run

    lib = _lib()
    rec = run(lib, scene, expect)
    if json_out:
        emit_json(rec.as_dict())
        return
    echo(f"design-request #{rec.id} appended to {lib.display(lib.shared_path(OUTBOX_DEVECO))}")


@app.command()
def status(json_out: JsonOpt = False) -> None:
    """Show whether the library is available and which design requests are unanswered or stalled."""
    from genesis_git.cli.output import emit_json
    from genesis_git.design.protocol import status as run
    from genesis_git.render.design import status_lines

    result = run(_lib())
    if json_out:
        emit_json(result)
        return
    _echo(status_lines(result))


@app.command()
def feedback(
    card: Annotated[str, typer.Argument(help="Card id, e.g. DSG-0007.")],
    action: Annotated[str, typer.Argument(help="useful (weight ×1.1), off (×0.8), block "
                                               "(never returned) or unblock.")],
    note_text: Annotated[str, typer.Option("--note", help="Why, for the history.")] = "",
    json_out: JsonOpt = False,
) -> None:
    """Record feedback on a card in feedback.jsonl and adjust its weight or status."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.feedback import feedback as run

    entry = run(_lib(), card, action, note_text)
    if json_out:
        emit_json(entry)
        return
    from genesis_git.render.design import feedback_line

    echo(feedback_line(entry))


@app.command()
def capture(
    baseline: Annotated[str, typer.Option("--baseline", help="JSON file of the visual baseline "
                                                            "(tokens, title, images).")],
    confirmed: Annotated[bool, typer.Option("--confirmed", help="The user confirmed this "
                                                                "baseline; required.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Turn a confirmed visual baseline into a project card."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.capture import capture as run

    result = run(_lib(), baseline, confirmed=confirmed)
    if json_out:
        emit_json(result)
        return
    from genesis_git.render.design import capture_line

    echo(capture_line(result))


@app.command("check-refs")
def check_refs(
    file: Annotated[str, typer.Argument(help="Spec (criteria) or audit (checks) JSON with "
                                             "designRefs.")],
    json_out: JsonOpt = False,
) -> None:
    """Check designRefs of a spec or audit and compare each ref's tokens with actual values."""
    from genesis_git.cli.output import emit_json, warn
    from genesis_git.design.refs import check_refs as run
    from genesis_git.kernel.errors import GenesisError
    from genesis_git.render.design import check_refs_lines, check_refs_warnings

    report = run(_lib(), file)
    for w in check_refs_warnings(report):
        warn(w)
    if json_out:
        emit_json(report)
    else:
        _echo(check_refs_lines(report))
    if report["errors"]:
        raise GenesisError(f"{len(report['errors'])} design reference error(s) in "
                           f"{report['document']}")


@app.command()
def stats(json_out: JsonOpt = False) -> None:
    """Cards by kind and status, chunks, index size, feedback counts and reference images."""
    from genesis_git.cli.output import emit_json
    from genesis_git.design.manage import stats as run
    from genesis_git.render.design import stats_lines

    result = run(_lib())
    if json_out:
        emit_json(result)
        return
    _echo(stats_lines(result))
