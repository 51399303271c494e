"""bench/localize.py pools a multi-repository set's ablation tables, every case counted once."""

from __future__ import annotations

from helpers import ROOT, load_module


def _table(value: float, cases: int) -> dict[str, object]:
    row = dict.fromkeys(("a1", "a5", "a10", "r5", "r10", "mrr"), value)
    return {"cases": cases, "per_case": [],
            "ablations": {"all": {**row, "cases": cases},
                          "without path": {**row, "mrr": value / 2, "cases": cases}}}


def test_ablation_tables_of_several_repositories_pool_by_their_cases() -> None:
    localize = load_module(ROOT / "bench" / "localize.py", "bench_localize")
    pooled = localize.pooled([_table(1.0, 11), _table(0.0, 9)])
    assert pooled["cases"] == 20
    assert pooled["a5"] == 0.55 and pooled["mrr"] == 0.55  # the "all signals" row
    assert pooled["ablations"]["without path"]["mrr"] == 0.275
