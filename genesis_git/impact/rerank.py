"""The fifth station of impact, optional: an LLM engine's answer as one more signal, ``llm``.

The prompt (:mod:`genesis_git.impact.prompt`) quotes the corpus's excerpts and
the files the cross-reference ranked first.  The engine answers with
``impacts``, most affected first; the i-th of n gets ``llm`` =
``LLM_WEIGHT * (n - i) / n``.  The ranked files get that signal added to
their reasons (a file only the engine named enters with it alone), and are
ranked again.  An engine that fails, times out or answers badly leaves the
cross-reference in place, with a warning; it never makes the result empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genesis_git.impact.combine import FileScore, Ranking
from genesis_git.impact.prompt import parse_answer
from genesis_git.kernel.errors import GenesisError
from genesis_git.providers.llm import Engine, EngineError

LLM_WEIGHT = 0.5
FALLBACK = "showing the cross-reference result instead"


def ask(engine: Engine | None, prompt: str, warnings: list[str]) -> list[dict[str, Any]] | None:
    """The engine's impacts, normalised; ``None`` (and a warning) when there are none to use."""
    try:
        if engine is None:
            raise EngineError("no LLM engine is configured (impact.engine is \"none\")",
                              hint="set --engine, or pipe `genesis impact --prompt` into any LLM")
        return parse_answer(engine.complete(prompt))
    except GenesisError as exc:
        warnings.append(f"{exc.message}; {FALLBACK}")
    except Exception as exc:  # an engine must never crash the command
        warnings.append(f"the engine failed ({type(exc).__name__}: {exc}); {FALLBACK}")
    return None


def llm_signal(items: list[dict[str, Any]]) -> list[float]:
    """The ``llm`` signal of each of the engine's impacts, by their order."""
    n = len(items)
    return [round(LLM_WEIGHT * (n - i) / n, 4) for i in range(n)]


def rerank(ranking: Ranking, items: list[dict[str, Any]], scores: list[float],
           files: Mapping[str, object], k: int) -> list[FileScore]:
    """The ``k`` best files with the ``llm`` signal added (``files``: the corpus's paths)."""
    llm_score: dict[str, float] = {}
    for item, s in zip(items, scores, strict=True):
        path = item["path"]
        if path:
            llm_score[path] = max(llm_score.get(path, 0.0), s)
    by_path = {f.path: f for f in ranking.files}
    out: list[tuple[float, str, dict[str, float]]] = []
    for f in ranking.files:
        reasons = dict(f.reasons)
        if f.path in llm_score:
            reasons["llm"] = llm_score[f.path]
        out.append((round(sum(reasons.values()), 4), f.path, reasons))
    for path, s in llm_score.items():
        if path in files and path not in by_path:
            out.append((s, path, {"llm": s}))
    out.sort(key=lambda x: (-x[0], x[1]))
    return [FileScore(p, s, r) for s, p, r in out[:k]]


def unknown_paths(items: list[dict[str, Any]], files: Mapping[str, object]) -> str | None:
    """A warning for the paths the engine named that the corpus does not hold."""
    unknown = sorted({i["path"] for i in items if i["path"] and i["path"] not in files})
    if not unknown:
        return None
    return "the engine named paths that are not in the index: " + ", ".join(unknown[:5])
