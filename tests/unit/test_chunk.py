"""The Python chunker reads code with regular expressions; ``ast`` is the reference it must match."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from genesis_git.index.chunk import _chunk_python, chunk_text

PACKAGE = Path(__file__).resolve().parents[2] / "genesis_git"


def ast_blocks(text: str, max_lines: int) -> list[tuple[int, int, str, str | None]]:
    """What ``ast`` says the chunks are: top-level defs and classes, long classes by method."""
    lines = text.splitlines()
    out: list[tuple[int, int, str, str | None]] = []
    covered = 0

    def gap(until: int) -> None:
        first = covered + 1
        while first <= until and not lines[first - 1].strip():
            first += 1
        if first <= until:
            out.append((first, until, "module", None))

    for node in ast.parse(text).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        end = node.end_lineno or node.lineno
        gap(start - 1)
        if isinstance(node, ast.ClassDef) and end - start + 1 > max_lines:
            cursor = start
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                m_start = min([item.lineno] + [d.lineno for d in item.decorator_list])
                m_end = item.end_lineno or item.lineno
                if m_start > cursor and any(x.strip() for x in lines[cursor - 1:m_start - 1]):
                    out.append((cursor, m_start - 1, "class", node.name))
                out.append((m_start, m_end, "method", f"{node.name}.{item.name}"))
                cursor = m_end + 1
            if cursor <= end and any(x.strip() for x in lines[cursor - 1:end]):
                out.append((cursor, end, "class", node.name))
        else:
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            out.append((start, end, kind, node.name))
        covered = end
    gap(len(lines))
    return out


def blocks(path: str, text: str, max_lines: int = 80) -> list[tuple[int, int, str, str | None]]:
    """The Python chunks before long ones are cut into windows."""
    assert path.endswith(".py")
    return [(c.start_line, c.end_line, c.kind, c.symbol)
            for c in _chunk_python(text.splitlines(), max_lines)]


@pytest.mark.parametrize("source", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_the_chunks_of_real_code_are_those_ast_finds(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    assert blocks(source.name, text, 40) == ast_blocks(text, 40)


TRICKY = """\
<Q3>Module docstring.

def not_a_function():
    this line is inside the docstring
<Q3>
import os  # a comment with <Q3> in it

X = "<S3>"  # a one-line string that holds a triple quote


@decorator(
    option=True,
)
async def fetch(url):
    text = <Q3>
class NotAClass:
    pass
<Q3>
    return text


class Big:
    <Q3>A class longer than the bound.<Q3>

    size = 3

    @property
    def first(self):
        return 1

    class Inner:
        def hidden(self):
            return 0

    def second(self):
        call(
"a string at column 0 continues the call",
        )
        return 2
# a trailing comment stays out of the method

def after():
    pass
""".replace("<Q3>", '"' * 3).replace("<S3>", "'" * 3)


def test_strings_comments_and_decorators_do_not_fool_the_chunker() -> None:
    expected = ast_blocks(TRICKY, 10)
    assert blocks("tricky.py", TRICKY, 10) == expected
    assert ("fetch" in {b[3] for b in expected} and "Big.second" in {b[3] for b in expected}
            and "NotAClass" not in {b[3] for b in expected})


def test_line_numbers_follow_splitlines_with_unusual_line_breaks() -> None:
    # a form feed ends a line for ``str.splitlines`` (line 2 here), as CRLF does
    text = "import os\r\n\x0c\r\ndef a():\r\n    return 1\r\n\r\nclass B:\r\n    pass\r\n"
    assert blocks("crlf.py", text) == [(1, 3, "module", None), (4, 5, "function", "a"),
                                       (7, 8, "class", "B")]
    chunks = chunk_text("crlf.py", text)
    assert chunks[1].text == "def a():\n    return 1"


def test_code_that_does_not_parse_is_still_chunked() -> None:
    text = "print 'python 2'\n\ndef ok():\n    return 1\n\ndef broken(:\n    pass\n"
    assert blocks("old.py", text) == [(1, 2, "module", None), (3, 4, "function", "ok"),
                                      (6, 7, "function", "broken")]


def test_a_string_that_never_closes_costs_no_more_than_its_length() -> None:
    text = "def f():\n    return 1\n\n" + 'x = """' + "never closed\n" * 20000
    got = blocks("open.py", text)
    assert got[0] == (1, 2, "function", "f") and got[-1][1] == 20003
