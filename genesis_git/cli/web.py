"""``genesis web``: serve the story pages (list, story, impact, search) on this machine."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.kernel.extras import generic_hint

INSTALL_HINT = generic_hint("web")
HELP = """Serve read-only pages of this repository's stories for analysts and testers: the
story list with a filter; a story's requirement, timeline (commits, notes, decisions, risks,
links, teammates' records included), files by artifact type and what a tester should look
at; impact with a graph; search. Prints its URL on the first line of stdout and serves
127.0.0.1 until Ctrl-C or SIGTERM. Needs the optional extra web: """ + INSTALL_HINT


def web(
    port: Annotated[int, typer.Option(
        "--port", "-p", min=0, max=65535, metavar="N",
        help="The port to listen on; 0 picks a free one (the URL printed says which).")] = 8765,
    host: Annotated[str, typer.Option(
        "--host", metavar="ADDR",
        help="The address to listen on. Loopback (127.0.0.1, the default, ::1 or "
             "localhost) unless --public is given.")] = "127.0.0.1",
    public: Annotated[bool, typer.Option(
        "--public", help="Allow a --host that is not loopback: anyone who reaches the port "
                         "reads the stories and files (a warning says so).")] = False,
    open_browser: Annotated[bool, typer.Option(
        "--open", help="Open the story list in the default browser.")] = False,
    org: Annotated[bool, typer.Option(
        "--org", help="Show the stories of every repository in the PostgreSQL mirror "
                      "([ledger] mirror), each row with its projects.")] = False,
) -> None:
    """Serve read-only story pages for analysts and testers on this machine."""
    from genesis_git.cli.output import verbose
    from genesis_git.kernel.errors import EnvironmentProblem
    from genesis_git.kernel.extras import install_hint

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("genesis web needs Starlette and uvicorn, an optional extra",
                                 hint=f"install them with: {install_hint('web')}") from None
    from genesis_git.app.facade import Genesis
    from genesis_git.web.serve import serve

    g = Genesis(use_rag=False, keep_corpus=True)
    g.workspace.repo  # noqa: B018 - not a repository: the one error, before the port is bound

    def record(detail: str) -> str:
        from genesis_git import __version__
        from genesis_git.kernel.log import record_bug

        return str(record_bug([g.workspace.log_path], ["genesis", "web"], detail, __version__)
                   or "")

    code = serve(g, host=host, port=port, public=public, org=org, open_browser=open_browser,
                 verbose=verbose(), on_error=record)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add the top-level ``web`` command to ``app``."""
    app.command("web", help=HELP)(web)
