"""The impact of a requirement as a picture, drawn on the server as SVG (no script):
requirement → files → symbols and fields, each edge labelled by its evidence (the signals
that tie the file to the requirement; the kind of change and the line of a symbol)."""

from __future__ import annotations

from typing import Any

from genesis_git.web.html import esc, file_href

FILES = 8
SYMBOLS = 12
BOX_W, BOX_H, ROW = 250, 30, 46
COLUMNS = (10, 420, 830)
WIDTH = COLUMNS[2] + BOX_W + 10


def _short(text: str, size: int = 34) -> str:
    return text if len(text) <= size else "…" + text[-(size - 1):]


def _reasons(reasons: dict[str, float], n: int = 2) -> str:
    top = sorted(reasons.items(), key=lambda kv: -kv[1])[:n]
    return " · ".join(name for name, value in top if value > 0)


def _node(x: int, y: int, label: str, kind: str, link: str | None, title: str) -> str:
    box = (f'<g class="node {esc(kind)}"><title>{esc(title)}</title>'
           f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
           f'<text x="{x + 10}" y="{y + 19}">{esc(_short(label))}</text></g>')
    return f'<a href="{link}">{box}</a>' if link else box


def _edge(x1: int, y1: int, x2: int, y2: int, label: str) -> str:
    mid = (x1 + x2) // 2
    path = (f'<path class="edge" d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}"/>')
    # the label sits on the edge's end, just before the node it leads to: one row each
    text = (f'<text class="label" x="{x2 - 6}" y="{y2 - 5}" text-anchor="end">'
            f'{esc(label)}</text>' if label else "")
    return path + text


def impact_svg(result: dict[str, Any]) -> str:
    """``result`` is :attr:`ImpactResult.result` (``requirement``, ``impacts``, ``files``)."""
    files = result["files"][:FILES]
    shown = {f["path"] for f in files}
    symbols = [i for i in result["impacts"]
               if i["kind"] in ("symbol", "field") and i["path"] in shown][:SYMBOLS]
    rows = max(len(files), len(symbols), 1)
    height = rows * ROW + 20
    req_y = height // 2 - BOX_H // 2
    file_y = {f["path"]: 10 + i * ROW + (rows - len(files)) * ROW // 2 for i, f in enumerate(files)}
    parts: list[str] = []
    right = COLUMNS[0] + BOX_W
    for f in files:
        y = file_y[f["path"]]
        parts.append(_edge(right, req_y + BOX_H // 2, COLUMNS[1], y + BOX_H // 2,
                           _reasons(f["reasons"])))
    for i, s in enumerate(symbols):
        y = 10 + i * ROW + (rows - len(symbols)) * ROW // 2
        fy = file_y[s["path"]]
        line = f"L{s['lines'][0]} · " if s["lines"] else ""
        parts.append(_edge(COLUMNS[1] + BOX_W, fy + BOX_H // 2, COLUMNS[2], y + BOX_H // 2,
                           f"{line}{s['type']}"))
    lines = [ln.strip().lstrip("#").strip() for ln in result["requirement"].splitlines()]
    nodes = [_node(COLUMNS[0], req_y, next((ln for ln in lines if ln), ""), "req", None,
                   result["requirement"])]
    for f in files:
        nodes.append(_node(COLUMNS[1], file_y[f["path"]], f["path"], "file",
                           file_href(f["path"]),
                           f"{f['path']} (score {f['score']:.2f}: {_reasons(f['reasons'], 6)})"))
    for i, s in enumerate(symbols):
        y = 10 + i * ROW + (rows - len(symbols)) * ROW // 2
        at = int(s["lines"][0]) if s["lines"] else None
        nodes.append(_node(COLUMNS[2], y, s["target"], s["kind"],
                           file_href(s["path"], at),
                           f"{s['kind']} {s['target']}: {s['detail']}"))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" role="img" '
            f'aria-label="requirement, files, symbols and fields">'
            + "".join(parts) + "".join(nodes) + "</svg>")
