"""The install line of an optional extra: one that works for the genesis that runs (a clone,
a wheel, pipx), never the unpublished `pip install 'genesis-git[mcp]'` alone."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from genesis_git.cli.mcp import HELP
from genesis_git.kernel import extras

LATER = "; once genesis-git is published: pip install 'genesis-git[mcp]'"


@pytest.fixture
def origin(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """What ``direct_url.json`` says, as a test sets it; no pipx environment."""
    data: dict[str, object] = {}
    monkeypatch.setattr(extras, "_origin", lambda: data)
    monkeypatch.setattr(sys, "prefix", "/opt/venvs/genesis")
    monkeypatch.setattr(sys, "executable", "/opt/venvs/genesis/bin/python")
    return data


def test_an_editable_clone_gets_pip_install_e_of_that_clone(origin: dict[str, object],
                                                            tmp_path: Path) -> None:
    clone = tmp_path / "my genesis"
    clone.mkdir()
    origin.update(url=clone.as_uri(), dir_info={"editable": True})
    assert extras.install_hint("mcp") == (
        f"/opt/venvs/genesis/bin/python -m pip install -e '{clone}[mcp]'" + LATER)


def test_a_clone_installed_without_e_keeps_that_form(origin: dict[str, object],
                                                     tmp_path: Path) -> None:
    origin.update(url=tmp_path.as_uri(), dir_info={})
    assert extras.install_hint("mcp") == (
        f"/opt/venvs/genesis/bin/python -m pip install '{tmp_path}[mcp]'" + LATER)


def test_a_wheel_gets_its_own_file_with_the_extra(origin: dict[str, object],
                                                  tmp_path: Path) -> None:
    wheel = tmp_path / "genesis_git-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    origin.update(url=wheel.as_uri(), archive_info={})
    assert extras.install_hint("postgres") == (
        f"/opt/venvs/genesis/bin/python -m pip install '{wheel}[postgres]'"
        "; once genesis-git is published: pip install 'genesis-git[postgres]'")


def test_a_wheel_that_is_gone_or_an_unknown_origin_gets_both_ways(origin: dict[str, object],
                                                                 tmp_path: Path) -> None:
    origin.update(url=(tmp_path / "gone.whl").as_uri(), archive_info={})
    assert extras.install_hint("mcp") == extras.generic_hint("mcp")
    origin.clear()
    origin.update(url="https://example.com/genesis_git-0.1.0-py3-none-any.whl")
    assert extras.install_hint("mcp") == (
        "in a clone of genesis: pip install -e '.[mcp]'; from a wheel: "
        "pip install 'genesis_git-<version>-py3-none-any.whl[mcp]'" + LATER)


def test_a_pipx_environment_gets_pipx_inject(origin: dict[str, object],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "prefix", "/home/ann/.local/pipx/venvs/genesis-git")
    monkeypatch.setattr(extras, "_requirements", lambda extra: ["mcp<3,>=2.3"])
    assert extras.install_hint("mcp") == "pipx inject genesis-git 'mcp<3,>=2.3'"


def test_the_help_names_the_ways_that_work_today() -> None:
    words = " ".join(HELP.split())
    assert "pip install -e '.[mcp]'" in words
    assert "'genesis_git-<version>-py3-none-any.whl[mcp]'" in words
    assert words.endswith("once genesis-git is published: pip install 'genesis-git[mcp]'")
