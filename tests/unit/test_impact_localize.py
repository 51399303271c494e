"""Impact on issue text: tracebacks, module names, symbol anchors, the source prior of a bug
report, the test->module bridge, import-graph feedback, confidence (impact.issue,
impact.anchors, impact.confidence).

Each ranking test runs the same corpus twice, with the signal and with it switched off
(``RankOptions.ablate``), so that it fails without the signal."""

from __future__ import annotations

from test_impact_graph import corpus_of

from genesis_git.impact.analyse import analyze
from genesis_git.impact.anchors import (
    MODULE_SHARE,
    anchor_tokens,
    file_kind,
    prior_factor,
    traceback_scores,
)
from genesis_git.impact.combine import RankOptions, rank
from genesis_git.impact.confidence import confidences, weak_evidence
from genesis_git.impact.issue import frame_paths, module_paths, read_issue

TRACE = '''Cart total crashes for an empty cart

```
Traceback (most recent call last):
  File "/home/me/app.py", line 4, in <module>
    print(cart.total())
  File "/home/me/.venv/lib/python3.11/site-packages/shop/core.py", line 9, in total
    return round_price(self.sum)
  File "C:\\\\venv\\\\Lib\\\\site-packages\\\\shop\\\\pricing.py", line 3, in round_price
    return amount / count
ZeroDivisionError: division by zero
```
'''


def test_a_traceback_names_files_lines_and_functions() -> None:
    issue = read_issue(TRACE)
    assert [(f.path.rsplit("/", 2)[-2:], f.line) for f in issue.frames] == [
        (["me", "app.py"], 4), (["shop", "core.py"], 9), (["shop", "pricing.py"], 3)]
    assert issue.functions == ["total", "round_price"]
    assert issue.bug_report and {"total", "roundprice"} <= issue.code_tokens
    paths = ["src/shop/core.py", "src/shop/pricing.py", "docs/pricing.py", "app.py",
             "tests/test_core.py"]
    found = frame_paths(issue.frames, paths)
    assert set(found) == {"src/shop/core.py", "src/shop/pricing.py", "app.py"}
    # from the error outwards: the k-th file of the tree weighs 1 / k
    assert found == {"src/shop/pricing.py": 1.0, "src/shop/core.py": 0.5, "app.py": 1 / 3}


DISPATCH = '''block_collapse(b * b * b) fails

```
Traceback (most recent call last):
  File "/venv/site-packages/shop/blocks.py", line 297, in collapse
    result = rule(expr)
  File "/venv/site-packages/shop/strategies.py", line 11, in exhaust
    new = rule(expr)
  File "/venv/site-packages/shop/strategies.py", line 44, in chain
    expr = rule(expr)
  File "/venv/site-packages/shop/blocks.py", line 91, in blockmul
    return self.cols
AttributeError: 'Zero' object has no attribute 'cols'
>>> b.blockmul(b)
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/venv/site-packages/shop/zero.py", line 5, in blockmul
    return self.cols
AttributeError: 'Zero' object has no attribute 'cols'
```
>>> type(b.blocks[0, 1])
<class 'shop.numbers.Zero'>
'''


def test_each_traceback_is_read_from_its_own_error_and_a_module_name_weighs_as_a_caller(
        ) -> None:
    issue = read_issue(DISPATCH)
    assert [f.trace for f in issue.frames] == [1, 1, 1, 1, 2, 2]
    paths = ["src/shop/blocks.py", "src/shop/strategies.py", "src/shop/zero.py",
             "src/shop/numbers.py"]
    # the dispatcher that calls back is the second file of its traceback, not the error's;
    # zero.py is the first file of the second traceback, though it comes last in the text
    assert frame_paths(issue.frames, paths) == {
        "src/shop/blocks.py": 1.0, "src/shop/strategies.py": 0.5, "src/shop/zero.py": 1.0}
    found = traceback_scores(analyze(DISPATCH), paths)
    assert MODULE_SHARE == 0.5  # a printed class's module (a name in it: 0.8 of that)
    assert found["src/shop/numbers.py"] == 0.5 * 0.8
    assert found["src/shop/zero.py"] == 1.0


CHROME = {
    "src/shop/pricing.py": "def round_price(amount, count):\n    return amount / count\n",
    "src/shop/dispatch.py": ("class Handler:\n    def __call__(self, line):\n"
                             "        return self.module(line)\n\n"
                             "    def module(self, line):\n        return line\n"),
}


