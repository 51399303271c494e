"""``genesis hooks …``: install, uninstall and inspect the git hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from genesis_git.app.facade import Genesis

app = typer.Typer(help="Install the git hooks that bind commits to stories (commit-msg, "
                       "post-commit, post-rewrite) and push the shared ledger along "
                       "(pre-push).", no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")]


@app.command()
def install(
    hooks_path: Annotated[bool, typer.Option(
        "--hooks-path", help="Install into the folder that core.hooksPath names.")] = False,
    template_dir: Annotated[Path | None, typer.Option(
        "--template-dir", metavar="DIR",
        help="Install into DIR/hooks instead, once for every repository to come: with "
             "`git config --global init.templateDir DIR`, each git clone and git init "
             "copies the hooks (no repository needed).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Write the hook shims into the clone's hooks folder (every worktree gets them).

    A hook that is already there is kept as <hook>.legacy and runs first.  Every
    remote also gets the fetch refspec of the story ledger (refs/genesis/*).
    """
    from genesis_git.cli.output import echo, emit_json, note
    from genesis_git.kernel.errors import UsageError

    if template_dir is not None:
        if hooks_path:
            raise UsageError("--template-dir and --hooks-path exclude each other")
        result = Genesis().hooks.install_template(template_dir)
    else:
        result = Genesis().hooks.install(follow_hooks_path=hooks_path)
    if json_out:
        emit_json(result)
        return
    from genesis_git.render.hooks import install_lines

    for line in install_lines(result):
        echo(line)
    if template_dir is not None and not result["template_active"]:
        note("git copies these hooks into new clones only once told to: "
             f"git config --global init.templateDir {_shell_word(result['template_dir'])}")


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


@app.command()
def uninstall(json_out: JsonOpt = False) -> None:
    """Remove genesis's hooks and put back any hook they had set aside."""
    from genesis_git.cli.output import echo, emit_json
    result = Genesis().hooks.uninstall()
    if json_out:
        emit_json(result)
        return
    from genesis_git.render.hooks import uninstall_lines

    for line in uninstall_lines(result):
        echo(line)


@app.command()
def status(json_out: JsonOpt = False) -> None:
    """Show each hook as installed, chained (a previous hook runs first), foreign or missing."""
    from genesis_git.cli.output import echo, emit_json
    st = Genesis().hooks.status()
    if json_out:
        emit_json(st)
        return
    from genesis_git.render.hooks import status_lines

    for line in status_lines(st):
        echo(line)


@app.command(name="run", hidden=True,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run_hook(
    hook: Annotated[str, typer.Argument(help="commit-msg, post-commit, post-rewrite or pre-push.")],
    args: Annotated[list[str] | None, typer.Argument(help="The hook's own arguments.")] = None,
) -> None:
    """Run a hook's logic (what the shims call when only `genesis` is on PATH, and what
    pre-commit runs from .pre-commit-hooks.yaml)."""
    from genesis_git.hooks.precommit import pre_commit_args
    from genesis_git.hooks.run import main

    given = pre_commit_args(hook, list(args or []))
    if given is None:
        return
    code = main([hook, *given])
    if code:
        raise typer.Exit(code)
