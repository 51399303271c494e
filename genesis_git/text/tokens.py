"""One tokenizer for all of genesis: code search, impact investigation, the design library.

Rules, applied in order (the design library's ``query.mjs`` reimplements them
exactly, so change both together):

1. NFKC-normalise the text (full-width letters and digits become ASCII).
2. Split it into *word* runs ``[A-Za-z0-9_-]+`` and *CJK* runs (Han, kana,
   hangul); everything else separates.
3. A word run yields its whole identifier (lower-cased, ``_`` and ``-``
   removed) and, when it has more than one part, its parts split on
   snake_case, kebab-case and camelCase: ``OrderController`` gives
   ``ordercontroller``, ``order``, ``controller``.
4. A CJK run is cut at single-character stopwords (的, 了, 和, …); each piece
   gives its character bigrams, and a piece of one character stays a token:
   订单表 gives 订单, 单表.
5. Tokens are lower-case; a light plural fold maps ``orders`` to ``order``
   and ``categories`` to ``category`` (not ``-ss``, ``-us``, ``-is``).
6. Stopwords and single ASCII letters are dropped.

Synonyms are applied to queries only (:func:`analyze_query`), so that the
user's synonym table never changes the cache.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter

from genesis_git.text.querybounds import term_priority, weightiest

TOKENIZER_VERSION = "t1"

_RUN = re.compile(
    r"[A-Za-z0-9_\-]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+")

STOPWORDS_EN = frozenset("""
a an the and or of to in on for is are was were be been being with as at by it its this that
these those from into than then there their if else not no but so such can could should would
will shall may might must do does did done has have had we you they he she i me my our your
""".split())

# Single characters that cut a CJK run, and bigrams that are dropped.
STOPCHARS_ZH = frozenset("的了和是在与及或也就都把被给吗呢吧啊并而之其")
STOPWORDS_ZH = frozenset("一个 我们 你们 他们 这个 那个 这些 那些 以及 并且 或者 如果 因为 所以 但是 可以 进行".split())

STOPWORDS = STOPWORDS_EN | STOPWORDS_ZH

# Default synonym groups: every member stands for every other one.
DEFAULT_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("表", "table"),
    ("字段", "field", "column", "列"),
    ("订单", "order"),
    ("用户", "user"),
    ("登录", "login", "auth", "signin", "认证"),
    ("接口", "api", "endpoint"),
    ("间距", "留白", "margin", "padding", "gap", "spacing"),
    ("圆角", "radius", "corner"),
    ("字号", "font", "type", "行高", "typography"),
    ("配色", "主色", "强调色", "背景色", "color", "palette"),
    ("动效", "时长", "easing", "motion", "animation", "duration"),
    ("深色", "dark"),
    ("卡片", "card"),
    ("按钮", "button"),
    ("对比度", "contrast"),
    ("新增", "add"),
    ("删除", "delete", "remove"),
    ("修改", "update", "modify"),
    ("数据库", "database", "db"),
    ("迁移", "migration"),
    ("模型", "model"),
    ("页面", "page", "view"),
    ("模板", "template"),
    ("折扣", "discount"),
    ("优惠", "coupon"),
    ("支付", "payment", "pay"),
    ("商品", "product"),
    ("查询", "query", "search"),
    ("服务", "service"),
    ("控制器", "controller"),
    ("路由", "route", "router"),
    ("测试", "test"),
    ("需求", "requirement"),
    ("文档", "doc", "document"),
    ("配置", "config", "configuration"),
    ("日志", "log", "logging"),
    ("空态", "empty"),
    ("焦点", "focus"),
)


def _fold(tok: str) -> str:
    if tok[-1:] != "s":
        return tok
    if len(tok) > 4 and tok.endswith("ies") and tok.isalpha():
        return tok[:-3] + "y"
    if (len(tok) > 3 and tok.endswith("s") and tok.isalpha()
            and not tok.endswith(("ss", "us", "is"))):
        return tok[:-1]
    return tok


def _keep(tok: str) -> bool:
    if tok in STOPWORDS:
        return False
    return not (len(tok) == 1 and tok.isascii() and tok.isalpha())


def _word_tokens(run: str, out: list[str]) -> None:
    if run.isalnum() and (run.islower() or run.isdigit() or (run.isupper() and run.isalpha())
                          or (run[0].isupper() and run[1:].islower())):
        # one part only (``order``, ``HTTP``, ``Order``): the whole word is the token
        whole = _fold(run.lower())
        if _keep(whole):
            out.append(whole)
        return
    # ``_CAMEL`` matches no ``_`` or ``-``, so one pass over the run splits both ways
    pieces = _CAMEL.findall(run)
    whole = _fold(run.replace("_", "").replace("-", "").lower())
    if whole and _keep(whole):
        out.append(whole)
    if len(pieces) > 1:
        for piece in pieces:
            tok = _PIECES.get(piece)
            if tok is None:
                tok = _fold(piece.lower())
                if not _keep(tok):
                    tok = ""
                if len(_PIECES) < 100_000:
                    _PIECES[piece] = tok
            if tok and tok != whole:
                out.append(tok)


_PIECES: dict[str, str] = {}  # a part of an identifier, as written -> its token ("" if dropped)


def _cjk_tokens(run: str, out: list[str]) -> None:
    piece = ""
    for ch in run + "\0":
        if ch in STOPCHARS_ZH or ch == "\0":
            if len(piece) == 1:
                out.append(piece)
            else:
                for i in range(len(piece) - 1):
                    bigram = piece[i:i + 2]
                    if bigram not in STOPWORDS_ZH:
                        out.append(bigram)
            piece = ""
        else:
            piece += ch


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF)


class Vocabulary(dict[str, int]):
    """Token -> a small integer id, handed out in order of first sight (per process).

    :func:`index_terms` gives token ids, so that an embedder can map them to
    vector slots by array indexing instead of one dictionary lookup per token.
    ``generation`` changes when :meth:`reset_if_full` clears it to bound its
    size; call that only between batches, never while ids are held.
    """

    MAX = 2_000_000

    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[str] = []
        self.generation = 0

    def __missing__(self, token: str) -> int:
        ident = len(self.tokens)
        self[token] = ident
        self.tokens.append(token)
        return ident

    def reset_if_full(self) -> None:
        if len(self.tokens) > self.MAX:
            self.clear()
            self.tokens.clear()
            _RUNS.clear()  # its entries hold ids
            self.generation += 1


VOCABULARY = Vocabulary()

# One entry per word or CJK run: (tokens, tokens joined by spaces, their vocabulary ids).
_Run = tuple[tuple[str, ...], str, tuple[int, ...]]
_TOKENS, _JOINED, _IDS = itemgetter(0), itemgetter(1), itemgetter(2)


class _RunTable(dict[str, _Run]):
    """Every run seen so far; a miss computes its entry (the table is bounded in size)."""

    MAX = 400_000

    def __missing__(self, run: str) -> _Run:
        toks: list[str] = []
        if run[0] < "\x80":  # a word run is ASCII; every other run is CJK
            _word_tokens(run, toks)
        else:
            _cjk_tokens(run, toks)
        value = (tuple(toks), " ".join(toks), tuple(map(VOCABULARY.__getitem__, toks)))
        if len(self) < self.MAX:
            self[run] = value
        return value


_RUNS = _RunTable()
# ASCII text is cut into word runs by one ``str.translate``: every character
# outside ``[A-Za-z0-9_-]`` becomes a space, then ``split`` gives the runs
# that ``_RUN`` would find.
_ASCII_SEPARATORS = {i: " " for i in range(128)
                     if not (chr(i).isalnum() or chr(i) in "_-")}


def _runs(text: str) -> list[_Run]:
    if text.isascii():
        words = text.translate(_ASCII_SEPARATORS).split()
    else:
        words = _RUN.findall(unicodedata.normalize("NFKC", text))
    return list(map(_RUNS.__getitem__, words))


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` in order, duplicates kept (for term frequencies)."""
    return list(chain.from_iterable(map(_TOKENS, _runs(text))))