def test_the_words_every_traceback_has_are_not_the_requirement() -> None:
    """``Traceback (most recent call last)``, ``File "…", line 4, in <module>``: no query
    term, code token or anchor comes of them, so a file that defines ``__call__`` and
    ``module`` is not what the report names; the frames are read as before."""
    q = analyze(TRACE)
    chrome = {"traceback", "recent", "call", "file", "line", "module", "stdin"}
    assert not chrome & set(q.weights)
    assert not chrome & q.issue.code_tokens
    assert [f.function for f in q.issue.frames] == ["<module>", "total", "round_price"]
    assert {"cart", "total", "roundprice", "division", "zero"} <= set(q.weights)
    chained = analyze("Saving fails\n\nCell In[3], line 1\n----> 1 cart.save()\n"
                      "KeyError: 'sku'\n\nDuring handling of the above exception, another "
                      "exception occurred:\n\nThe above exception was the direct cause of the "
                      "following exception:\nValueError: no price")
    assert set(chained.weights) & {"cell", "line", "handling", "above", "another", "occurred",
                                   "direct", "cause", "following"} == set()
    assert {"cart", "save", "sku", "price", "keyerror"} <= set(chained.weights)
    # a requirement of nothing else looks for those words themselves, as a search does
    assert {"traceback", "recent", "call"} <= set(analyze("Traceback (most recent call last)").weights)
    r = rank(corpus_of(CHROME), analyze(TRACE.replace("/home/me/app.py", "<stdin>")),
             RankOptions())
    assert r.files[0].path == "src/shop/pricing.py"
    assert all("definition" not in f.reasons for f in r.files[1:])


def test_dotted_names_and_imports_name_modules() -> None:
    issue = read_issue("`shop.pricing.round_price` is wrong\n\n>>> from shop.core import Cart\n"
                       "e.g. it breaks; see shop.util too")
    assert {"shop.pricing.round_price", "shop.core", "shop.core.Cart", "shop.util"} <= set(
        issue.modules)
    paths = {"src/shop/pricing.py", "src/shop/core.py", "src/shop/util/__init__.py", "shop.py"}
    assert module_paths(issue.modules, paths) == {
        "src/shop/pricing.py": 0.8, "src/shop/core.py": 1.0, "src/shop/util/__init__.py": 1.0}
    assert read_issue("plain words, no code here").bug_report is False


SHOP = {
    "src/shop/__init__.py": "",
    "src/shop/core.py": ("from shop.pricing import round_price\n\n\nclass Cart:\n"
                         "    def total(self):\n        return round_price(self.sum)\n"),
    "src/shop/pricing.py": "def round_price(amount, count=0):\n    return amount / count\n",
    "docs/usage.rst": ("Cart\n====\n\nThe cart total of an empty cart is zero. An empty cart "
                       "total never crashes. Cart total, cart total, empty cart.\n"),
    ".genesis.toml": "[impact]\n# cart total empty cart crashes\n",
}


def _top(files: dict[str, str], text: str, **kw: object) -> list[str]:
    return [f.path for f in rank(corpus_of(files), analyze(text), RankOptions(**kw)).files]  # type: ignore[arg-type]


def test_the_traceback_signal_ranks_the_frames_files_first() -> None:
    # two files are called pricing.py; the frame's folders say which one failed
    two = {"src/shop/pricing.py": SHOP["src/shop/pricing.py"],
           "src/shop_legacy/pricing.py": (
               "def round_price(amount, count):\n    # legacy amount / count rounding of a cart"
               " total:\n    # an empty cart total crashes no more\n"
               "    return amount / count if count else amount\n"),
           "docs/usage.rst": SHOP["docs/usage.rst"]}
    top = _top(two, TRACE)
    assert top[0] == "src/shop/pricing.py"
    plain = _top(two, TRACE, ablate=frozenset({"traceback"}))
    assert plain[0] == "src/shop_legacy/pricing.py"
    assert set(_top(SHOP, TRACE)[:2]) == {"src/shop/core.py", "src/shop/pricing.py"}


def test_genesis_settings_are_never_a_result() -> None:
    assert ".genesis.toml" not in _top(SHOP, "cart total empty cart crashes")
    assert "docs/usage.rst" in _top(SHOP, "cart total empty cart crashes")


BUG = "Empty cart total\n\n```\n>>> Cart().total()\n0.0\n```\nthe empty cart total is wrong"
DOCS = {
    "src/shop/cart.py": "class Cart:\n    def total(self):\n        return sum(self.items)\n",
    "docs/cart.md": "# Cart\n\nAn empty cart has a total of zero: the empty cart total is 0.\n",
    "tests/test_cart.py": ("def test_empty_cart_total():\n    assert Cart().total() == 0  "
                           "# empty cart total is zero\n"),
}


