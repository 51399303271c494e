"""Impact investigation: which files, symbols and fields a requirement affects, and why.

One pass (:func:`run`): analyse → corpus → signals → combine → (LLM rerank)
→ evidence → :class:`ImpactResult`.

The names below are loaded when first used, so that a caller of one light module of
the package (``genesis symbols`` reads :mod:`genesis_git.impact.facts`) does not load
the pipeline and NumPy with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.impact.agent import ImpactAgent, ImpactReport, investigate
    from genesis_git.impact.pipeline import ImpactOptions, Scope, run
    from genesis_git.impact.result import SCHEMA, Impact, ImpactResult, RankedFile

_MODULE = {"ImpactAgent": "agent", "ImpactReport": "agent", "investigate": "agent",
           "ImpactOptions": "pipeline", "Scope": "pipeline", "run": "pipeline",
           "SCHEMA": "result", "Impact": "result", "ImpactResult": "result",
           "RankedFile": "result"}

__all__ = ["SCHEMA", "Impact", "ImpactAgent", "ImpactOptions", "ImpactReport", "ImpactResult",
           "RankedFile", "Scope", "investigate", "run"]


def __getattr__(name: str) -> Any:
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE[name]}"), name)
    globals()[name] = value
    return value
