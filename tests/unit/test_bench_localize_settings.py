"""bench/localize.py's ``--setting SECTION.KEY=VALUE``: which variable each setting becomes."""

from __future__ import annotations

from types import ModuleType

import pytest

from helpers import ROOT, load_module


def _localize() -> ModuleType:
    return load_module(ROOT / "bench" / "localize.py", "bench_localize")


def test_a_setting_becomes_its_genesis_variable() -> None:
    env = _localize().setting_env(["embed.provider=wordllama", "search.k=7"])
    assert env == {"GENESIS_EMBED_PROVIDER": "wordllama", "GENESIS_SEARCH_K": "7"}


def test_a_value_keeps_its_equals_signs_and_may_be_empty() -> None:
    env = _localize().setting_env(["embed.base_url=http://h/v1?a=b", "embed.model="])
    assert env == {"GENESIS_EMBED_BASE_URL": "http://h/v1?a=b", "GENESIS_EMBED_MODEL": ""}


@pytest.mark.parametrize("bad", ["embed.provider", "provider=hash", ".provider=hash",
                                 "embed.=hash", "embed.pro vider=hash", "em-bed.provider=x"])
def test_a_malformed_setting_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="SECTION.KEY=VALUE"):
        _localize().setting_env([bad])


def test_the_command_line_refuses_a_malformed_setting_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _localize().main(["cases.jsonl", "--setting", "nonsense"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--setting 'nonsense': expected SECTION.KEY=VALUE" in err
    assert "Traceback" not in err
