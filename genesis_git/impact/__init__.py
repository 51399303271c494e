"""Impact investigation: which files, symbols and fields a requirement affects, and why.

One pass (:func:`run`): analyse → corpus → signals → combine → (LLM rerank)
→ evidence → :class:`ImpactResult`.
"""

from genesis_git.impact.agent import ImpactAgent, ImpactReport, investigate
from genesis_git.impact.pipeline import ImpactOptions, Scope, run
from genesis_git.impact.result import SCHEMA, Impact, ImpactResult, RankedFile

__all__ = ["SCHEMA", "Impact", "ImpactAgent", "ImpactOptions", "ImpactReport", "ImpactResult",
           "RankedFile", "Scope", "investigate", "run"]
