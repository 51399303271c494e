"""What every tool module shares: the call with its bounded answer, the annotations, the
checked paths an agent gives and messages in the tools' own words."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_types import CallToolResult, ToolAnnotations

from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.mcp.answer import bounded, cut_text, trailer, with_json

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis
    from genesis_git.mcp.server import GenesisTools

# search, impact, symbols, story and session reads: the working tree and git are only read,
# but the first call of a repository creates genesis's store and a session (indexing the
# working tree into it), as the first `genesis search` does
STORE_ONLY = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                         open_world_hint=False)

WRITES_STORE = ("Writes only genesis's own store (in the repository's .git folder): the first "
                "call indexes the working tree and starts a session; the working tree, the "
                "index and the history are never changed.")

Produce = Callable[["Genesis"], tuple[dict[str, Any], Callable[[dict[str, Any]], str]]]


def call(tools: GenesisTools, repo: str | None, name: str, args: dict[str, Any],
         key: str | None, cursor: str | None, produce: Produce,
         related: str | None = None) -> CallToolResult:
    """Run ``produce`` through the server's one gate, the answer kept within
    ``mcp.max_answer_bytes``, its JSON serialized beside the text."""
    def work(g: Genesis) -> tuple[dict[str, Any], str]:
        try:
            data, render = produce(g)
            limit = g.workspace.config.settings.mcp.max_answer_bytes
            shaped = bounded(name, args, data, key, limit, cursor, related)
        except GenesisError as exc:
            raise in_tool_words(exc) from None
        return shaped, cut_text(render(shaped), limit) + trailer(shaped)

    work.__qualname__ = f"{name}.<locals>.work"  # the log names the tool
    return with_json(tools.run(repo, work))


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
_QUOTED = re.compile(r"""('[^'\n]*'|"[^"\n]*")""")
_REBUILD = re.compile(r",? ?or run `genesis story rebuild`[^()]*?(?=$|\))")


def tool_words(text: str) -> str:
    """A message of the core in the words of the tools: ``--with-code`` is the argument
    ``with_code``; the history is read by the server itself."""
    text = _REBUILD.sub("", text)
    parts = _QUOTED.split(text)  # what a message quotes (a query, a path) stays as it is
    return "".join(part if i % 2 else _FLAG.sub(lambda m: m.group(1).replace("-", "_"), part)
                   for i, part in enumerate(parts))


def in_tool_words(exc: GenesisError) -> GenesisError:
    exc.message = tool_words(exc.message)
    exc.args = (exc.message,)
    if exc.hint:
        exc.hint = tool_words(exc.hint)
    return exc


def repo_relative(g: Genesis, argument: str, value: str) -> str:
    """A path an agent gives (relative to the repository's root, or absolute inside it) as a
    path relative to the root; a path outside the repository is a usage error naming the
    argument."""
    if not value.strip() or "\0" in value:
        raise UsageError(f"{argument}: empty path", hint="give a path relative to the "
                                                        "repository's root")
    repo = g.workspace.repo
    return str(repo.worktree_path(value, base=repo.root, name=f"{argument}:",
                                  hint="give a path relative to the repository's root"))


def repo_path(g: Genesis, argument: str, value: str | None) -> str | None:
    """:func:`repo_relative` as an absolute path (``None`` stays ``None``)."""
    if value is None:
        return None
    return str(g.workspace.repo.root.resolve() / repo_relative(g, argument, value))


def enum(*values: str) -> Callable[[dict[str, Any]], None]:
    """A ``json_schema_extra`` that lists the allowed values of a string argument (of each item
    of a list argument) in its schema, while the check, and its one-line message, stay the
    tool's own (:func:`choice`)."""
    def extra(schema: dict[str, Any]) -> None:
        for option in [schema, *schema.get("anyOf", [])]:
            if option.get("type") == "string":
                option["enum"] = list(values)
            elif option.get("type") == "array":
                option["items"] = {"type": "string", "enum": list(values)}
    return extra


def choice(argument: str, value: str | None, allowed: tuple[str, ...]) -> None:
    """A value outside ``allowed`` is a usage error of one line naming the argument."""
    if value is not None and value not in allowed:
        raise UsageError(f"{argument}: {value!r} is not one of {', '.join(allowed)}")
