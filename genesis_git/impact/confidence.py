"""How sure a result is: a confidence per file and a flag for weak evidence.

A file's ``confidence`` (0..1) grows with the strength of the best file's
evidence and with the file's share of it:

* *strength* — ``1 - exp(-top score)``: one signal at its full weight (the
  text alone) gives 0.63, text with a definition or a traceback frame more;
* *share* — the file's score over the best file's score;
* *anchor* — a file that something names outright (its path or module, a
  traceback frame, a symbol it defines, the columns of a named table, the
  test that tests it) keeps all of it; a file reached by words and history
  alone keeps :data:`UNANCHORED` of it.

The result's evidence is *weak* when the best file's confidence is below
:data:`WEAK`, or when it matched a single term of a requirement of several:
the ranking is then a guess, and a warning says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from genesis_git.impact.combine import FileScore

ANCHOR_SIGNALS = frozenset({"named", "traceback", "definition", "fields", "bridge", "llm"})
UNANCHORED = 0.7
WEAK = 0.45
WEAK_WARNING = ("weak evidence: nothing names the best files and few of the requirement's "
                "terms match them; treat the ranking as a guess")


def confidences(files: Sequence[FileScore]) -> list[float]:
    """The confidence of each file of a ranking (best first), rounded to 3 places."""
    if not files or files[0].score <= 0:
        return [0.0 for _ in files]
    top = files[0].score
    strength = 1.0 - math.exp(-top)
    out = []
    for f in files:
        anchored = any(f.reasons.get(s, 0.0) > 0 for s in ANCHOR_SIGNALS)
        share = max(0.0, f.score) / top
        out.append(round(min(1.0, strength * share * (1.0 if anchored else UNANCHORED)), 3))
    return out


def weak_evidence(files: Sequence[FileScore], conf: Sequence[float], matched_terms: Sequence[str],
                  n_terms: int) -> bool:
    """The best file's confidence is low, or one term of several matched anything."""
    if not files:
        return True
    return conf[0] < WEAK or (n_terms > 1 and len(matched_terms) <= 1)
