"""The services of ``Genesis`` over one ``Workspace``: each reads its own repository, never
the working directory's, and opening a workspace does nothing until a service asks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from genesis_git.app import Genesis, Workspace
from genesis_git.kernel.errors import GenesisError
from genesis_git.stories import journal

from helpers import SAMPLE_FILES, commit_files, genesis_cmd, make_repo

# The working directory's repository also speaks of invoices, so that code taken from it
# instead of the named repository shows.
HERE_FILES = {**SAMPLE_FILES,
              "src/shop/invoice_mailer.py": "def mail_monthly_invoice(order):\n"
                                            "    return 'invoice sent'\n"}
BILLING_FILES = {
    "billing/invoices.py": "def monthly_invoice(customer):\n"
                           "    \"\"\"Build the monthly invoice of a customer.\"\"\"\n"
                           "    return {'customer': customer, 'lines': []}\n",
    "docs/billing.md": "# Billing\n\nInvoices are built monthly for every customer.\n",
}


@pytest.fixture
def two_repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``here`` (the working directory) and ``billing``, whose STORY-5 is about invoices."""
    here = make_repo(tmp_path / "here", HERE_FILES)
    billing = make_repo(tmp_path / "billing", BILLING_FILES)
    commit_files(billing, "STORY-5: monthly invoice for every customer",
                 {"billing/invoices.py": BILLING_FILES["billing/invoices.py"]
                  + "\n\ndef invoice_total(invoice):\n    return 0\n"})
    subprocess.run([*genesis_cmd(), "story", "rebuild"], cwd=billing, check=True,
                   capture_output=True, timeout=120)
    monkeypatch.chdir(here)
    return here, billing


def code_paths(context: dict[str, Any]) -> set[str]:
    return {hit["path"] for hit in context["code"]}


def test_story_context_with_code_reads_the_named_repository(
        two_repos: tuple[Path, Path]) -> None:
    _, billing = two_repos
    with Genesis(billing) as g:
        context = g.stories.context("STORY-5", with_code=3)
    assert context["story"]["story_id"] == "STORY-5"
    assert context["code"], context["notes"]
    assert code_paths(context) <= set(BILLING_FILES)
    assert context["code"][0]["path"] == "billing/invoices.py"


def test_story_context_with_code_through_genesis_mcp(two_repos: tuple[Path, Path]) -> None:
    from test_mcp import RawClient

    here, billing = two_repos
    client = RawClient(here)  # the server's working directory is the other repository
    try:
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "plain", "version": "1"}})
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        reply = client.call("story_context", {"story_id": "STORY-5", "with_code": 3,
                                              "repo": str(billing)})
        assert not reply.get("isError"), reply
        context = reply["structuredContent"]
        assert context["story"]["story_id"] == "STORY-5"
        assert context["code"], context["notes"]
        assert code_paths(context) <= set(BILLING_FILES)
        assert context["code"][0]["path"] == "billing/invoices.py"
    finally:
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=60) == 0


def test_opening_a_workspace_reads_and_writes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    ws = Workspace.open(repo)
    assert not ws.is_open and not ws.store_path.exists()
    assert ws.repo.root == repo.resolve()
    assert not ws.is_open and not ws.store_path.exists()  # the repository alone opens nothing
    assert ws.ledger().execute("SELECT COUNT(*) FROM story_records").fetchone()[0] == 0
    assert not ws.store_path.exists()  # a read of the ledger creates no store
    ws.close()
    with pytest.raises(GenesisError, match="not a git repository"):
        _ = Workspace.open(tmp_path).repo


def test_catching_up_with_the_hooks_is_its_own_step(tmp_path: Path) -> None:
    """The store opens plainly; the journal the hooks left is applied by ``caught_up``."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    ws = Workspace.open(repo)
    conn = ws.context.conn
    conn.execute("INSERT INTO story_records(story_id, project_id, title) VALUES (?, ?, ?)",
                 ("STORY-1", "p", "before"))
    ws.close()
    sha = commit_files(repo, "STORY-2: two", {"b.txt": "b\n"})
    journal.record(ws.store_path, {"hook": "post-commit", "sha": sha, "root": str(repo),
                                   "git_dir": str(repo / ".git"),
                                   "common_dir": str(repo / ".git")})
    ctx = ws.context
    assert journal.pending(ws.store_path)  # opening the store applied nothing
    assert ws.caught_up() is ctx
    assert journal.pending(ws.store_path) == []
    stories = {r[0] for r in ctx.conn.execute("SELECT story_id FROM story_records")}
    assert stories == {"STORY-1", "STORY-2"}
    ws.close()
    assert not ws.is_open


def test_each_noun_is_one_service_over_the_same_workspace(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    with Genesis(repo) as g:
        for name in ("sessions", "search", "impact", "stories", "design", "hooks", "cache",
                     "mirror"):
            assert getattr(g, name)._ws is g.workspace, name
        options = g.search.options(types=("db",))
        assert options.types == ("DB",) and options.k == 10 and options.mode == "hybrid"
        with pytest.raises(GenesisError, match="unknown mode 'fuzzy'"):
            g.search.options(mode="fuzzy")
        assert not g.workspace.is_open  # checking options opens no store
        result = g.search.run("orders", options)
        assert [h.path for h in result.hits] == ["db/schema.sql"]
        assert g.workspace.is_open
        report = g.impact.run("订单表新增字段 discount_code", g.impact.options(k=2))
        assert report.result["files"][0]["path"] == "docs/req/orders.md"
        assert report.to_json() == json.loads(subprocess.run(
            [*genesis_cmd(), "impact", "--json", "-k", "2", "订单表新增字段 discount_code"],
            cwd=repo, check=True, capture_output=True, text=True, timeout=120).stdout)
        assert g.impact.prompt("订单表新增字段 discount_code").startswith("# Requirement\n")
    assert not g.workspace.is_open
