"""What a health check reports: one :class:`Finding` per thing checked.

``genesis doctor`` (:mod:`genesis_git.app.doctor`) gathers them; the parts of
genesis that know how to check themselves (the hooks, the hook log, the
design library) each offer a ``doctor_findings(repo, config)`` that returns
them.  This module sits below all of those, so none of them imports the
doctor.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Finding:
    name: str
    status: str  # ok | warn | error
    message: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)
