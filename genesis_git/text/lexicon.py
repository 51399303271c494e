"""Chinese words to the English words code is written in: ``进度条 宽度`` → ``progress bar width``.

A Chinese query on an English code base shares no token with it: the code says
``ProgressBar`` and ``width``, the query 进度条 and 宽度.  The lexicon bridges the
two.  It is a glossary of programming vocabulary (the command line, files and
text, errors, tests, data, and the mathematics of a computer algebra system),
kept in ``lexicon_zh_en.tsv`` beside this module (see ``LEXICON.md`` for where
it comes from and its licence), plus the Chinese members of the default synonym
groups of :mod:`genesis_git.text.tokens`, so that 订单 still brings ``order``.

Terms are found by forward maximum matching inside each run of CJK characters:
at each position the longest term of the lexicon that starts there is taken,
so 进度条 is read as one term (``progress bar``) and not as 进度 and 条.  The
English side is tokenized like any text (:func:`genesis_git.text.tokens.tokenize`),
so its words are the tokens of identifiers (``progressbar``, ``progress``,
``bar``).

The file is read on first use only and kept for the life of the process.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from genesis_git.text.tokens import DEFAULT_SYNONYMS, is_cjk, tokenize, unique

LEXICON_FILE = Path(__file__).with_name("lexicon_zh_en.tsv")
MAX_SENSES = 3  # senses of one term that a query uses
MAX_TERMS_PER_ENTRY = 5  # English tokens one Chinese term brings at most

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


@dataclass(frozen=True)
class Sense:
    """One English rendering of a Chinese term, as tokens (``progress bar`` → progress, bar)."""

    tokens: tuple[str, ...]


@dataclass(frozen=True)
class Lexicon:
    """Chinese term → its English senses, best first."""

    entries: dict[str, tuple[Sense, ...]]
    longest: int

    def __len__(self) -> int:
        return len(self.entries)

    def senses(self, term: str) -> tuple[Sense, ...]:
        return self.entries.get(unicodedata.normalize("NFKC", term), ())

    def matches(self, text: str) -> list[tuple[str, tuple[Sense, ...]]]:
        """The lexicon's terms in ``text``, in order, by forward maximum matching (each once)."""
        found: dict[str, tuple[Sense, ...]] = {}
        for run in _CJK_RUN.findall(unicodedata.normalize("NFKC", text)):
            i = 0
            while i < len(run):
                for size in range(min(self.longest, len(run) - i), 0, -1):
                    piece = run[i:i + size]
                    senses = self.entries.get(piece)
                    if senses is not None:
                        found.setdefault(piece, senses)
                        i += size
                        break
                else:
                    i += 1
        return list(found.items())


def parse(lines: list[str]) -> dict[str, list[Sense]]:
    """``中文<TAB>english words, other sense`` lines (``#`` starts a comment) → senses."""
    entries: dict[str, list[Sense]] = {}
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        zh, sep, en = line.partition("\t")
        zh = unicodedata.normalize("NFKC", zh.strip())
        if not sep or not zh or not all(is_cjk(ch) for ch in zh):
            continue
        bucket = entries.setdefault(zh, [])
        for sense in en.split(","):
            toks = tuple(unique(tokenize(sense)))
            if toks and Sense(toks) not in bucket:
                bucket.append(Sense(toks))
    return entries


def _synonym_entries() -> dict[str, list[Sense]]:
    """The Chinese members of the default synonym groups, each meaning the group's English."""
    out: dict[str, list[Sense]] = {}
    for group in DEFAULT_SYNONYMS:
        english = [m for m in group if not any(is_cjk(ch) for ch in m)]
        for member in group:
            if member and all(is_cjk(ch) for ch in member):
                for word in english:
                    toks = tuple(unique(tokenize(word)))
                    if toks:
                        out.setdefault(member, []).append(Sense(toks))
    return out


_LEXICON: Lexicon | None = None


def load(path: Path = LEXICON_FILE) -> Lexicon:
    """The glossary at ``path`` merged with the default synonyms (a missing file: synonyms only)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    entries = parse(lines)
    for zh, senses in _synonym_entries().items():
        bucket = entries.setdefault(zh, [])
        bucket.extend(s for s in senses if s not in bucket)
    frozen = {zh: tuple(senses) for zh, senses in entries.items() if senses}
    return Lexicon(frozen, max((len(k) for k in frozen), default=1))


def lexicon() -> Lexicon:
    """The shipped lexicon, read once."""
    global _LEXICON
    if _LEXICON is None:
        _LEXICON = load()
    return _LEXICON


def expansions(text: str) -> list[tuple[str, list[str]]]:
    """Each Chinese term of ``text`` that the lexicon knows, with its English tokens (best first,
    at most :data:`MAX_SENSES` senses and :data:`MAX_TERMS_PER_ENTRY` tokens)."""
    if text.isascii():
        return []
    out: list[tuple[str, list[str]]] = []
    for term, senses in lexicon().matches(text):
        toks = unique(t for s in senses[:MAX_SENSES] for t in s.tokens)
        out.append((term, toks[:MAX_TERMS_PER_ENTRY]))
    return out


def english_terms(text: str) -> list[str]:
    """The English tokens that the Chinese words of ``text`` stand for, in order, each once.

    ``english_terms("进度条 宽度")`` is ``["progress", "bar", "progressbar", "width"]``;
    English words already in ``text`` are not repeated; ASCII text gives ``[]``.
    """
    own = set(tokenize(text)) if not text.isascii() else set()
    return [t for t in unique(t for _, toks in expansions(text) for t in toks) if t not in own]
