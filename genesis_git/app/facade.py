"""One object for any caller — the CLI, the MCP server, a service, an editor plugin:
:class:`Genesis`, made of one small service per noun over one :class:`Workspace`.

    from genesis_git.app import Genesis

    with Genesis("path/to/repo") as g:
        g.sessions.current()                          # start or refresh the session index
        g.search.run("order total", g.search.options(k=5))
        g.impact.run("订单表新增字段 discount_code").result
        g.stories.context("STORY-12")
        g.design.search("card spacing")

The doors call nothing else: each command of ``genesis`` and each tool of
``genesis mcp`` is one call of a service method here, so that any front end gets
exactly what the command line gets.  The services are

* ``g.sessions`` (:class:`~genesis_git.app.services.sessions.Sessions`): the session and its notes;
* ``g.search`` (:class:`~genesis_git.app.services.search.Search`), its exact and regex mode too;
* ``g.symbols`` (:class:`~genesis_git.app.services.symbols.Symbols`): definitions, references, outlines;
* ``g.impact`` (:class:`~genesis_git.app.services.impact.Impact`);
* ``g.stories`` (:class:`~genesis_git.app.services.stories.Stories`): the ledger and ``sync``;
* ``g.design`` (:class:`~genesis_git.app.services.design.Design`): the design library;
* ``g.check`` (:class:`~genesis_git.app.services.check.Check`): what a change forgot;
* ``g.hooks``, ``g.cache``, ``g.mirror`` (the PostgreSQL mirror);

and :meth:`Genesis.init` and :meth:`Genesis.doctor` act on the workspace itself.

It plays the role of the library API's ``GenesisService``
(docs/explanation/architecture.md): ``use_rag`` (off by default)
makes ``g.impact.run`` ask the configured LLM engine, and an
:class:`~genesis_git.rag.impact_rag.ImpactRAG` given as ``rag`` is investigated
instead of the repository (text kept outside git).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from genesis_git.app.services.cache import Cache
from genesis_git.app.services.check import Check
from genesis_git.app.services.design import Design
from genesis_git.app.services.hooks import Hooks
from genesis_git.app.services.impact import Impact
from genesis_git.app.services.mirror import Mirror
from genesis_git.app.services.search import Search
from genesis_git.app.services.sessions import Sessions
from genesis_git.app.services.stories import Stories
from genesis_git.app.services.symbols import Symbols
from genesis_git.app.workspace import Workspace

if TYPE_CHECKING:
    from genesis_git.app.doctor import Finding
    from genesis_git.providers.llm import Engine
    from genesis_git.rag.impact_rag import ImpactRAG


class Genesis:
    """The services of one repository's workspace (each part read on first use).

    ``use_rag`` is whether ``g.impact.run`` asks the LLM engine when its caller does not
    say: ``False`` (the default) only when told, ``None`` when one is configured (what the
    command line and the MCP server do).  ``keep_corpus`` keeps the impact corpus between
    calls while the store is unchanged (a long-lived process).
    """

    def __init__(self, repo_path: str | Path | None = None, *, use_rag: bool | None = False,
                 rag: ImpactRAG | None = None, engine: str | Engine | None = None,
                 scope: str | None = None, keep_corpus: bool = False):
        self.workspace = Workspace.open(repo_path)
        self.sessions = Sessions(self.workspace)
        self.search = Search(self.workspace)
        self.symbols = Symbols(self.workspace)
        self.impact = Impact(self.workspace, use_rag=use_rag, rag=rag, engine=engine,
                             scope=scope, keep_corpus=keep_corpus)
        self.stories = Stories(self.workspace)
        self.design = Design(self.workspace)
        self.hooks = Hooks(self.workspace)
        self.cache = Cache(self.workspace)
        self.mirror = Mirror(self.workspace)
        self.check = Check(self.workspace)

    def init(self, *, share: bool = False,
             share_with: list[str] | None = None) -> dict[str, Any]:
        """Create the store and a commented config (``[tool.genesis]`` in an existing
        pyproject.toml, else ``.genesis.toml``; idempotent); ``share`` writes
        ``[ledger] share = true`` and ``[ledger] remotes`` (``share_with``, default the
        remote init sees).  When sharing is on, the remote's ledger is pulled."""
        from genesis_git.app.initialize import init_repo
        from genesis_git.stories.catchup import bind_new_commits

        return init_repo(self.workspace.repo.root, share=share, share_with=share_with,
                         bind=bind_new_commits)

    def doctor(self) -> list[Finding]:
        """Every check of ``genesis doctor``; a finding's ``status`` is ok, warn or error."""
        from genesis_git.app.doctor import run_checks

        return run_checks(self.workspace.path)

    def close(self) -> None:
        """Close the store; the services open it again when next used."""
        self.workspace.close()

    def __enter__(self) -> Genesis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
