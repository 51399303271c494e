"""Split file content into bounded chunks that keep their line ranges.

* Python: one chunk per top-level function or class; a class that is too
  long gives one chunk per method; the statements between them are grouped
  into module chunks.  The blocks are found with regular expressions
  (:class:`_PySource`), which agree with ``ast`` on ordinary code.
* Markdown and reStructuredText: one chunk per section, with the heading path
  (``Orders > New fields``) as the section.
* Other code: blocks split at blank lines and top-level definitions.
* Other text: paragraphs, merged up to the size bound.

Every chunk is at most ``max_lines`` lines and ``max_chars`` characters; a
longer piece is cut into windows.  Bump :data:`CHUNKER_VERSION` whenever the
output for the same input changes: the cache is keyed by it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate

CHUNKER_VERSION = "c2"

CODE_EXTENSIONS = {
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt",
    ".kts", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh",
    ".bash", ".zsh", ".lua", ".pl", ".r", ".m", ".ets", ".vue", ".svelte", ".sql", ".dart",
}
MARKDOWN_EXTENSIONS = {".md", ".markdown", ".mdx"}
# documents written as prose: impact's prior and its prose fields, the check's docs
PROSE_EXTENSIONS = frozenset(MARKDOWN_EXTENSIONS | {".rst", ".txt", ".adoc", ".asciidoc"})
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


def is_code(path: str) -> bool:
    """Whether ``path`` is source code (Python or another language), by its name."""
    return language_of(path) in ("python", "code")


def chunk_text(path: str, text: str, max_lines: int = 80, max_chars: int = 3000) -> list[Chunk]:
    lines = text.splitlines()
    if not lines:
        return []
    lang = language_of(path)
    if lang == "python":
        raw = _chunk_python(lines, max_lines)
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

_PY_DEF = re.compile(r"(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
# Comments and string literals, in the order a tokenizer meets them, so that a
# quote inside a comment or another string is not taken for a string start.
# Each alternative is an "unrolled loop" (no nested quantifiers), so a string
# that never closes costs linear time.
_LITERAL = re.compile(
    r'#[^\n]*'
    r'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'
    r"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"
    r'|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'
    r"|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'")
_STATEMENT: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}
_TRIPLE = re.compile(r"\"\"\"|'''")


class _PySource:
    """A Python file seen through regular expressions instead of ``ast``.

    A *statement line* at an indentation starts with exactly that indentation
    and then a character that can begin a statement (not a comment, a closing
    bracket or a string: a string there is far more often the continuation of
    a call than a statement), outside every triple-quoted string.  Top-level
    functions and classes, and the methods of a class, are the blocks that
    start at such a line (with their decorators) and end at the last code line
    before the next statement line.  ``ast.parse`` finds the same blocks in
    ordinary code at several times the cost, and nothing at all on a syntax
    error.

    The patterns start with the line break before a line (``text`` begins
    with one), which lets the regular expression engine skip ahead to each
    line break instead of trying every position.
    """

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.text = "\n" + "\n".join(lines)  # the line numbers of ``lines``, whatever the breaks
        # where the line break before each line is, and one past the end
        self.breaks = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
        self.spans = _triple_quoted(self.text)
        self.span_starts = [a for a, _ in self.spans]

    def _in_string(self, pos: int) -> bool:
        i = bisect_right(self.span_starts, pos) - 1
        return i >= 0 and self.spans[i][0] < pos < self.spans[i][1]

    def _next(self, pat: re.Pattern[str], pos: int, end: int) -> re.Match[str] | None:
        """The next match of ``pat`` in pos..end whose line does not start inside a string."""
        while True:
            m = pat.search(self.text, pos, end)
            if m is None or not self._in_string(m.start() + 1):
                return m
            pos = m.end()

    def blocks(self, first: int, last: int, indent: str) -> list[tuple[int, int, str, str]]:
        """``(start, end, kind, name)`` of the defs and classes at ``indent`` in lines first..last."""
        stmt, head = _patterns(indent)
        text = self.text
        found: list[tuple[int, int, str, str]] = []
        end = self.breaks[last] if last < len(self.lines) else len(text)
        pos = self.breaks[first - 1]
        deco: int | None = None  # the line of the first decorator above the coming def
        while True:
            m = self._next(head if deco is None else stmt, pos, end)
            if m is None:
                return found
            at = m.start() + 1 + len(indent)
            line = bisect_left(self.breaks, m.start()) + 1
            pos = m.end()
            if text.startswith("@", at):
                deco = deco or line
                continue
            d = _PY_DEF.match(text, at)
            if d is None:  # a decorator above something else
                deco = None
                continue
            start, deco = deco or line, None
            kind = "class" if text.startswith("class", at) else "function"
            nxt = self._next(stmt, d.end(), end)
            stop = bisect_left(self.breaks, nxt.start()) if nxt is not None else last
            found.append((start, self._last_code(start, stop), kind, d.group(1)))
            if nxt is None:
                return found
            pos = nxt.start()

    def _last_code(self, start: int, end: int) -> int:
        """The last line in start..end that is neither blank nor only a comment."""
        while end > start:
            text = self.lines[end - 1].strip()
            if text and not text.startswith("#"):
                break
            end -= 1
        return end

    def body_indent(self, start: int, end: int) -> str | None:
        """The indentation of the body of the class whose header starts at line ``start``."""
        lines = self.lines
        i = start
        while i <= end and not lines[i - 1].split("#", 1)[0].rstrip().endswith(":"):
            i += 1  # a header over several lines
        for line in lines[i:end]:
            text = line.lstrip()
            if text and not text.startswith("#"):
                indent = line[:len(line) - len(text)]
                return indent or None
        return None


def _patterns(indent: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Statement lines at ``indent``, and the lines there that start a def, class or decorator."""
    pats = _STATEMENT.get(indent)
    if pats is None:
        lead = "\n" + re.escape(indent)
        pats = _STATEMENT[indent] = (
            re.compile(lead + r"(?![rRbBuUfF]{0,2}['\"])[^\s#)\]}]"),
            re.compile(lead + r"(?:@|(?:async\s+)?def\s|class\s)"))
    return pats


