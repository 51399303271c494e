"""Text quoted for one line of output: a query in a message, a path as git prints it."""

from __future__ import annotations


def quoted(text: str, width: int = 60) -> str:
    """``text`` quoted for a message, shortened when long: never a whole pasted log."""
    text = text.strip()
    if len(text) <= width:
        return repr(text)
    flat = " ".join(text[: width * 4].split())
    return f"{flat[:width].rstrip()!r}… ({len(text):,} characters)"


def quote_path(path: str) -> str:
    """A path as git prints it with ``core.quotePath=false``: in double quotes with C escapes
    when it holds a control character, a double quote or a backslash; else as it is."""
    if not any(ch < " " or ch in '"\\\x7f' for ch in path):
        return path
    named = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v",
             "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
    return '"' + "".join(named.get(ch) or (f"\\{ord(ch):03o}" if ch < " " or ch == "\x7f"
                                           else ch) for ch in path) + '"'


def escape_controls(text: str) -> str:
    """Free text (an evidence line naming a path) with its control characters escaped as in
    :func:`quote_path`, so that one item stays on one line."""
    if not any(ch < " " or ch == "\x7f" for ch in text):
        return text
    return quote_path(text)[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def one_line(text: str) -> str:
    """Free text (an error's message, a reason) for one line of stderr: its control
    characters escaped, its runs of spaces made one."""
    return " ".join(escape_controls(text).split())