def first_token(text: str) -> str | None:
    """``tokenize(text)[0]`` (``None`` when there is none), without tokenizing all of ``text``
    when its first word gives its whole identifier, as a name almost always does."""
    if text.isascii():
        words = text.translate(_ASCII_SEPARATORS).split(maxsplit=1)
        if words:
            whole = _fold(words[0].replace("_", "").replace("-", "").lower())
            if whole and _keep(whole):
                return whole
    toks = tokenize(text)
    return toks[0] if toks else None


def index_terms(text: str) -> tuple[str, list[int]]:
    """``" ".join(tokenize(text))`` and the :data:`VOCABULARY` ids of the same tokens.

    The indexer's one pass over a chunk: the joined tokens are stored for
    BM25, the ids go to the embedder.
    """
    runs = _runs(text)
    return (" ".join(filter(None, map(_JOINED, runs))),
            list(chain.from_iterable(map(_IDS, runs))))


def unique(tokens: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for t in tokens:
        seen.setdefault(t, None)
    return list(seen)


# Words inside a URL or an e-mail address name where something was filed or who
# wrote it, not what it is about: search counts them less, impact drops them.  An
# e-mail address is matched only from the start of a word, so that a long run of
# letters without an ``@`` costs one pass, not one pass per letter.
LINK = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+|"
                  r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)

