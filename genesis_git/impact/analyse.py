"""The first station of impact: what a requirement asks for, read once.

:func:`analyze` turns a requirement into weighted query terms (the project's
tokenizer plus the synonym table, so 订单表 also looks for ``order`` and
``table``; the words of a title line, and of a line that says what failed,
count twice), the identifiers it names (``discount_code``,
``OrderService.create``), file names it mentions, and the kind of change
(add, delete or modify).  :func:`analyse_requirement` does the same and
refuses a requirement with nothing to search for.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field

from genesis_git.impact.issue import IssueText, error_lines, read_issue, term_counts
from genesis_git.kernel.errors import UsageError
from genesis_git.text.querybounds import MAX_QUERY_TERMS, bound_notes, bound_query, weightiest
from genesis_git.text.quoting import quoted
from genesis_git.text.tokens import (
    LINK,
    QueryTerm,
    SynonymTable,
    analyze_query_counted,
    default_synonyms,
    tokenize,
    without_chrome,
)

# -- cleaning ----------------------------------------------------------------

_TRAILER = re.compile(
    r"^\s*(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|"
    r"suggested-by|helped-by|cc|change-id|dependabot-\w+)\s*:.*$", re.IGNORECASE | re.MULTILINE)
_ISSUE_REF = re.compile(r"(?<![\w/])(?:gh-|#)\d+\b", re.IGNORECASE)


def clean_requirement(text: str) -> str:
    """The requirement without URLs, e-mail addresses, commit trailers and ``#123`` references.

    They name where a requirement was filed, not what it changes, and their
    words (``github``, ``pull``, a person's name) only add noise.
    """
    text = unicodedata.normalize("NFKC", text)
    text = LINK.sub(" ", text)
    text = _TRAILER.sub(" ", text)
    return _ISSUE_REF.sub(" ", text)


# -- query analysis -------------------------------------------------------------

_WORD_RUN = re.compile(r"[A-Za-z0-9_\-]+")
# plain words apart by spaces, not the parts of an identifier (knowledge_base, pre-commit)
_PHRASE = re.compile(r"(?<![\w-])[A-Za-z]+(?: +[A-Za-z]+)+(?![\w-])")
# a directory written as one: /requirements, docs/, src/shop/ (a file name is a file hint)
_DIR_HINT = re.compile(r"(?<![\w/.:~-])(/?(?:[A-Za-z_][\w.-]*/)*[A-Za-z_][\w-]*/?)(?![\w/.])")
COMPOUND_WORDS = 200  # the words of a long text whose neighbours are joined
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_FILE_HINT = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
_ADD = re.compile(r"新增|增加|添加|加入|加上|\b(?:add|adds|added|adding|new|introduce|introduces|"
                  r"introduced|support)\b", re.IGNORECASE)
_DELETE = re.compile(r"删除|移除|去掉|去除|废弃|\b(?:remove|removes|removed|delete|deletes|deleted|"
                     r"drop|drops|dropped|deprecate|deprecated)\b", re.IGNORECASE)
_TABLE_WORD = re.compile(r"表|\btables?\b", re.IGNORECASE)
_FIELD_WORD = re.compile(r"字段|列|属性|\b(?:fields?|columns?|attributes?|properties)\b",
                         re.IGNORECASE)
# "add a tags column", "a new field named tags", "column `tags`": the name of a field
_FIELD_NAME = (
    re.compile(r"\b(?:an?|the|new|one)\s+[`'\"]?([A-Za-z_]\w*)[`'\"]?\s+"
               r"(?:column|field|attribute)\b", re.IGNORECASE),
    re.compile(r"\b(?:column|field|attribute)\s+(?:named\s+|called\s+)?[`'\"]([A-Za-z_]\w*)[`'\"]|"
               r"\b(?:column|field|attribute)\s+(?:named|called)\s+([A-Za-z_]\w*)",
               re.IGNORECASE))
_NOT_A_FIELD = frozenset({"new", "one", "same", "other", "table", "database", "extra", "more",
                          "text", "string", "integer", "boolean", "date", "json", "optional"})
_CODE_EXT = {"py", "js", "ts", "tsx", "jsx", "go", "rs", "java", "kt", "rb", "php", "cs", "c", "h",
             "cpp", "hpp", "sql", "md", "rst", "txt", "toml", "yaml", "yml", "json", "html", "css",
             "vue", "sh", "cfg", "ini", "lock", "mjs", "cjs", "scss", "proto", "graphql", "ipynb"}


def _synonym_terms(terms: list[QueryTerm]) -> set[str]:
    """Tokens that also reach the query as the synonym of a term (订单 -> order)."""
    return {t.term for t in terms if t.origin.startswith("synonym:")}


def _is_identifier(word: str) -> bool:
    """``discount_code``, ``OrderService``, ``order.create``, ``HTTPError``: not plain words."""
    if "." in word:
        return all(part for part in word.split("."))
    if "_" in word.strip("_"):
        return True
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]", word))


# Words that say what kind of change is asked for, not where: they weigh less.
ACTION_WORDS = frozenset("""
fix fixe fixed fixing add added adding update updated updating remove removed removing delete
deleted change changed changing improve improved use used make allow allowed support refactor
refactored bump bumped rename renamed move moved new apply applied handle correct correctly
ensure instead now also when should don doesn more better issue resolve resolved
修复 修改 新增 增加 添加 更新 删除 优化 支持 调整 完善 问题
""".split())
ACTION_WEIGHT = 1.0
TITLE_WEIGHT = 2.0  # a term of the first line of a text of several lines (BM25F's title field)
ERROR_WEIGHT = 2.0  # a term of a line that says what failed (``KeyError: 'sku'``), as a title


@dataclass
class QueryInfo:
    """A requirement, analysed."""

    requirement: str
    terms: list[QueryTerm]
    weights: dict[str, float]
    identifiers: list[str] = field(default_factory=list)  # as written: discount_code, Order.create
    ident_tokens: dict[str, str] = field(default_factory=dict)  # whole-identifier token -> as written
    file_hints: list[str] = field(default_factory=list)  # core.py, src/x/y.py, README.md
    dir_hints: list[str] = field(default_factory=list)  # requirements, src/shop (no slashes around)
    compounds: dict[str, float] = field(default_factory=dict)  # "read the docs" -> readthedoc
    intent: str = "modify"  # add | delete | modify
    mentions_table: bool = False
    mentions_field: bool = False
    part_tokens: set[str] = field(default_factory=set)  # only ever a part of a longer identifier
    notes: list[str] = field(default_factory=list)  # what the bounds of a long query left out
    issue: IssueText = field(default_factory=IssueText)  # tracebacks, module names, code

    def names(self, token: str) -> bool:
        """The query names ``token`` as a word of its own (not only inside ``OrderService``)."""
        return token in self.weights and token not in self.part_tokens

    @property
    def empty(self) -> bool:
        return not self.weights


def _terms_of(terms: list[QueryTerm], words: set[str]) -> set[str]:
    """The query terms of ``words`` (a line's tokens) and the synonyms they brought."""
    return {t.term for t in terms
            if t.term in words or (":" in t.origin and t.origin.split(":", 1)[1] in words)}


def analyze(requirement: str, synonyms: SynonymTable | None = None) -> QueryInfo:
    """Weighted query terms, identifiers, file names and intent of a requirement."""
    table = synonyms if synonyms is not None else default_synonyms()
    bounded, left_out = bound_query(requirement)
    text = clean_requirement(bounded)
    hints: list[str] = []
    for m in _FILE_HINT.finditer(text):
        cand = m.group(1)
        ext = cand.rsplit(".", 1)[-1].lower()
        if ext in _CODE_EXT and cand not in hints and len(hints) < MAX_QUERY_TERMS:
            hints.append(cand)
    # a named file counts with the words of its path, not with its extension
    plain = _FILE_HINT.sub(lambda m: " " + m.group(1).rsplit(".", 1)[0].replace("/", " ") + " "
                           if m.group(1) in hints else m.group(0), without_chrome(text))
    terms, n_terms = analyze_query_counted(plain, table, MAX_QUERY_TERMS, lexicon=True)
    counts = term_counts(plain)
    weights: dict[str, float] = {}
    for t in terms:
        tf = counts.get(t.term, 0)
        boost = 1.0 + 0.5 * math.log(tf) if tf > 1 else 1.0
        if t.term in ACTION_WORDS:
            boost *= ACTION_WEIGHT
        weights[t.term] = round(t.weight * boost, 6)
    lines = [line for line in plain.splitlines() if line.strip()]
    field_weight: dict[str, float] = {}  # a title's terms and an error line's: as BM25F fields
    if len(lines) > 1:  # a title (an issue's, a commit's subject) and a body: the title counts more
        for term in _terms_of(terms, set(tokenize(lines[0]))):
            field_weight[term] = TITLE_WEIGHT
    failed = {tok for line in error_lines(plain) for tok in tokenize(line)}
    for term in _terms_of(terms, failed):
        field_weight[term] = max(field_weight.get(term, 1.0), ERROR_WEIGHT)
    for term, factor in field_weight.items():
        weights[term] = round(weights[term] * factor, 6)
    if n_terms > MAX_QUERY_TERMS:  # and the synonyms of the words kept
        keep = weightiest(weights)
        weights = {t: w for t, w in weights.items() if t in keep}
        terms = [t for t in terms if t.term in keep]
    idents: dict[str, None] = {}
    ident_tokens: dict[str, str] = {}
    for m in _IDENT.finditer(plain):
        word = m.group(0)
        if word not in idents and _is_identifier(word):
            parts_of = [(toks[0], part) for part in word.split(".") if (toks := tokenize(part))]
            if n_terms > MAX_QUERY_TERMS and not any(tok in weights for tok, _ in parts_of):
                continue  # a term left out by the bound
            idents[word] = None
            for tok, part in parts_of:
                ident_tokens.setdefault(tok, part)
    for m in (m for pattern in _FIELD_NAME for m in pattern.finditer(plain)):
        word = next(g for g in m.groups() if g)
        toks = tokenize(word)
        if toks and word.lower() not in _NOT_A_FIELD and toks[0] in weights:
            idents.setdefault(word, None)
            ident_tokens.setdefault(toks[0], word)
    wholes: set[str] = set()
    parts: set[str] = set()
    for m in _WORD_RUN.finditer(plain):
        toks = tokenize(m.group(0))
        if toks:
            wholes.add(toks[0])
            parts.update(toks[1:])
    intent = "modify"
    if _DELETE.search(text):
        intent = "delete"
    if _ADD.search(text):
        intent = "add"
    return QueryInfo(
        requirement=requirement, terms=terms, weights=weights, identifiers=list(idents),
        ident_tokens=ident_tokens, file_hints=hints, dir_hints=dir_hints(text),
        compounds=compounds(plain, weights), intent=intent,
        mentions_table=bool(_TABLE_WORD.search(text)),
        mentions_field=bool(_FIELD_WORD.search(text)),
        part_tokens=(parts - wholes - _synonym_terms(terms)) & weights.keys(),
        notes=bound_notes(len(requirement), left_out, n_terms, len(weights)),
        issue=read_issue(text))


def dir_hints(text: str) -> list[str]:
    """Directories the text writes as paths: ``/requirements``, ``docs/``, ``src/shop/``
    (whether the tree has them is the ranking's to say: ``and/or`` names none)."""
    out: dict[str, None] = {}
    for m in _DIR_HINT.finditer(text):
        word = m.group(1)
        if "/" in word and (name := word.strip("/")) and len(out) < MAX_QUERY_TERMS:
            out.setdefault(name, None)
    return list(out)


def compounds(text: str, weights: dict[str, float]) -> dict[str, float]:
    """Two or three neighbouring words written together, as a name would be ("read the
    docs" -> ``readthedoc``, "progress bar" -> ``progressbar``), with the smaller weight of
    their words; only what the words are not already.  Which of them the tree has as a
    name is the ranking's to say."""
    out: dict[str, float] = {}
    budget = COMPOUND_WORDS
    for m in _PHRASE.finditer(text):
        words = m.group(0).lower().split()[:budget]
        budget -= len(words)
        for n in (2, 3):
            for i in range(len(words) - n + 1):
                toks = tokenize("".join(words[i:i + n]))
                if len(toks) != 1 or len(toks[0]) < 6 or toks[0] in weights:
                    continue
                parts = [weights.get(t, 1.0) for w in words[i:i + n] for t in tokenize(w)]
                out[toks[0]] = max(out.get(toks[0], 0.0), min(parts, default=1.0))
        if budget <= 0:
            break
    return out


def analyse_requirement(requirement: str, synonyms: SynonymTable | None = None) -> QueryInfo:
    """The analysed requirement; :class:`UsageError` when it is empty or only stopwords."""
    if not requirement.strip():
        raise UsageError("the requirement is empty",
                         hint='e.g. genesis impact "订单表新增字段 discount_code"')
    q = analyze(requirement, synonyms)
    if q.empty:
        raise UsageError(f"the requirement {quoted(requirement)} has no searchable terms "
                         "(only stopwords or punctuation)")
    return q
