"""Check every case of the held-out issue set against full clones.

For each line of ``bench/heldout_issues.jsonl`` (or the files given) this
checks, in the full-history clone of the case's repository:

* the fields are there and of the right type, ``query`` is not blank, the
  title (first line) is not blank, ``meta.issue`` names the repository;
* ``commit`` and ``parent`` are commits of the clone, ``commit`` is not a
  merge and ``parent`` is its first parent;
* ``gold`` is sorted, without duplicates, 1 to 4 paths, none of them a test,
  a docs page or a changelog;
* every gold path exists at ``parent`` and ``commit`` modified it, deleted
  it or changed its type (rename detection off);
* no issue appears twice.

    python bench/heldout/validate.py [CASES.jsonl ...] --source OWNER/NAME=GITDIR ...

``GITDIR`` is a clone with full history (bare or not).  Exits 1 and lists
every problem if any case fails, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = HERE.parent / "heldout_issues.jsonl"
FIELDS = {"repo": str, "commit": str, "parent": str, "query": str, "gold": list, "meta": dict}


def excluded(path: str) -> bool:
    """A test, a docs page or a changelog: never gold (the selection rule)."""
    p = PurePosixPath(path)
    name = p.name
    if any(part in ("tests", "test", "testing", "docs", "doc") for part in p.parts[:-1]):
        return True
    if name == "conftest.py" or (name.startswith("test_") and name.endswith(".py")):
        return True
    if name.endswith("_test.py") or name.endswith((".rst", ".md")):
        return True
    return name.upper().startswith(("CHANGES", "CHANGELOG"))


def git(gitdir: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "--git-dir", gitdir, *args], text=True, capture_output=True)


def is_commit(gitdir: str, sha: str) -> bool:
    r = git(gitdir, "cat-file", "-t", sha)
    return r.returncode == 0 and r.stdout.strip() == "commit"


def check_case(case: dict[str, Any], gitdir: str) -> list[str]:
    problems: list[str] = []
    for field, kind in FIELDS.items():
        if not isinstance(case.get(field), kind):
            problems.append(f"field {field!r} missing or not {kind.__name__}")
    if problems:
        return problems
    query, gold, meta = case["query"], case["gold"], case["meta"]
    if not query.strip() or not query.split("\n", 1)[0].strip():
        problems.append("query or its title line is blank")
    if not str(meta.get("issue", "")).startswith(case["repo"] + "#"):
        problems.append(f"meta.issue {meta.get('issue')!r} does not name {case['repo']}")
    if not 1 <= len(gold) <= 4:
        problems.append(f"gold has {len(gold)} paths (1 to 4 expected)")
    if gold != sorted(set(gold)):
        problems.append("gold is not sorted or has duplicates")
    problems += [f"gold path {p!r} is a test, docs page or changelog" for p in gold if excluded(p)]
    commit, parent = case["commit"], case["parent"]
    for name, sha in (("commit", commit), ("parent", parent)):
        if not is_commit(gitdir, sha):
            problems.append(f"{name} {sha} is not a commit of the clone")
    if problems:
        return problems
    parents = git(gitdir, "rev-list", "--parents", "-n", "1", commit).stdout.split()[1:]
    if len(parents) != 1:
        problems.append(f"commit has {len(parents)} parents (a non-merge commit expected)")
    if not parents or parents[0] != parent:
        problems.append("parent is not the first parent of commit")
    listed = git(gitdir, "ls-tree", "-r", "--name-only", "-z", parent).stdout.split("\0")
    at_parent = set(listed)
    diff = git(gitdir, "diff", "--no-renames", "--name-status", "-z", parent, commit).stdout
    fields = diff.split("\0")
    touched = {fields[i + 1] for i in range(0, len(fields) - 1, 2) if fields[i][:1] in "MTD"}
    for path in gold:
        if path not in at_parent:
            problems.append(f"gold path {path!r} does not exist at parent")
        elif path not in touched:
            problems.append(f"gold path {path!r} is not modified by commit")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", type=Path, default=[DEFAULT_CASES])
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GITDIR",
                    help="full-history clone of a repository (repeat per repository)")
    args = ap.parse_args(argv)
    sources = dict(s.split("=", 1) for s in args.source)
    failures = 0
    total = 0
    seen: dict[str, str] = {}
    per_repo: dict[str, int] = {}
    for path in args.cases:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            total += 1
            where = f"{path.name}:{lineno}"
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                print(f"{where}: not JSON ({exc})")
                failures += 1
                continue
            repo = case.get("repo", "")
            gitdir = sources.get(repo)
            if gitdir is None:
                print(f"{where}: no --source for {repo!r}")
                failures += 1
                continue
            problems = check_case(case, gitdir)
            issue = str(case.get("meta", {}).get("issue", ""))
            if issue in seen:
                problems.append(f"issue {issue} already used at {seen[issue]}")
            seen[issue] = where
            for problem in problems:
                print(f"{where} ({issue}): {problem}")
            failures += bool(problems)
            per_repo[repo] = per_repo.get(repo, 0) + 1
    counts = ", ".join(f"{repo} {n}" for repo, n in sorted(per_repo.items()))
    print(f"{total} cases ({counts}): {total - failures} valid, {failures} with problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
