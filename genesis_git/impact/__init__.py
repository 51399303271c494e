"""Impact investigation: which files, symbols and fields a requirement affects, and why."""

from genesis_git.impact.agent import ImpactAgent, ImpactOptions, ImpactReport, investigate

__all__ = ["ImpactAgent", "ImpactOptions", "ImpactReport", "investigate"]