# What every Python traceback says whatever failed: its header, the lines between chained
# exceptions, the words of a frame line around the file and the function (IPython's
# ``Cell In[3], line 1`` too), and the names of code that is in no file.  Search and
# impact leave them out of a pasted traceback's words.
TRACEBACK_CHROME = re.compile(
    r"Traceback \(most recent call last\):?"
    r"|During handling of the above exception, another exception occurred:?"
    r"|The above exception was the direct cause of the following exception:?"
    r"|\bFile (?=\"[^\"\n]+\", line \d+)|(?<=\"), line \d+(?:, in\b)?"
    r"|\bCell In ?\[\d*\], line \d+"
    r"|<(?:stdin|string|module|listcomp|dictcomp|setcomp|genexpr|lambda|ipython-input-[\w-]+)>")


def without_chrome(text: str) -> str:
    """``text`` without the words every Python traceback has (``Traceback (most recent
    call last)``, ``File "…", line 12, in``, ``<module>``): they name no code of the
    project, but as words they would count (``call``, ``line``, ``module``).  The file
    and the function of each frame stay.  A text of nothing else is kept as it is: it
    looks for those words themselves."""
    plain = TRACEBACK_CHROME.sub(" ", text)
    return plain if plain == text or tokenize(plain) else text


def synonym_groups(extra: Mapping[str, object] | None = None,
                   groups: Iterable[Sequence[str]] = DEFAULT_SYNONYMS) -> list[list[str]]:
    """``groups`` plus ``extra`` (``text.synonyms`` of the config: a term and one synonym or a
    list of them), NFKC-normalised and lower-cased."""
    merged: list[list[str]] = [list(g) for g in groups]
    for key, values in (extra or {}).items():
        more = values if isinstance(values, (list, tuple)) else [values]
        merged.append([str(key), *[str(v) for v in more]])
    return [[unicodedata.normalize("NFKC", m).lower() for m in g] for g in merged]


