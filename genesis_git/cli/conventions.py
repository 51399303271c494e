"""One convention for every command's help: metavariables and examples.

A value is named in capitals, as git and most Unix manuals do: an argument by
its name (``QUERY``, ``STORY_ID``, ``NOTE``, ``[REMOTE]``), an option's value by
what it holds (``-k, --top N``, ``--role ROLE``).  Every visible command ends its
help with an example, taken from :mod:`genesis_git.cli.examples`.

:func:`apply` walks the click command tree that Typer builds, once, when the
root group is made; the commands themselves only declare their parameters.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption

from genesis_git.cli.examples import EXAMPLES

# The metavariable of an option whose value is a number, by click type name.
_NUMBER = {"int": "N", "int range": "N", "integer": "N", "integer range": "N",
           "float": "X", "float range": "X"}


class Argument(TyperArgument):
    """A Typer argument shown as ``NAME``, ``[NAME]`` or ``NAME...`` in usage and help."""

    @property
    def human_readable_name(self) -> str:  # what click's errors name: "Missing argument 'QUERY'"
        return self.metavar or (self.name or "").upper()

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        var = self.metavar or (self.name or "").upper()
        if self.nargs != 1:
            var += "..."
        if usage and not self.required:
            var = f"[{var}]"
        return var


def _option_metavar(option: TyperOption) -> str | None:
    if option.is_flag or option.count or option.metavar is not None:
        return None
    choices = getattr(option.type, "choices", None)
    if choices:
        return "|".join(str(getattr(c, "value", c)) for c in choices)
    name = _NUMBER.get(option.type.name)
    if name is not None:
        return name
    longest = max(option.opts, key=len).lstrip("-")
    return longest.replace("-", "_").upper()


def _fix_params(command: Any) -> None:
    for param in command.params:
        if isinstance(param, TyperArgument) and type(param) is TyperArgument:
            param.__class__ = Argument
        elif isinstance(param, TyperOption):
            metavar = _option_metavar(param)
            if metavar is not None:
                param.metavar = metavar


def _add_example(command: Any, path: str) -> None:
    lines = EXAMPLES.get(path)
    if not lines or (command.epilog or "").startswith("Examples"):
        return
    body = "\n".join(f"  {line}" for line in lines)
    # \b keeps click from re-wrapping the example lines
    command.epilog = f"Examples:\n\n\b\n{body}"


def apply(command: Any, path: str = "genesis") -> None:
    """Give ``command`` and everything under it the metavariables and examples above."""
    _fix_params(command)
    _add_example(command, path)
    subcommands: dict[str, Any] = getattr(command, "commands", {}) or {}
    for name, sub in subcommands.items():
        apply(sub, f"{path} {name}")
