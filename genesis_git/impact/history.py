"""History signals: co-change (logical coupling) from git, and similar stories from the ledger.

**Co-change.**  ``git log --name-only`` over HEAD's ancestry (never other
branches, never anything after HEAD) gives one *transaction* per commit: the
set of files it changed.  As in ROSE (Zimmermann et al., "Mining version
histories to guide software changes"), the rule ``a → b`` has *support*
``n(a, b)``, the number of transactions holding both, and *confidence*
``n(a, b) / n(a)``.  Large transactions (mass renames, formatting runs) say
little about coupling and are left out; recent transactions weigh more
than old ones.  The transactions are cached in ``genesis_kv`` under
``cochange:<HEAD SHA>``, so a second run at the same HEAD reads no history;
a reader that needs no commit messages (``genesis check``) reads them without
and keeps them under ``check-history:<commit>``.

**Work in progress.**  The files of the last ten commits of the same history, the
newest weighing most (:func:`recent_scores`).

**Story history.**  Stories of the ledger whose text (title, commit
subjects, artifact summaries) is similar to the requirement lend their files
a score.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from genesis_git.git.repo import Repo
from genesis_git.impact.analyse import clean_requirement
from genesis_git.store import kv
from genesis_git.store.connect import transaction
from genesis_git.text import bm25
from genesis_git.text.tokens import tokenize

MAX_COMMITS = 3000  # the most recent commits of HEAD's ancestry that are read
MAX_TX_FILES = 20  # a commit touching more files is not a coupling signal
HALF_LIFE = 400.0  # commits after which a transaction weighs half
CACHE_NAMESPACE = "cochange"  # with the commit messages
PATHS_NAMESPACE = "check-history"  # without them (the name ``genesis check`` gave it first)
CACHE_KEEP = 4  # cached HEADs kept (several worktrees at different HEADs)
CACHE_VERSION = 2


@dataclass
class History:
    """Recency-weighted transactions of HEAD's ancestry, newest first."""

    head: str | None
    files: list[str]
    transactions: list[list[int]]  # indices into ``files``
    changes: int  # commits read
    shas: list[str] = field(default_factory=list)  # one per transaction
    subjects: list[str] = field(default_factory=list)  # first line of each message
    message_tokens: list[str] = field(default_factory=list)  # tokens of each message, joined
    _counts: tuple[dict[str, float], dict[str, dict[str, float]]] | None = field(
        default=None, repr=False, compare=False)
    _messages: tuple[list[list[str]], float, dict[str, list[int]]] | None = field(
        default=None, repr=False, compare=False)

    def messages(self) -> tuple[list[list[str]], float, dict[str, list[int]]]:
        """The messages' tokens, their mean length and the messages each token is in
        (ascending), read once per history."""
        if self._messages is None:
            docs = [toks.split() for toks in self.message_tokens]
            postings: dict[str, list[int]] = defaultdict(list)
            for i, d in enumerate(docs):
                for t in dict.fromkeys(d):
                    postings[t].append(i)
            avgdl = sum(len(d) for d in docs) / len(docs) if docs else 0.0
            self._messages = (docs, avgdl or 1.0, dict(postings))
        return self._messages

    def weights(self) -> list[float]:
        return [0.5 ** (i / HALF_LIFE) for i in range(len(self.transactions))]

    def counts(self) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
        """``n(a)`` and ``n(a, b)``, recency-weighted, over transactions of at most MAX_TX_FILES."""
        if self._counts is not None:
            return self._counts
        single: dict[str, float] = defaultdict(float)
        pair: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for w, tx in zip(self.weights(), self.transactions, strict=True):
            if len(tx) > MAX_TX_FILES:
                continue
            names = [self.files[i] for i in tx]
            for a in names:
                single[a] += w
                if len(names) > 1:
                    row = pair[a]
                    for b in names:
                        if b != a:
                            row[b] += w
        self._counts = (dict(single), {a: dict(r) for a, r in pair.items()})
        return self._counts


def _read_log(repo: Repo, head: str, messages: bool) -> History:
    """The transactions of ``head``'s ancestry, newest first (no merges, no renames, at most
    ``MAX_COMMITS``), with each commit's subject and message tokens when ``messages``."""
    files: list[str] = []
    ids: dict[str, int] = {}
    hist = History(head, files, [], 0)
    for commit in repo.log("%H%x02%B" if messages else "%H", head,
                           options=("--no-merges", "--no-renames", f"--max-count={MAX_COMMITS}")):
        sha, _, message = commit.header.partition(b"\x02")
        hist.shas.append(sha.decode().strip())
        if messages:
            text = message.decode("utf-8", "replace")
            hist.subjects.append(text.strip().split("\n", 1)[0][:120])
            hist.message_tokens.append(" ".join(tokenize(clean_requirement(text))))
        hist.transactions.append(transaction_of(commit.paths, files, ids))
    hist.changes = len(hist.transactions)
    return hist