class SynonymTable:
    """Bidirectional synonym groups; a user table from config extends the defaults."""

    def __init__(self, groups: Iterable[Sequence[str]] = DEFAULT_SYNONYMS,
                 extra: Mapping[str, object] | None = None):
        self._by_term: dict[str, list[str]] = {}
        self._cjk_terms: list[str] = []
        for members in synonym_groups(extra, groups):
            for m in members:
                bucket = self._by_term.setdefault(m, [])
                for other in members:
                    if other != m and other not in bucket:
                        bucket.append(other)
                if m and is_cjk(m[0]) and m not in self._cjk_terms:
                    self._cjk_terms.append(m)
        # longest first, so that 强调色 is found before 色-like short keys
        self._cjk_terms.sort(key=lambda s: (-len(s), s))

    def lookup(self, term: str) -> list[str]:
        return list(self._by_term.get(term, ()))

    def cjk_terms_in(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text)
        return [t for t in self._cjk_terms if t in text]


@dataclass(frozen=True)
class QueryTerm:
    """One term of an analysed query.  ``origin`` is ``query`` or ``synonym:<source>``."""

    term: str
    weight: float
    origin: str


SYNONYM_WEIGHT = 0.5
LEXICON_WEIGHT = 0.5  # an English word that a Chinese word of the query stands for
MAX_LEXICON_TERMS = 32  # English words the lexicon adds to one query at most


def analyze_query(text: str, synonyms: SynonymTable | None = None,
                  max_terms: int | None = None) -> list[QueryTerm]:
    """Unique query terms, then the synonyms they bring (weight 0.5), in a stable order.

    With ``max_terms``, a text of more distinct words than that keeps only the
    ``max_terms`` weightiest of them (:func:`weightiest`: the most repeated,
    then the first) before synonyms are looked up.
    """
    return analyze_query_counted(text, synonyms, max_terms)[0]


def analyze_query_counted(text: str, synonyms: SynonymTable | None = None,
                          max_terms: int | None = None, *, lexicon: bool = False
                          ) -> tuple[list[QueryTerm], int]:
    """:func:`analyze_query`, and the number of distinct words of ``text``.

    With ``lexicon``, the Chinese words of ``text`` also bring the English words they
    stand for (:func:`genesis_git.text.lexicon.expansions`, weight :data:`LEXICON_WEIGHT`,
    origin ``lexicon:<word>``), at most :data:`MAX_LEXICON_TERMS` of them.
    """
    table = synonyms if synonyms is not None else default_synonyms()
    terms: dict[str, QueryTerm] = {}
    tokens = tokenize(text)
    base = unique(tokens)
    distinct = len(base)
    if max_terms is not None and distinct > max_terms:
        counts = Counter(tokens)
        keep = weightiest({t: term_priority(1.0, counts[t]) for t in base}, max_terms)
        base = [t for t in base if t in keep]
    for tok in base:
        terms[tok] = QueryTerm(tok, 1.0, "query")
    sources: list[str] = list(base)
    for cjk in table.cjk_terms_in(text):
        if cjk not in terms and cjk not in sources:
            sources.append(cjk)
    for src in sources:
        for syn in table.lookup(src):
            for tok in unique(tokenize(syn)):
                if tok not in terms:
                    terms[tok] = QueryTerm(tok, SYNONYM_WEIGHT, f"synonym:{src}")
    if lexicon and not text.isascii():
        from genesis_git.text.lexicon import expansions

        added = 0
        for src, toks in expansions(text):
            for tok in toks:
                if tok not in terms and added < MAX_LEXICON_TERMS:
                    terms[tok] = QueryTerm(tok, LEXICON_WEIGHT, f"lexicon:{src}")
                    added += 1
    return list(terms.values()), distinct


_DEFAULT_TABLE: SynonymTable | None = None
_TABLES: dict[str, SynonymTable] = {}


def default_synonyms() -> SynonymTable:
    global _DEFAULT_TABLE
    if _DEFAULT_TABLE is None:
        _DEFAULT_TABLE = SynonymTable()
    return _DEFAULT_TABLE


def synonym_table(extra: Mapping[str, object] | None) -> SynonymTable:
    """The default table extended by ``extra`` (``text.synonyms``), built once per content."""
    if not extra:
        return default_synonyms()
    import json

    key = json.dumps(extra, sort_keys=True, ensure_ascii=False, default=str)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = SynonymTable(extra=extra)
    return table
