"""bench/localize.py's ``--setting`` reaches the console script it runs, and nothing else
of the caller's genesis environment does."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from helpers import ROOT, load_module


def _localize() -> ModuleType:
    return load_module(ROOT / "bench" / "localize.py", "bench_localize")


def test_a_setting_reaches_the_console_script(repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    localize = _localize()
    home = tmp_path / "home"
    # the caller's own variable is dropped: only --setting passes settings on
    monkeypatch.setenv("GENESIS_EMBED_PROVIDER", "nosuch")
    plain = localize.run_search(repo, "order total", home)
    assert plain and all((repo / path).is_file() for path in plain), plain  # the default ran
    with pytest.raises(RuntimeError) as exc:
        localize.run_search(repo, "order total", home,
                            env=localize.setting_env(["embed.provider=nosuch"]))
    assert "nosuch" in str(exc.value)
    assert "embed.provider" in str(exc.value)
