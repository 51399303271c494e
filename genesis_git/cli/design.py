"""``genesis design …``: the design reference library (init, ingest, search, brief, protocol)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

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


def _render_ingest(report: IngestReport, json_out: bool) -> None:
    from genesis_git.cli.output import echo, emit_json, warn
    from genesis_git.kernel.errors import GenesisError

    for w in report.warnings:
        warn(w)
    for r in report.rejected:
        warn(f"rejected {r['name']}: {r['reason']}")
    if json_out:
        emit_json(report.as_dict())
    else:
        echo(f"{report.source}: {len(report.added)} added, {len(report.updated)} updated, "
             f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped, "
             f"{len(report.rejected)} rejected")
        for s in report.skipped:
            echo(f"  skipped {s['name']}: {s['reason']}")
    if report.rejected:
        raise GenesisError(f"{len(report.rejected)} item(s) rejected",
                           hint="fix them and ingest again; the others were ingested")


@app.command()
def init(json_out: JsonOpt = False) -> None:
    """Create the library folder, the reader query.mjs and an empty manifest (idempotent)."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.manage import init_library

    result = init_library(_lib())
    if json_out:
        emit_json(result)
        return
    echo(f"library: {result['library']} ({'created' if result['created'] else 'exists'}, "
         f"{result['cards']} card(s))")
    echo(f"reader:  {result['reader']} (engineSha256 {result['engineSha256'][:12]})")


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
    top: Annotated[int | None, typer.Option("--top", "-n", min=1,
                                            help="Results to show (default design.top).")] = None,
    json_out: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
) -> None:
    """Search the library: BM25 plus token, tag and profile boosts, with a score breakdown."""
    from genesis_git.app.facade import Genesis
    from genesis_git.cli.output import echo, emit_json, stdout_is_tty, warn
    from genesis_git.design.search import render_markdown, render_text

    result = Genesis().design.search(" ".join(query), top, strict=False)
    for w in result["warnings"]:
        warn(w)
    if json_out:
        emit_json(result)
    elif markdown:
        echo(render_markdown(result).rstrip("\n"))
    elif stdout_is_tty() and result["results"]:  # pragma: no cover - needs a terminal
        _search_table(result)
    else:
        echo(render_text(result).rstrip("\n"))


def _search_table(result: dict[str, Any]) -> None:  # pragma: no cover - needs a terminal
    from rich.table import Table

    from genesis_git.cli.output import console
    from genesis_git.design.search import fmt6

    table = Table(title=f"design search: {result['query']}")
    for col in ("#", "card", "score", "bm25", "token", "profile", "weight", "title", "license"):
        table.add_column(col)
    for n, r in enumerate(result["results"], start=1):
        b = r["breakdown"]
        table.add_row(str(n), r["cardId"], fmt6(r["score"]), fmt6(b["bm25"]),
                      fmt6(b["tokenBoost"]), fmt6(b["profileBoost"]), fmt6(b["weight"]),
                      r["title"], str(r["source"].get("license", "")))
    console().print(table)


@app.command("list")
def list_cmd(
    kind: Annotated[str | None, typer.Option("--kind", help="Only cards of this source kind: "
                                                            "official, rule, user, project.")] = None,
    status: Annotated[str | None, typer.Option("--status",
                                               help="Only active or blocked cards.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List the cards of the library."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.manage import list_cards

    cards = list_cards(_lib(), kind=kind, status=status)
    if json_out:
        emit_json(cards)
        return
    for c in cards:
        mark = "" if c["status"] == "active" else f" [{c['status']}]"
        echo(f"{c['id']}  {c['kind']:<8} {c['weight']:<4} {c['title']}{mark}")
    if not cards:
        echo("no cards")


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
    echo(result["text"].rstrip("\n"))
    note(f"brief written to {result['out']}"
         + (f"; inspiration #{result['record']} appended" if result["record"] else ""))


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
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.protocol import status as run

    result = run(_lib())
    if json_out:
        emit_json(result)
        return
    lib = result["library"]
    echo(f"library: {lib['state']}: {lib['message']}")
    reqs = result["requests"]
    echo(f"requests: {len(reqs)} ({result['pending']} pending, {result['stalled']} stalled "
         f"after {result['stallMinutes']:g} min)")
    for r in reqs:
        if r["answered"]:
            state = f"answered by #{r['answeredBy']}"
        elif r["stalled"]:
            state = f"STALLED ({r['ageMinutes']} min)"
        else:
            state = "pending"
        echo(f"  #{r['id']}  {state}  {r['title']}")


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
    echo(f"{entry['card']}: {entry['action']} → weight {entry['weight']:g}, {entry['status']}")


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
    state = ("added" if result["added"] else "updated" if result["updated"] else "unchanged")
    echo(f"{result['card']}: project card {state} from {result['baseline']}")


@app.command("check-refs")
def check_refs(
    file: Annotated[str, typer.Argument(help="Spec (criteria) or audit (checks) JSON with "
                                             "designRefs.")],
    json_out: JsonOpt = False,
) -> None:
    """Check designRefs of a spec or audit and compare each ref's tokens with actual values."""
    from genesis_git.cli.output import echo, emit_json, warn
    from genesis_git.design.refs import check_refs as run
    from genesis_git.kernel.errors import GenesisError

    report = run(_lib(), file)
    for w in report["warnings"]:
        warn(f"{w['code']}: {w['message']}")
    if json_out:
        emit_json(report)
    else:
        for e in report["errors"]:
            echo(f"error {e['code']}: {e['message']}")
        for c in report["comparison"]:
            pairs = "; ".join(f"{p['token']} {p['reference']} vs {p['actual']}"
                              for p in c["pairs"]) or "no tokens"
            echo(f"{c['item']}  {c['ref']}  reference comparison: {pairs}")
        echo(f"{report['document']}: {len(report['design']['refs'])} ref(s), "
             f"{len(report['errors'])} error(s), {len(report['warnings'])} warning(s)")
    if report["errors"]:
        raise GenesisError(f"{len(report['errors'])} design reference error(s) in "
                           f"{report['document']}")


@app.command()
def stats(json_out: JsonOpt = False) -> None:
    """Cards by kind and status, chunks, index size, feedback counts and reference images."""
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.design.manage import stats as run

    result = run(_lib())
    if json_out:
        emit_json(result)
        return
    cards = result["cards"]
    echo(f"library: {result['library']}")
    echo(f"cards:   {cards['total']} " + " ".join(f"{k}={v}" for k, v in cards["byKind"].items())
         + " | " + " ".join(f"{k}={v}" for k, v in cards["byStatus"].items()))
    index = result["index"]
    echo(f"chunks:  {result['chunks']}; index {index['bytes']} bytes, {index['terms']} terms"
         + ("" if index["available"] else f" (unavailable: {index.get('problem', '')})"))
    fb = result["feedback"]
    echo("feedback: " + (" ".join(f"{k}={v}" for k, v in fb.items()) or "none"))
    echo(f"refs:    {result['refs']['files']} file(s), {result['refs']['bytes']} bytes")
    echo(f"reader:  {'matches' if result['reader']['matches'] else 'DIFFERS from'} "
         "engineSha256")