def _triple_quoted(text: str) -> list[tuple[int, int]]:
    """The spans of the triple-quoted strings of ``text``.

    Each ``\"\"\"`` or ``'''`` found is checked from the start of its line with
    :data:`_LITERAL`, so that one inside a comment or a one-line string
    (``'\"\"\"'``) is passed over.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        t = _TRIPLE.search(text, pos)
        if t is None:
            return spans
        p = t.start()
        for m in _LITERAL.finditer(text, max(pos, text.rfind("\n", 0, p) + 1)):
            if m.end() <= p:
                continue  # a comment or string before it on its line
            if m.start() == p:
                spans.append((p, m.end()))
            pos = m.end()  # past the string it opens, or the comment or string it is in
            break


def _chunk_python(lines: list[str], max_lines: int) -> list[Chunk]:
    src = _PySource(lines)
    chunks: list[Chunk] = []
    covered = 0  # last line number already in a chunk

    def gap(until: int) -> None:
        first = covered + 1
        while first <= until and not lines[first - 1].strip():
            first += 1
        if first <= until:
            chunks.append(Chunk(first, until, _slice(lines, first, until), "module"))

    for start, end, kind, name in src.blocks(1, len(lines), ""):
        gap(start - 1)
        long_class = kind == "class" and end - start + 1 > max_lines
        indent = src.body_indent(start, end) if long_class else None
        if indent:
            chunks.extend(_split_class(src, start, end, name, indent))
        else:
            chunks.append(Chunk(start, end, _slice(lines, start, end), kind, symbol=name))
        covered = end
    gap(len(lines))
    return chunks


def _split_class(src: _PySource, start: int, end: int, name: str, indent: str) -> list[Chunk]:
    out: list[Chunk] = []
    cursor = start
    for m_start, m_end, kind, m_name in src.blocks(start + 1, end, indent):
        if kind == "class":
            continue  # a nested class stays in the class's own chunks
        if m_start > cursor:
            head = _slice(src.lines, cursor, m_start - 1)
            if head.strip():
                out.append(Chunk(cursor, m_start - 1, head, "class", symbol=name))
        out.append(Chunk(m_start, m_end, _slice(src.lines, m_start, m_end), "method",
                         symbol=f"{name}.{m_name}"))
        cursor = m_end + 1
    if cursor <= end:
        tail = _slice(src.lines, cursor, end)
        if tail.strip():
            out.append(Chunk(cursor, end, tail, "class", symbol=name))
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
