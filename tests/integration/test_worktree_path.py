"""One check of a path a user or an agent names: inside the repository's working tree, not
inside ``.git`` (``Repo.worktree_path``), and each door's own words for it: ``session
note --path``, ``symbols --outline`` and the MCP tools' path arguments."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.app.facade import Genesis
from genesis_git.cli.main import app as cli
from genesis_git.git.repo import find_repo
from genesis_git.kernel.errors import ExitCode, UsageError

runner = CliRunner()


def test_a_path_of_the_working_tree(repo: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tree = find_repo(repo)
    monkeypatch.chdir(repo / "src")
    assert tree.worktree_path("shop/orders.py", name="--path") == "src/shop/orders.py"
    assert tree.worktree_path("src/shop/orders.py", base=repo, name="p:") == "src/shop/orders.py"
    assert tree.worktree_path(str(repo / "README.md"), name="--path") == "README.md"
    assert tree.worktree_path("../src/./shop/../shop/orders.py", name="x") == "src/shop/orders.py"
    (tmp_path / "secret.txt").write_text("s\n")
    os.symlink(tmp_path / "secret.txt", repo / "src" / "leak.txt")
    for given, where in (("../../etc/passwd", "outside the repository"),
                         ("/etc/hosts", "outside the repository"),
                         ("leak.txt", "outside the repository"),  # a link leading out
                         ("../.git/config", "inside .git, not the working tree"),
                         (str(repo / ".git" / "HEAD"), "inside .git, not the working tree")):
        with pytest.raises(UsageError) as err:
            tree.worktree_path(given, name="--path", hint="name a file of this repository")
        assert str(err.value) == f"--path {given} is {where} (name a file of this repository)"
        assert err.value.exit_code == ExitCode.USAGE
    with pytest.raises(UsageError) as err:
        tree.worktree_path("../..", name="--outline:")
    assert str(err.value) == "--outline: ../.. is outside the repository"


def test_each_door_keeps_its_words(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner.invoke(cli, ["session", "start"]).exit_code == 0
    monkeypatch.chdir(repo / "src")
    res = runner.invoke(cli, ["session", "note", "x", "--path", "../.git/config"])
    assert (res.exit_code, res.output.strip()) == (2, (
        "genesis: error: --path ../.git/config is inside .git, not the working tree "
        "(name a file of this repository)"))
    res = runner.invoke(cli, ["symbols", "--outline", "../../elsewhere.py"])
    assert (res.exit_code, res.output.strip()) == (
        2, "genesis: error: --outline: ../../elsewhere.py is outside the repository")
    # a path inside .git is refused as such, not looked up as a file of the session
    res = runner.invoke(cli, ["symbols", "--outline", "../.git/config"])
    assert (res.exit_code, res.output.strip()) == (
        2, "genesis: error: --outline: ../.git/config is inside .git, not the working tree")
    res = runner.invoke(cli, ["symbols", "--outline", "shop/orders.py", "--json"])
    assert res.exit_code == 0 and '"path": "src/shop/orders.py"' in res.output


def test_the_mcp_tools_take_paths_from_the_root(repo: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp_types")
    from genesis_git.mcp.common import repo_path

    monkeypatch.chdir(tmp_path)  # the server's own folder does not matter
    with Genesis(repo) as g:
        root = repo.resolve()
        assert repo_path(g, "path", "src/shop/orders.py") == str(root / "src/shop/orders.py")
        assert repo_path(g, "path", None) is None
        for value, line in (
                ("../outside.md", "doc: ../outside.md is outside the repository (give a path "
                                  "relative to the repository's root)"),
                (".git/config", "doc: .git/config is inside .git, not the working tree (give a "
                                "path relative to the repository's root)"),
                (" ", "doc: empty path (give a path relative to the repository's root)")):
            with pytest.raises(UsageError) as err:
                repo_path(g, "doc", value)
            assert str(err.value) == line
