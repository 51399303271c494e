"""The design library's results: search (Markdown, plain text, a terminal's table), the
cards, a brief, requests, feedback, captures, reference checks, ingest reports and stats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from genesis_git.design.search import fmt6
from genesis_git.render.terminal import flat

if TYPE_CHECKING:
    from genesis_git.design.ingest import IngestReport


def search_markdown(result: Mapping[str, Any]) -> str:
    """The Markdown table of a search (``query.mjs --markdown`` prints the same text)."""
    lines = [f"# design search: {flat(result['query'])}", ""]
    rows = result["results"]
    if not rows:
        lines.append("_no results_")
    else:
        lines.append("| # | card | score | bm25 | tokenBoost | profileBoost | weight | title | "
                     "source | license |")
        lines.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")
        for n, r in enumerate(rows, start=1):
            b = r["breakdown"]
            src = r["source"]
            cells = [str(n), r["cardId"], fmt6(r["score"]), fmt6(b["bm25"]),
                     fmt6(b["tokenBoost"]), fmt6(b["profileBoost"]), fmt6(b["weight"]),
                     r["title"], f"{src.get('kind', '')} · {src.get('ref', '')}",
                     src.get("license", "")]
            lines.append("| " + " | ".join(flat(str(c)).replace("|", "\\|")
                                            for c in cells) + " |")
    for w in result.get("warnings", []):
        lines.append("")
        lines.append(f"> warning: {w}")
    return "\n".join(lines) + "\n"


def search_text(result: Mapping[str, Any]) -> str:
    """Plain lines for a pipe (``query.mjs`` without options prints the same text)."""
    if not result["results"]:
        return "no results\n"
    out: list[str] = []
    for n, r in enumerate(result["results"], start=1):
        b = r["breakdown"]
        lic = f" × license {fmt6(b['licenseFactor'])}" if b["licenseFactor"] != 1 else ""
        out.append(f"{n}. {r['cardId']}  {fmt6(r['score'])}  {flat(r['title'])}\n"
                   f"   bm25 {fmt6(b['bm25'])} + token {fmt6(b['tokenBoost'])} + profile "
                   f"{fmt6(b['profileBoost'])} × weight {fmt6(b['weight'])}{lic}"
                   f"  [{flat(r['source'].get('license', ''))}]\n")
    return "".join(out)


def ingest_warnings(report: IngestReport) -> list[str]:
    return [*report.warnings,
            *(f"rejected {flat(r['name'])}: {r['reason']}" for r in report.rejected)]


def ingest_lines(report: IngestReport) -> list[str]:
    return [f"{report.source}: {len(report.added)} added, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped, "
            f"{len(report.rejected)} rejected",
            *(f"  skipped {flat(s['name'])}: {s['reason']}" for s in report.skipped)]


def init_lines(result: Mapping[str, Any]) -> list[str]:
    return [f"library: {result['library']} ({'created' if result['created'] else 'exists'}, "
            f"{result['cards']} card(s))",
            f"reader:  {result['reader']} (engineSha256 {result['engineSha256'][:12]})"]


def card_lines(cards: list[dict[str, Any]]) -> list[str]:
    if not cards:
        return ["no cards"]
    return [f"{c['id']}  {c['kind']:<8} {c['weight']:<4} {flat(c['title'])}"
            + ("" if c["status"] == "active" else f" [{c['status']}]") for c in cards]


def brief_note(result: Mapping[str, Any]) -> str:
    """Where the brief went (and the inspiration record appended)."""
    return (f"brief written to {result['out']}"
            + (f"; inspiration #{result['record']} appended" if result["record"] else ""))


def brief_short(result: Mapping[str, Any]) -> str:
    """The MCP tool's text: the brief, where it went, warnings first."""
    from genesis_git.render.lines import with_warnings

    text = result["text"].rstrip("\n") + f"\n(brief written to {result['out']})"
    return "\n".join(with_warnings([text], result["warnings"]))


def search_short(result: Mapping[str, Any]) -> str:
    """The MCP tool's text: the plain search, warnings first."""
    from genesis_git.render.lines import with_warnings

    return "\n".join(with_warnings([search_text(result).rstrip("\n")], result["warnings"]))


def status_lines(result: Mapping[str, Any]) -> list[str]:
    """Whether the library is available, and the design requests with their state."""
    lib = result["library"]
    reqs = result["requests"]
    out = [f"library: {lib['state']}: {lib['message']}",
           f"requests: {len(reqs)} ({result['pending']} pending, {result['stalled']} stalled "
           f"after {result['stallMinutes']:g} min)"]
    for r in reqs:
        if r["answered"]:
            state = f"answered by #{r['answeredBy']}"
        elif r["stalled"]:
            state = f"STALLED ({r['ageMinutes']} min)"
        else:
            state = "pending"
        out.append(f"  #{r['id']}  {state}  {flat(r['title'])}")
    return out


def feedback_line(entry: Mapping[str, Any]) -> str:
    return f"{entry['card']}: {entry['action']} → weight {entry['weight']:g}, {entry['status']}"


def capture_line(result: Mapping[str, Any]) -> str:
    state = ("added" if result["added"] else "updated" if result["updated"] else "unchanged")
    return f"{result['card']}: project card {state} from {result['baseline']}"


def check_refs_warnings(report: Mapping[str, Any]) -> list[str]:
    return [f"{w['code']}: {w['message']}" for w in report["warnings"]]


def check_refs_lines(report: Mapping[str, Any]) -> list[str]:
    """The errors, each reference's token comparison, then the counts."""
    out = [f"error {e['code']}: {e['message']}" for e in report["errors"]]
    for c in report["comparison"]:
        pairs = "; ".join(f"{p['token']} {p['reference']} vs {p['actual']}"
                          for p in c["pairs"]) or "no tokens"
        out.append(f"{c['item']}  {c['ref']}  reference comparison: {pairs}")
    out.append(f"{report['document']}: {len(report['design']['refs'])} ref(s), "
               f"{len(report['errors'])} error(s), {len(report['warnings'])} warning(s)")
    return out


def stats_lines(result: Mapping[str, Any]) -> list[str]:
    """Cards by kind and status, chunks, index size, feedback, references, the reader."""
    cards = result["cards"]
    index = result["index"]
    fb = result["feedback"]
    return [f"library: {result['library']}",
            f"cards:   {cards['total']} " + " ".join(f"{k}={v}" for k, v in cards["byKind"].items())
            + " | " + " ".join(f"{k}={v}" for k, v in cards["byStatus"].items()),
            f"chunks:  {result['chunks']}; index {index['bytes']} bytes, {index['terms']} terms"
            + ("" if index["available"] else f" (unavailable: {index.get('problem', '')})"),
            "feedback: " + (" ".join(f"{k}={v}" for k, v in fb.items()) or "none"),
            f"refs:    {result['refs']['files']} file(s), {result['refs']['bytes']} bytes",
            f"reader:  {'matches' if result['reader']['matches'] else 'DIFFERS from'} "
            "engineSha256"]
