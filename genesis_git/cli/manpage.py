"""The man page ``genesis(1)``, generated from the same ``--help`` as docs/reference/cli.md.

``python -m genesis_git.cli.docs --man > docs/genesis.1`` (``make docs``) writes it;
``man ./docs/genesis.1`` reads it.  Each command's help is set as it is printed in a
terminal (``.nf``), so that options, arguments and the examples keep their columns.
"""

from __future__ import annotations

from typing import Any

PAGE = "docs/genesis.1"  # relative to the project root
WIDTH = 72  # the help's columns: with man's indent, an 80-column terminal

SEE_ALSO = "git(1), githooks(5), gitrepository-layout(5), pre-commit(1)"


def roff_text(text: str) -> str:
    """``text`` safe in roff: backslashes escaped, hyphens as ASCII minus, no line taken
    for a request."""
    out = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").splitlines():
        out.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(out)


def _section(title: str) -> str:
    return f'.SH "{title}"'


def _exit_status() -> list[str]:
    from genesis_git.kernel.errors import ExitCode

    meaning = {
        ExitCode.OK: "success; for search, impact, design search and session status: "
                     "something was found",
        ExitCode.USER_ERROR: "nothing was found (as grep), or an error the user can act on: "
                             "an unknown story, a failed check, a broken or locked store",
        ExitCode.USAGE: "usage error: an unknown command or option, a missing argument, an "
                        "invalid value, a query with nothing to search for",
        ExitCode.ENVIRONMENT: "not a git repository, a bare repository, git missing",
        ExitCode.MIRROR: "the PostgreSQL mirror failed",
        ExitCode.REMOTE: "the ledger was not shared: the git remote cannot be read, refused "
                         "the ledger or holds a broken one",
        ExitCode.CHECK_FAILED: "genesis check \\-\\-fail\\-on (or check.fail_on): a file the change "
                               "probably forgot reached that confidence",
        ExitCode.COMMIT_REJECTED: "the commit\\-msg hook rejected a message without a story id",
        ExitCode.INTERNAL: "internal error: a bug in genesis; the line names the log file",
        ExitCode.INTERRUPTED: "interrupted (Ctrl\\-C)",
        ExitCode.BROKEN_PIPE: "the reader of the output went away",
    }
    lines = [_section("EXIT STATUS")]
    for code in ExitCode:
        lines += [".TP", f".B {int(code)}", meaning[code]]
    return lines


def generate(root: Any = None) -> str:
    """The whole page: NAME, SYNOPSIS, DESCRIPTION, one subsection per command, EXIT STATUS,
    FILES, SEE ALSO."""
    from genesis_git import __version__
    from genesis_git.cli.docs import _help_text, iter_commands

    entries = list(iter_commands(root, width=WIDTH))
    top = entries[0]
    lines = [
        '.\\" Generated from `genesis --help` by `python -m genesis_git.cli.docs --man`;',
        '.\\" do not edit it by hand.',
        f'.TH GENESIS 1 "" "genesis {__version__}" "genesis manual"',
        _section("NAME"),
        "genesis \\- story\\-aware retrieval, impact investigation and a design library "
        "inside your git repository",
        _section("SYNOPSIS"),
        ".B genesis",
        "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...",
        ".br",
        ".B git genesis",
        "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...",
        _section("DESCRIPTION"),
        ".nf",
        roff_text(_help_text(top)),
        ".fi",
        _section("COMMANDS"),
    ]
    for entry in entries[1:]:
        lines += [f'.SS "{entry.path}"', ".nf", roff_text(_help_text(entry)), ".fi"]
    lines += _exit_status()
    lines += [
        _section("FILES"),
        ".TP", ".I .genesis.toml",
        "The project's settings (commit it); see docs/reference/configuration.md.",
        ".TP", ".I .git/genesis/",
        "The store: the index, the sessions and the story ledger of this clone.",
        _section("SEE ALSO"),
        roff_text(SEE_ALSO),
        "",
    ]
    return "\n".join(lines)
