"""Split file content into bounded chunks that keep their line ranges.

* Python: one chunk per top-level function or class (``ast``); a class that is
  too long gives one chunk per method; the statements between them are
  grouped into module chunks.
* Markdown and reStructuredText: one chunk per section, with the heading path
  (``Orders > New fields``) as the section.
* Other code: blocks split at blank lines and top-level definitions.
* Other text: paragraphs, merged up to the size bound.

Every chunk is at most ``max_lines`` lines and ``max_chars`` characters; a
longer piece is cut into windows.  Bump :data:`CHUNKER_VERSION` whenever the
output for the same input changes: the cache is keyed by it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

CHUNKER_VERSION = "c1"

CODE_EXTENSIONS = {
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt",
    ".kts", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh",
    ".bash", ".zsh", ".lua", ".pl", ".r", ".m", ".ets", ".vue", ".svelte", ".sql", ".dart",
}
MARKDOWN_EXTENSIONS = {".md", ".markdown", ".mdx"}
RST_EXTENSIONS = {".rst", ".rest"}

_DEF_LINE = re.compile(
    r"^(?:export\s+)?(?:public\s+|private\s+|protected\s+|static\s+|async\s+|abstract\s+|final\s+)*"
    r"(?:function|class|interface|struct|enum|trait|impl|fn|func|def|module|type|"
    r"CREATE\s+(?:TABLE|VIEW|INDEX|UNIQUE\s+INDEX|TRIGGER|FUNCTION|PROCEDURE)|ALTER\s+TABLE)\b"
    r"\s*(?:\([^)]*\)\s*)?([A-Za-z_][\w.]*)?", re.IGNORECASE)


@dataclass
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str
    kind: str  # function | class | method | module | section | paragraph | block
    section: str | None = None
    symbol: str | None = None


def language_of(path: str) -> str:
    low = path.lower()
    dot = low.rfind(".")
    ext = low[dot:] if dot > low.rfind("/") else ""
    if ext in (".py", ".pyi"):
        return "python"
    if ext in MARKDOWN_EXTENSIONS:
        return "markdown"
    if ext in RST_EXTENSIONS:
        return "rst"
    if ext in CODE_EXTENSIONS:
        return "code"
    return "text"


def chunk_text(path: str, text: str, max_lines: int = 80, max_chars: int = 3000) -> list[Chunk]:
    lines = text.splitlines()
    if not lines:
        return []
    lang = language_of(path)
    if lang == "python":
        raw = _chunk_python(text, lines, max_lines)
    elif lang == "markdown":
        raw = _chunk_markdown(lines)
    elif lang == "rst":
        raw = _chunk_rst(lines)
    elif lang == "code":
        raw = _chunk_code(lines, max_lines)
    else:
        raw = _chunk_paragraphs(lines, max_lines)
    out: list[Chunk] = []
    for c in raw:
        out.extend(_bound(c, lines, max_lines, max_chars))
    return [c for c in out if c.text.strip()]


def _slice(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start - 1:end])


def _bound(c: Chunk, lines: list[str], max_lines: int, max_chars: int) -> list[Chunk]:
    """Cut a chunk into windows of at most ``max_lines`` lines and ``max_chars`` characters."""
    if c.end_line - c.start_line + 1 <= max_lines and len(c.text) <= max_chars:
        return [c]
    out: list[Chunk] = []
    start = c.start_line
    while start <= c.end_line:
        end = min(c.end_line, start + max_lines - 1)
        text = _slice(lines, start, end)
        while len(text) > max_chars and end > start:
            end = start + max(0, (end - start) // 2)
            text = _slice(lines, start, end)
        if len(text) > max_chars:  # one very long line
            text = text[:max_chars]
        out.append(Chunk(start, end, text, c.kind, c.section, c.symbol))
        start = end + 1
    return out


# -- Python -----------------------------------------------------------------

AST_MAX_BYTES = 16 * 1024
_PY_TOP = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
_TRIPLE = re.compile(r'"""|\'\'\'')


