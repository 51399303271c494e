"""A commit message as git will keep it, for the commit-msg hook: comment lines and the
scissors line (``core.commentChar`` honoured), the story ids it names, whether it is
empty or exempt, and the ``Genesis-Session`` trailer added in the right place.

The hooks import this module on every commit: standard library only.
"""

from __future__ import annotations

from genesis_git.stories.commits import EXEMPT_PREFIXES, SESSION_TRAILER, STORY_TRAILER, collect_ids

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    from genesis_git.stories.commits import GitRepo

def message_story_ids(message: str, pattern: str, chars: str = "#") -> list[str]:
    """Story ids of a message that is not committed yet (the commit-msg hook)."""
    lines = _message_lines(message, chars)
    first = _first_paragraph(lines)
    values = []
    for line in lines:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == STORY_TRAILER:
            values.append(value)
    return collect_ids(" ".join(first), lines, values, pattern)


SCISSORS = "------------------------ >8 ------------------------"
AUTO_COMMENT_CHARS = "#;@!$%^&|:"


def comment_chars(repo: GitRepo) -> str:
    """The characters that start a comment line: ``core.commentChar`` (``#`` when unset;
    every candidate of git's ``auto``)."""
    value = repo.git("config", "--get", "core.commentChar", check=False).decode(
        "utf-8", "replace").strip()
    if not value:
        return "#"
    return AUTO_COMMENT_CHARS if value == "auto" else value[0]


def _is_comment(line: str, chars: str) -> bool:
    return bool(line) and line[0] in chars


def _is_scissors(line: str, chars: str) -> bool:
    return _is_comment(line, chars) and line[1:].strip() == SCISSORS


def _message_lines(message: str, chars: str = "#") -> list[str]:
    """The lines git keeps: comments dropped, nothing after the scissors line."""
    out: list[str] = []
    for ln in message.splitlines():
        if _is_scissors(ln, chars):
            break
        if not _is_comment(ln, chars):
            out.append(ln)
    return out


def has_content(message: str, chars: str = "#") -> bool:
    """False for a message git aborts as empty (only blank and comment lines)."""
    return any(ln.strip() for ln in _message_lines(message, chars))


def _first_paragraph(lines: list[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        if not ln.strip():
            if out:
                break
            continue
        out.append(ln.strip())
    return out


def is_exempt(message: str, chars: str = "#") -> bool:
    """Merge, revert, ``fixup!``, ``squash!`` and ``amend!`` messages need no story id."""
    first = _first_paragraph(_message_lines(message, chars))
    return bool(first) and first[0].startswith(EXEMPT_PREFIXES)


def _trailer_line(line: str) -> bool:
    """``Signed-off-by: …``, ``Story: …``; not ``STORY-2: …`` (an id that opens a line)."""
    key, sep, _ = line.partition(":")
    return bool(sep) and bool(key) and all(ch.isalnum() or ch == "-" for ch in key) \
        and key[0].isalnum() and any(ch.islower() for ch in key)


def add_session_trailer(message: str, session_id: str, chars: str = "#") -> str:
    """``message`` with exactly one ``Genesis-Session`` trailer, at the end of what git keeps:
    in the closing trailer block when there is one, else after a blank line.  Comment lines
    and everything from the scissors line on stay where they are; an earlier
    ``Genesis-Session`` line (a squash leaves them mid-body) is removed."""
    lines = message.split("\n")
    cut = next((i for i, ln in enumerate(lines) if _is_scissors(ln, chars)), len(lines))
    body, tail = lines[:cut], lines[cut:]
    low = SESSION_TRAILER.lower() + ":"
    line = f"{SESSION_TRAILER}: {session_id}"
    text = [ln for ln in body if ln.strip() and not _is_comment(ln, chars)]
    if text and text[-1].strip() == line and \
            sum(ln.lower().startswith(low) for ln in text) == 1:
        return message  # already there, once, at the end
    body = [ln for ln in body if _is_comment(ln, chars) or not ln.lower().startswith(low)]
    kept = [i for i, ln in enumerate(body) if not _is_comment(ln, chars)]
    content = [i for i in kept if body[i].strip()]
    if not content:
        return message
    last = content[-1]
    block: list[int] = []  # the closing paragraph, comment lines skipped
    for i in reversed(kept):
        if i > last:
            continue
        if not body[i].strip():
            break
        block.append(i)
    block.reverse()
    subject_end = content[0]
    for i in kept:
        if i >= subject_end and not body[i].strip():
            break
        subject_end = i
    in_block = block[0] > subject_end and all(
        _trailer_line(body[i]) or body[i][:1] in " \t" for i in block)
    insert = [line] if in_block else ["", line]
    out = body[:last + 1] + insert + body[last + 1:]
    return "\n".join(out + tail)
