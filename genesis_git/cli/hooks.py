"""``genesis hooks …``: install, uninstall and inspect the git hooks."""

from __future__ import annotations

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
    json_out: JsonOpt = False,
) -> None:
    """Write the hook shims into the clone's hooks folder (every worktree gets them).

    A hook that is already there is kept as <hook>.legacy and runs first.  Every
    remote also gets the fetch refspec of the story ledger (refs/genesis/*).
    """
    from genesis_git.cli.output import echo, emit_json
    result = Genesis().hooks.install(follow_hooks_path=hooks_path)
    if json_out:
        emit_json(result)
        return
    for h in result["hooks"]:
        extra = f" (the previous hook runs first as {h['hook']}.legacy)" if h["legacy"] else ""
        echo(f"{h['action']:<9} {h['path']}{extra}")
    echo(f"python:   {result['python']}")
    if result["fetch_refspecs"]:
        echo(f"ledger:   `git fetch` brings refs/genesis/* from {', '.join(result['fetch_refspecs'])}")


@app.command()
def uninstall(json_out: JsonOpt = False) -> None:
    """Remove genesis's hooks and put back any hook they had set aside."""
    from genesis_git.cli.output import echo, emit_json
    result = Genesis().hooks.uninstall()
    if json_out:
        emit_json(result)
        return
    if not result["hooks"]:
        echo("no genesis hooks installed")
    for h in result["hooks"]:
        echo(f"{h['action']}: {h['path']}")


@app.command()
def status(json_out: JsonOpt = False) -> None:
    """Show each hook as installed, chained (a previous hook runs first), foreign or missing."""
    from genesis_git.cli.output import echo, emit_json
    st = Genesis().hooks.status()
    if json_out:
        emit_json(st)
        return
    echo(f"hooks folder: {st['dir']}" + (f" (core.hooksPath = {st['hooks_path']})"
                                         if st["hooks_path"] else ""))
    for h in st["hooks"]:
        line = f"  {h['hook']:<13} {h['state']}" + (f" ({h['manager']})" if h.get("manager") else "")
        if h["python"]:
            line += f"  python: {h['python']}" + ("" if h["python_ok"] else " (missing)")
        if h["state"] != "missing" and not h["executable"]:
            line += "  (not executable)"
        echo(line)
    if st["inactive"]:
        echo(f"note: genesis hooks in the default folder are not run: {', '.join(st['inactive'])}")
    if st["disabled_by_env"]:
        echo("note: GENESIS_HOOKS=0 is set, the hooks do nothing")


@app.command(name="run", hidden=True,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run_hook(
    hook: Annotated[str, typer.Argument(help="commit-msg, post-commit, post-rewrite or pre-push.")],
    args: Annotated[list[str] | None, typer.Argument(help="The hook's own arguments.")] = None,
) -> None:
    """Run a hook's logic (what the shims call when only `genesis` is on PATH)."""
    from genesis_git.hooks.run import main

    code = main([hook, *(args or [])])
    if code:
        raise typer.Exit(code)