def _python_top_level(lines: list[str]) -> list[tuple[int, int, str, str]]:
    """Top-level defs and classes as ``(start, end, kind, name)`` from indentation alone.

    Used above :data:`AST_MAX_BYTES`, where ``ast.parse`` costs more than all the
    rest of indexing; it tracks triple-quoted strings so that their column-0
    lines don't end a block.
    """
    found: list[tuple[int, int, str, str]] = []
    in_string: str | None = None
    current: tuple[int, str, str] | None = None
    deco_start: int | None = None
    last_body = 0
    for i, line in enumerate(lines, 1):
        if in_string is not None:
            if _TRIPLE.findall(line).count(in_string) % 2 == 1:
                in_string = None
            last_body = i
            continue
        stripped = line.strip()
        top = (bool(line[:1].strip()) and not line.startswith("#")
               and not line.startswith((")", "]", "}")))
        if top and current is not None:
            found.append((current[0], last_body, current[1], current[2]))
            current = None
        if top:
            m = _PY_TOP.match(line)
            if line.startswith("@"):
                deco_start = deco_start or i
            elif m:
                kind = "class" if line.startswith("class") else "function"
                current = (deco_start or i, kind, m.group(1))
                deco_start = None
            else:
                deco_start = None
        if stripped and not stripped.startswith("#"):
            last_body = i
        for quote in _TRIPLE.findall(line.replace("'\"\"\"'", "").replace('"\'\'\'"', "")):
            in_string = quote if in_string is None else (None if quote == in_string else in_string)
    if current is not None:
        found.append((current[0], last_body, current[1], current[2]))
    return found


def _chunk_python(text: str, lines: list[str], max_lines: int) -> list[Chunk]:
    if len(text) > AST_MAX_BYTES:
        return _chunk_python_scan(lines, max_lines)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _chunk_code(lines, max_lines)
    chunks: list[Chunk] = []
    covered_to = 0  # last line number already in a chunk

    def flush_module(until: int) -> None:
        nonlocal covered_to
        if until > covered_to:
            body = _slice(lines, covered_to + 1, until)
            if body.strip():
                first = covered_to + 1
                while first <= until and not lines[first - 1].strip():
                    first += 1
                chunks.append(Chunk(first, until, _slice(lines, first, until), "module"))
        covered_to = max(covered_to, until)

    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        end = node.end_lineno or node.lineno
        flush_module(start - 1)
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        if isinstance(node, ast.ClassDef) and end - start + 1 > max_lines:
            chunks.extend(_split_class(node, lines, start, end))
        else:
            chunks.append(Chunk(start, end, _slice(lines, start, end), kind, symbol=node.name))
        covered_to = end
    flush_module(len(lines))
    return chunks


def _chunk_python_scan(lines: list[str], max_lines: int) -> list[Chunk]:
    chunks: list[Chunk] = []
    covered = 0
    for start, end, kind, name in _python_top_level(lines):
        if start - 1 > covered:
            body = _slice(lines, covered + 1, start - 1)
            if body.strip():
                chunks.append(Chunk(covered + 1, start - 1, body, "module"))
        chunks.append(Chunk(start, end, _slice(lines, start, end), kind, symbol=name))
        covered = end
    if covered < len(lines):
        body = _slice(lines, covered + 1, len(lines))
        if body.strip():
            chunks.append(Chunk(covered + 1, len(lines), body, "module"))
    return chunks


def _split_class(node: ast.ClassDef, lines: list[str], start: int, end: int) -> list[Chunk]:
    out: list[Chunk] = []
    cursor = start
    for item in node.body:
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        m_start = min([item.lineno] + [d.lineno for d in item.decorator_list])
        m_end = item.end_lineno or item.lineno
        if m_start > cursor:
            head = _slice(lines, cursor, m_start - 1)
            if head.strip():
                out.append(Chunk(cursor, m_start - 1, head, "class", symbol=node.name))
        out.append(Chunk(m_start, m_end, _slice(lines, m_start, m_end), "method",
                         symbol=f"{node.name}.{item.name}"))
        cursor = m_end + 1
    if cursor <= end:
        tail = _slice(lines, cursor, end)
        if tail.strip():
            out.append(Chunk(cursor, end, tail, "class", symbol=node.name))
    return out