def transaction_of(paths: Iterable[str], files: list[str], ids: dict[str, int]) -> list[int]:
    """A commit's paths as indexes into ``files`` (new paths appended, ``ids`` kept in step),
    in order and each once: a commit may touch 50,000 files."""
    current: dict[int, None] = {}
    for path in paths:
        idx = ids.get(path)
        if idx is None:
            idx = ids[path] = len(files)
            files.append(path)
        current[idx] = None
    return list(current)


def _namespace(messages: bool) -> str:
    return CACHE_NAMESPACE if messages else PATHS_NAMESPACE


def _cached(conn: sqlite3.Connection, head: str, messages: bool) -> History | None:
    """The history of the commit ``head`` kept in the store (``None``: not kept, kept by an
    older genesis, or damaged; it is read again)."""
    data = kv.get_json(conn, _namespace(messages), head)
    if data is None:
        return None
    try:
        if data.get("version") != CACHE_VERSION:
            return None
        return History(head, data["files"], data["transactions"], data["changes"],
                       data["shas"], data["subjects"] if messages else [],
                       data["tokens"] if messages else [])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _keep(conn: sqlite3.Connection, hist: History, messages: bool) -> None:
    """Keep ``hist`` in the store, beside the newest ``CACHE_KEEP`` others."""
    assert hist.head is not None
    value: dict[str, object] = {"version": CACHE_VERSION, "files": hist.files,
                                "transactions": hist.transactions, "changes": hist.changes,
                                "shas": hist.shas}
    if messages:
        value.update(subjects=hist.subjects, tokens=hist.message_tokens)
    namespace = _namespace(messages)
    with transaction(conn):
        kv.put_json(conn, namespace, hist.head, value, compact=True)
        kv.keep_newest(conn, namespace, CACHE_KEEP)


_MEMO: dict[tuple[str, bool], History] = {}  # a commit's history never changes: kept per process


def forget_histories() -> None:
    """Drop the histories this process keeps (the store keeps its own)."""
    _MEMO.clear()


def load_history(conn: sqlite3.Connection | None, repo: Repo, head: str | None = None, *,
                 messages: bool = True) -> History:
    """HEAD's history (or that of the commit ``head``), from the store when it was read
    before; empty without commits.  Without ``messages`` (co-change needs none), the commits'
    messages are neither read nor kept: ``subjects`` and ``message_tokens`` stay empty."""
    head = head or repo.head_sha()
    if head is None:
        return History(None, [], [], 0)
    hist = _MEMO.get((head, messages))
    if hist is not None:
        return hist
    hist = _cached(conn, head, messages) if conn is not None else None
    if hist is None:
        hist = _read_log(repo, head, messages)
        if conn is not None:
            _keep(conn, hist, messages)
    if len(_MEMO) >= CACHE_KEEP:
        del _MEMO[next(iter(_MEMO))]
    _MEMO[(head, messages)] = hist
    return hist


def cochange_scores(hist: History, seeds: Mapping[str, float], candidates: Iterable[str],
                    *, min_support: float = 1.0) -> dict[str, tuple[float, list[str]]]:
    """ROSE-style coupling: ``Σ_s weight(s) · confidence(s → f)`` for every candidate ``f``.

    Returns ``{path: (score, [seed paths that contributed, strongest first])}``.
    A rule counts only when its recency-weighted support is at least ``min_support``.
    """
    single, pair = hist.counts()
    wanted = set(candidates)
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for seed, weight in seeds.items():
        n_seed = single.get(seed, 0.0)
        if n_seed <= 0 or weight <= 0:
            continue
        for other, support in pair.get(seed, {}).items():
            if other not in wanted or other == seed or support < min_support:
                continue
            conf = support / (n_seed + 1.0)  # +1: one co-change of a rarely changed file is weak
            scores[other] += weight * conf
            why[other].append((weight * conf, seed))
    return {p: (s, [seed for _, seed in sorted(why[p], key=lambda x: (-x[0], x[1]))])
            for p, s in scores.items()}


