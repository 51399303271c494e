"""Baselines for the issue and commit sets: plain BM25 over each file's path and content.

The figures genesis is compared with on a set that has no published baseline.
For every case the tree at ``parent`` is read from a full clone (``git
ls-tree`` and ``git cat-file --batch``, no checkout); every text file (no NUL
byte in its first 8 KiB, at most 1 MB) is one document: its path, then its
content.  Words are runs of ASCII letters and digits, lower-cased, with
identifiers also split at ``_`` and at case changes (``parseArgs`` ->
``parseargs parse args``), and the bigrams of runs of CJK characters.  The
query is the case's ``query``, read the same way.  BM25 (k1 1.2, b 0.75)
ranks the documents; ties by path.  A file's words are counted once per blob,
so a repository's cases share the work.

Nothing of genesis is used: no tokenizer, no prior, no history.  The scores
are those of :func:`localize.score` (Acc@1/5/10, recall@5/10, MRR).

    python bench/baselines.py CASES.jsonl [...] --source OWNER/NAME=GITDIR [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from localize import METRICS, prepare_full, score  # noqa: E402

K1, B = 1.2, 0.75
MAX_BYTES = 1_000_000
_WORD = re.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff]+")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(text: str) -> list[str]:
    """Lower-case words; an identifier also gives its parts (``parseArgs``: ``parseargs``,
    ``parse``, ``args``; ``max_width``: ``max``, ``width``); CJK text its bigrams."""
    out: list[str] = []
    for token in _WORD.findall(text):
        if not token.isascii():  # a run of CJK characters: its bigrams (a lone one as it is)
            out.extend(token[i:i + 2] for i in range(max(len(token) - 1, 1)))
            continue
        low = token.lower()
        out.append(low)
        parts = _PARTS.findall(token)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts)
    return out


class Tree:
    """The text files of one commit of a bare clone, each blob's word counts kept."""

    def __init__(self, gitdir: Path) -> None:
        self.gitdir = gitdir
        self.counts: dict[str, Counter[str] | None] = {}  # blob -> word counts; None: not text

    def files(self, commit: str) -> dict[str, str]:
        """path -> blob of the regular files at ``commit``."""
        out = subprocess.run(["git", "--git-dir", str(self.gitdir), "ls-tree", "-r", "-z",
                              commit], capture_output=True, check=True).stdout
        found: dict[str, str] = {}
        for entry in out.split(b"\0"):
            if not entry:
                continue
            meta, path = entry.split(b"\t", 1)
            mode, kind, blob = meta.split()
            if kind == b"blob" and mode in (b"100644", b"100755"):
                found[path.decode("utf-8", "replace")] = blob.decode()
        return found

    def read(self, blobs: list[str]) -> None:
        """Count the words of the blobs not yet counted (one ``cat-file --batch``)."""
        todo = sorted(set(blobs) - self.counts.keys())
        if not todo:
            return
        proc = subprocess.run(["git", "--git-dir", str(self.gitdir), "cat-file", "--batch"],
                              input="".join(b + "\n" for b in todo).encode(),
                              capture_output=True, check=True)
        data, pos = proc.stdout, 0
        for blob in todo:
            end = data.index(b"\n", pos)
            header = data[pos:end].split()
            pos = end + 1
            if len(header) < 3 or header[1] != b"blob":  # missing from the clone
                self.counts[blob] = None
                continue
            size = int(header[2])
            body = data[pos:pos + size]
            pos += size + 1
            text = b"\0" not in body[:8192] and size <= MAX_BYTES
            self.counts[blob] = Counter(words(body.decode("utf-8", "replace"))) if text else None


def bm25_rank(tree: Tree, commit: str, query: str) -> list[str]:
    """The text files at ``commit``, best first on BM25 of ``query`` over path and content."""
    files = tree.files(commit)
    tree.read(list(files.values()))
    docs: dict[str, Counter[str]] = {}
    for path, blob in files.items():
        counts = tree.counts.get(blob)
        if counts is None:
            continue
        docs[path] = counts + Counter(words(path))
    n = len(docs) or 1
    lengths = {p: sum(c.values()) for p, c in docs.items()}
    avg = sum(lengths.values()) / n or 1.0
    q = Counter(words(query))
    df = {t: sum(1 for c in docs.values() if t in c) for t in q}
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items() if d}
    scores: dict[str, float] = {}
    for path, c in docs.items():
        s = 0.0
        for t, qtf in q.items():
            tf = c.get(t, 0)
            if tf and t in idf:
                s += qtf * idf[t] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[path] / avg))
        if s > 0:
            scores[path] = s
    return sorted(scores, key=lambda p: (-scores[p], p))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "genesis-localize",
                    help="where the full clones go (shared with localize.py)")
    args = ap.parse_args(argv)
    sources = dict(s.split("=", 1) for s in args.source)
    args.data.mkdir(parents=True, exist_ok=True)
    print("| set | cases | Acc@1 | Acc@5 | Acc@10 | R@5 | R@10 | MRR |\n"
          "|---|---|---|---|---|---|---|---|")
    for path in args.cases:
        cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        per_case: list[dict[str, Any]] = []
        for repo in dict.fromkeys(c["repo"] for c in cases):
            full = prepare_full(repo, sources.get(repo, f"https://github.com/{repo}.git"),
                                args.data)
            tree = Tree(full)
            for case in (c for c in cases if c["repo"] == repo):
                per_case.append(score(bm25_rank(tree, case["parent"], case["query"]),
                                      case["gold"]))
        n = len(per_case) or 1
        figures = [sum(c[m] for c in per_case) / n for m in METRICS]
        mrr = sum(c["rr"] for c in per_case) / n
        print(f"| {path.stem} | {len(per_case)} | "
              + " | ".join(f"{v:.3f}" for v in figures) + f" | {mrr:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