# -- Markdown / reStructuredText -------------------------------------------

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _sections(lines: list[str], headings: list[tuple[int, int, str]]) -> list[Chunk]:
    """Chunks from ``(line, level, title)`` headings; the section is the heading path."""
    chunks: list[Chunk] = []
    stack: list[tuple[int, str]] = []
    bounds = [h[0] for h in headings] + [len(lines) + 1]
    if headings and headings[0][0] > 1:
        pre = _slice(lines, 1, headings[0][0] - 1)
        if pre.strip():
            chunks.append(Chunk(1, headings[0][0] - 1, pre, "section"))
    if not headings:
        return _chunk_paragraphs(lines, 10**9)
    for i, (line, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = bounds[i + 1] - 1
        chunks.append(Chunk(line, end, _slice(lines, line, end), "section",
                            section=" > ".join(t for _, t in stack)))
    return chunks


def _chunk_markdown(lines: list[str]) -> list[Chunk]:
    headings: list[tuple[int, int, str]] = []
    in_fence = False
    for i, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = _MD_HEADING.match(line)
        if m:
            headings.append((i, len(m.group(1)), m.group(2).strip()))
    return _sections(lines, headings)


_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")


def _chunk_rst(lines: list[str]) -> list[Chunk]:
    headings: list[tuple[int, int, str]] = []
    levels: list[str] = []
    i = 1
    while i < len(lines):
        title, under = lines[i - 1], lines[i]
        m = _RST_UNDERLINE.match(under)
        if m and title.strip() and not _RST_UNDERLINE.match(title) and len(under.rstrip()) >= len(
                title.rstrip()):
            char = m.group(1)
            overline = i >= 2 and lines[i - 2].strip() and _RST_UNDERLINE.match(lines[i - 2])
            key = ("o" if overline else "u") + char
            if key not in levels:
                levels.append(key)
            start = i - 1 if overline else i
            headings.append((start, levels.index(key) + 1, title.strip()))
            i += 2
            continue
        i += 1
    return _sections(lines, headings)


# -- other code and text ------------------------------------------------------

def _chunk_code(lines: list[str], max_lines: int) -> list[Chunk]:
    """Blocks that start at top-level definitions or after blank lines, merged up to the bound."""
    blocks: list[tuple[int, int]] = []
    start = 1
    for i, line in enumerate(lines, 1):
        starts_def = bool(line[:1].strip()) and _DEF_LINE.match(line) is not None
        if starts_def and i > start:
            blocks.append((start, i - 1))
            start = i
    blocks.append((start, len(lines)))
    out: list[Chunk] = []
    for b_start, b_end in blocks:
        m = _DEF_LINE.match(lines[b_start - 1]) if b_start <= len(lines) else None
        symbol = m.group(1) if m and m.group(1) else None
        kind = "function" if symbol else "block"
        for piece in _merge_paragraphs(lines, b_start, b_end, max_lines):
            out.append(Chunk(piece[0], piece[1], _slice(lines, *piece), kind, symbol=symbol))
    return out


def _merge_paragraphs(lines: list[str], start: int, end: int, max_lines: int) -> list[tuple[int, int]]:
    paras: list[tuple[int, int]] = []
    p_start: int | None = None
    for i in range(start, end + 1):
        blank = not lines[i - 1].strip()
        if blank and p_start is not None:
            paras.append((p_start, i - 1))
            p_start = None
        elif not blank and p_start is None:
            p_start = i
    if p_start is not None:
        paras.append((p_start, end))
    merged: list[tuple[int, int]] = []
    for p in paras:
        if merged and p[1] - merged[-1][0] + 1 <= max_lines:
            merged[-1] = (merged[-1][0], p[1])
        else:
            merged.append(p)
    return merged


def _chunk_paragraphs(lines: list[str], max_lines: int) -> list[Chunk]:
    bound = min(max_lines, 40)
    return [Chunk(s, e, _slice(lines, s, e), "paragraph")
            for s, e in _merge_paragraphs(lines, 1, len(lines), bound)]