def test_a_bug_report_ranks_source_above_docs_and_tests() -> None:
    assert _top(DOCS, BUG)[0] == "src/shop/cart.py"
    assert _top(DOCS, BUG, ablate=frozenset({"prior"}))[0] != "src/shop/cart.py"
    # a commit message or a feature request is no bug report: docs and tests keep their rank
    plain = "document that the empty cart total is zero"
    assert _top(DOCS, plain) == _top(DOCS, plain, ablate=frozenset({"prior"}))
    q = analyze(BUG)
    assert prior_factor("docs/cart.md", q) < 1.0 and prior_factor("src/shop/cart.py", q) == 1.0
    assert prior_factor("docs/cart.md", analyze(BUG + "\nsee docs/cart.md")) == 1.0  # named
    assert [file_kind(p) for p in ("tests/test_cart.py", "src/x_test.go", "doc/usage/a.rst",
                                   ".github/ISSUE_TEMPLATE/bug.yml", "examples/pyproject.toml",
                                   "pyproject.toml", "src/shop/cart.py")] == [
        "test", "test", "doc", "doc", "doc", "config", "source"]


VERBS = {
    "poly/polytools.py": ("class Poly:\n    def add(self, other):\n        return self\n\n"
                          "    def degree(self):\n        return 1\n"),
    "poly/discr.py": ("def discriminant(f):\n    \"\"\"The discriminant of a polynomial.\"\"\"\n"
                      "    return f\n"),
    **{f"poly/ring{i}.py": f"class Ring{i}:\n    def add(self, other):\n        return other\n"
       for i in range(8)},
}


def test_a_common_verb_is_no_symbol_anchor_a_rare_word_is() -> None:
    q = analyze("add a method to compute the discriminant of a polynomial")
    corpus = corpus_of(VERBS)
    graph = corpus.graph(set(q.weights))
    assert anchor_tokens(q, graph, len(corpus.files)) == {"discriminant"}
    r = rank(corpus, q, RankOptions())
    assert r.files[0].path == "poly/discr.py"
    assert not any("definition" in f.reasons for f in r.files if "ring" in f.path)
    # written as code, the verb is a symbol again
    coded = analyze("`Poly.add()` drops the discriminant")
    assert "add" in anchor_tokens(coded, corpus.graph(set(coded.weights)), len(corpus.files))


BRIDGE = {
    "src/shop/pricing.py": "def round_price(amount):\n    return round(amount, 2)\n",
    "src/shop/money.py": "def as_money(amount):\n    \"\"\"Negative amounts round.\"\"\"\n",
    "tests/test_pricing.py": ("from shop.pricing import round_price\n\n\n"
                              "def test_negative_amounts_round_half_even():\n"
                              "    assert round_price(-2.675) == -2.68  # negative half even\n"),
}


def test_a_matching_test_leads_to_the_module_it_tests() -> None:
    text = "negative amounts round half even the wrong way"
    top = _top(BRIDGE, text)
    assert top.index("src/shop/pricing.py") < top.index("src/shop/money.py")
    plain = _top(BRIDGE, text, ablate=frozenset({"bridge"}))
    assert plain.index("src/shop/pricing.py") > plain.index("src/shop/money.py")


FEEDBACK = {
    "app/orders.py": ("from app.ledger import post_entry\n\n\ndef refund_order(order):\n"
                      "    \"\"\"Refund an order: the refund is posted.\"\"\"\n"
                      "    post_entry(order.refund)\n"),
    "app/ledger.py": "def post_entry(entry):\n    \"\"\"Post a refund entry.\"\"\"\n",
    "app/mailer.py": "def send(entry):\n    \"\"\"Mail about a refund entry, refund.\"\"\"\n",
}


def test_feedback_lifts_what_the_best_file_imports() -> None:
    text = "refund order twice\n\n```\n>>> refund_order(order)\n```"
    top = _top(FEEDBACK, text)
    assert top[0] == "app/orders.py"
    assert top.index("app/ledger.py") < top.index("app/mailer.py")
    plain = _top(FEEDBACK, text, ablate=frozenset({"feedback"}))
    assert plain.index("app/ledger.py") > plain.index("app/mailer.py")
    # a change description is no bug report: no feedback
    assert _top(FEEDBACK, "refund order twice") == _top(FEEDBACK, "refund order twice",
                                                         ablate=frozenset({"feedback"}))


def test_confidence_and_weak_evidence() -> None:
    strong = rank(corpus_of(SHOP), analyze(TRACE), RankOptions()).files
    conf = confidences(strong)
    assert conf[0] > 0.6 and conf == sorted(conf, reverse=True) and all(0 <= c <= 1 for c in conf)
    q = analyze("cart zebra quokka")
    weak = rank(corpus_of(SHOP), q, RankOptions())
    weak_conf = confidences(weak.files)
    assert weak_conf[0] < conf[0]
    assert weak_evidence(weak.files, weak_conf, weak.matched_terms, len(q.weights))
    assert not weak_evidence(strong, conf, ["cart", "total"], 2)
