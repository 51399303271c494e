"""List the candidate cases of the held-out issue set, by its selection rule.

The rule, applied to a full-history clone of each repository:

1. non-merge commits reachable from the default branch, committed on or
   after 2016-01-01, whose message says ``fix``/``fixes``/``fixed``,
   ``close``/``closes``/``closed`` or ``resolve``/``resolves``/``resolved``
   followed by ``#N`` (case-insensitive, an optional colon allowed);
2. the case's issue is the first such ``#N`` in the message;
3. gold = paths that existed at the first parent and that the commit
   modified, deleted or changed the type of (rename detection off), minus
   tests (a ``tests``/``test``/``testing`` folder, ``test_*.py``,
   ``*_test.py``, ``conftest.py``), docs (a ``docs``/``doc`` folder,
   ``*.rst``, ``*.md``) and changelogs (``CHANGES*``, ``CHANGELOG*``);
4. kept when gold has 1 to 4 paths and at least one of them is a ``.py``
   file (the issue is fixed in code, not in CI or packaging files);
5. an issue named by more than one kept commit is dropped (the fix is split
   or was applied twice, so no single commit is its answer).

Each candidate then became a case only if its ``#N`` is an issue (not a pull
request) whose title and description could be retrieved; see the README.
Nothing here looks at how any retrieval tool ranks a case.

    python bench/heldout/select_candidates.py --source OWNER/NAME=GITDIR ... > candidates.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from validate import excluded  # noqa: E402

SINCE = "2016-01-01"
GREP = r"(fix(es|ed)?|close[sd]?|resolve[sd]?):? +#[0-9]+"
ISSUE = re.compile(r"(?i)\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?):? +#(\d+)")


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, text=True,
                          capture_output=True).stdout


def candidates(repo: str, gitdir: str) -> list[dict[str, object]]:
    log = git(gitdir, "log", "--no-merges", f"--since={SINCE}", "-E", "-i", f"--grep={GREP}",
              "--format=%H%x00%P%x00%cI%x00%B%x01", "HEAD")
    found: list[dict[str, object]] = []
    for record in log.split("\x01"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, date, message = record.split("\x00", 3)
        numbers = ISSUE.findall(message)
        if not numbers:
            continue
        parent = parents.split()[0]
        status = git(gitdir, "diff", "--no-renames", "--name-status", "-z", parent, sha).split("\0")
        touched = [status[i + 1] for i in range(0, len(status) - 1, 2) if status[i][:1] in "MTD"]
        gold = sorted(p for p in touched if not excluded(p))
        if not 1 <= len(gold) <= 4 or not any(p.endswith(".py") for p in gold):
            continue
        found.append({"repo": repo, "issue": int(numbers[0]), "commit": sha, "parent": parent,
                      "date": date, "gold": gold, "subject": message.splitlines()[0]})
    twice = Counter(c["issue"] for c in found)
    return [c for c in found if twice[c["issue"]] == 1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", action="append", default=[], required=True,
                    metavar="OWNER/NAME=GITDIR", help="full-history clone (repeat per repository)")
    args = ap.parse_args(argv)
    for spec in args.source:
        repo, gitdir = spec.split("=", 1)
        for case in candidates(repo, gitdir):
            print(json.dumps(case))
    return 0


if __name__ == "__main__":
    sys.exit(main())