def similar_commit_scores(hist: History, weights: Mapping[str, float], candidates: Iterable[str],
                          *, top: int = 20) -> dict[str, tuple[float, list[str]]]:
    """Files changed by the past commits whose messages are most like the requirement.

    Each commit message is scored with BM25 against the query terms; the
    ``top`` commits lend their files ``score / sqrt(files changed)``, so a
    commit that touched one file says more about it than a sweeping one.
    """
    if not hist.message_tokens or not weights:
        return {}
    docs, avgdl, postings = hist.messages()
    n = len(docs)
    terms = set(weights)
    df = {t: len(postings.get(t, ())) for t in terms}
    scored: list[tuple[float, int]] = []
    for i in sorted({i for t in terms for i in postings.get(t, ())}):
        if not 0 < len(hist.transactions[i]) <= MAX_TX_FILES:
            continue
        tf = Counter(t for t in docs[i] if t in terms)
        s = 0.0
        for t, c in tf.items():
            s += weights[t] * bm25.term_score(c, bm25.norm(len(docs[i]), avgdl),
                                              bm25.idf(n, df[t]))
        scored.append((s, i))
    scored.sort(key=lambda x: (-x[0], x[1]))
    wanted = set(candidates)
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for s, i in scored[:top]:
        tx = hist.transactions[i]
        share = s / math.sqrt(len(tx))
        label = f"{hist.shas[i][:10]} {hist.subjects[i]}" if hist.shas else str(i)
        for idx in tx:
            path = hist.files[idx]
            if path in wanted:
                scores[path] += share
                why[path].append((share, label))
    return {p: (v, [lab for _, lab in sorted(why[p], key=lambda x: (-x[0], x[1]))])
            for p, v in scores.items()}


def churn_scores(hist: History, candidates: Iterable[str]) -> dict[str, float]:
    """How often, recency-weighted, each candidate changed (the "hot files" prior)."""
    single, _ = hist.counts()
    return {p: single[p] for p in candidates if single.get(p, 0.0) > 0}


def recent_scores(hist: History, candidates: Iterable[str], *, commits: int = 10,
                  half_life: float = 3.0) -> dict[str, tuple[float, list[str]]]:
    """The work in progress: files of the last ``commits`` commits, the newest weighing most.

    A file that just changed is likely to change again (the "cache" of recently
    changed files in Kim et al., "Predicting faults from cached history"); a
    follow-up commit ("apply review suggestions", "fix layout") names little
    else.  Sweeping commits are left out as in co-change, and so is the first commit of
    a history read whole: it is the project's start, not work in progress.  Returns
    ``{path: (score, [short SHAs of the commits, newest first])}``.
    """
    wanted = set(candidates)
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    first = len(hist.transactions) - 1 if hist.changes < MAX_COMMITS else -1
    for j, tx in enumerate(hist.transactions[:commits]):
        if len(tx) > MAX_TX_FILES or j == first:
            continue
        weight = 0.5 ** (j / half_life)
        for idx in tx:
            path = hist.files[idx]
            if path in wanted:
                scores[path] += weight
                why[path].append(hist.shas[j][:10] if hist.shas else str(j))
    return {p: (v, why[p]) for p, v in scores.items()}


# -- stories ---------------------------------------------------------------

def story_records(conn: sqlite3.Connection) -> list[tuple[str, str, list[str]]]:
    """``(story_id, text, paths)`` from the ledger; empty when its tables cannot be read."""
    from genesis_git.stories.tables import story_texts

    try:
        return [(str(s), str(t), [str(p) for p in paths]) for s, t, paths in story_texts(conn)]
    except sqlite3.Error:
        return []


def story_scores(stories: list[tuple[str, str, list[str]]], weights: Mapping[str, float],
                 candidates: Iterable[str], *, top: int = 5, threshold: float = 0.15
                 ) -> dict[str, tuple[float, list[str]]]:
    """Files touched by the stories most similar to the query terms.

    Similarity is the idf-weighted share of the query's weight that a story's
    text covers (0..1); only the ``top`` stories above ``threshold`` count.
    """
    if not stories or not weights:
        return {}
    token_sets = [set(tokenize(text)) for _, text, _ in stories]
    n = len(stories)
    df: Counter[str] = Counter()
    for toks in token_sets:
        df.update(t for t in weights if t in toks)
    total = sum(w * math.log(1.0 + (n + 1) / (df[t] + 0.5)) for t, w in weights.items())
    if total <= 0:
        return {}
    sims: list[tuple[float, str, list[str]]] = []
    for (sid, _text, paths), toks in zip(stories, token_sets, strict=True):
        covered = sum(w * math.log(1.0 + (n + 1) / (df[t] + 0.5))
                      for t, w in weights.items() if t in toks)
        sim = covered / total
        if sim >= threshold:
            sims.append((sim, sid, paths))
    sims.sort(key=lambda x: (-x[0], x[1]))
    wanted = set(candidates)
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    for sim, sid, paths in sims[:top]:
        for p in sorted(set(paths)):
            if p in wanted:
                scores[p] += sim
                why[p].append(sid)
    return {p: (s, why[p]) for p, s in scores.items()}
