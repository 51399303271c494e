"""One identifier as the whole query: definitions first, file after file, and ``--type CODE``
keeps code that is also an API surface (real repositories, the real session index)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, engine, group_by_file, search, textlines
from genesis_git.search.identifiers import identifier_of, word_of
from genesis_git.search.results import Hit

from helpers import genesis_cmd, git

_USES = {
    f"src/shop/use_{i}.py": (f"from shop.widgets import render_widget\n\n\n"
                             f"def page_{i}(data):\n    \"\"\"Page {i} of the shop.\"\"\"\n"
                             f"    return render_widget(data, title='page {i}')\n")
    for i in range(6)
}
_TEMPLATE = "\n\n".join(
    f"<section id=\"s{i}\">\n  {{{{ render_widget(item_{i}) }}}}\n  "
    f"{{{{ render_widget(item_{i}, compact=True) }}}}\n</section>" for i in range(60))
FILES = {
    "src/shop/widgets.py": (
        "\"\"\"Widgets of the shop: cards, lists and their layout.\"\"\"\n\n"
        "import html\n\n\n"
        "def render_widget(data, title='', compact=False):\n"
        "    \"\"\"Turn the data of a card into HTML, with its title and layout.\"\"\"\n"
        + "".join(f"    part_{i} = html.escape(str(data.get('k{i}', '')))\n" for i in range(30))
        + "    return f'<div>{title}</div>'\n\n\n"
        "class Widget:\n    def render(self):\n        return 'widget'\n\n\n"
        "class Banner:\n    def render(self):\n        return 'banner'\n"),
    "src/shop/cards.py": ("from shop.widgets import Widget\n\n\nclass Card(Widget):\n"
                          "    pass\n\n\nclass HeroCard(Card):\n    def title(self):\n"
                          "        return 'hero'\n"),
    "src/shop/config.py": (
        "DEFAULTS = {\n    \"DEBUG\": False,\n    \"SHOP_COOKIE_PARTITIONED\": False,\n"
        "    \"SHOP_NAME\": 'shop',\n}\n"),
    "src/shop/cookies.py": (
        "def partitioned(app):\n    \"\"\"Whether the cookie is partitioned.\"\"\"\n"
        + "".join(f"    # SHOP_COOKIE_PARTITIONED note {i}\n" for i in range(3))
        + "    return app.config['SHOP_COOKIE_PARTITIONED']\n"),
    "src/shop/views.py": (
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
        "@app.before_request\ndef load_shop_user():\n    \"\"\"Load the user of the request.\"\"\"\n"
        "    return None\n\n\n@app.route('/cart')\ndef cart():\n    return 'cart'\n"),
    "tests/test_cookies.py": (
        "def test_partitioned(app):\n    app.config.update(\n"
        "        SHOP_COOKIE_PARTITIONED=True,\n    )\n"
        "    assert app.config['SHOP_COOKIE_PARTITIONED']\n"),
    "docs/cookies.md": ("# Cookies\n\n" + "".join(
        f"## Setting {i}\n\nSet `SHOP_COOKIE_PARTITIONED` to change cookie {i}.\n\n"
        for i in range(8))),
    "templates/page.html": _TEMPLATE,
    # a plain word: ``discount`` is defined once, said and assigned far more often elsewhere
    "src/shop/pricing.py": (
        "\"\"\"Prices of the shop.\"\"\"\n\n\n"
        "def discount(price, rate):\n    \"\"\"The price after a rate off.\"\"\"\n"
        + "".join(f"    step_{i} = price * {i}\n" for i in range(25))
        + "    return price * (1 - rate)\n"),
    **{f"src/shop/offer_{i}.py": (
        f"def offer_{i}(price):\n    discount = 0.{i + 1}  # the discount of offer {i}\n"
        f"    # a discount, the discount, no other discount than the discount\n"
        f"    return price - price * discount\n") for i in range(6)},
    # ``render``: a top-level function, and a long method that says the word far more often
    "src/shop/output.py": "def render(text):\n    return text.strip()\n",
    "src/shop/page.py": (
        "class Page:\n    def render(self, parts):\n        \"\"\"Render each part.\"\"\"\n"
        + "".join(f"        part_{i} = self.render_part(parts[{i}])  # render part {i}\n"
                  for i in range(120))
        + "        return parts\n"),
    "docs/discounts.md": "# Discounts\n\n" + "".join(
        f"A discount {i}: the discount is a discount off the price.\n\n" for i in range(10)),
    **_USES,
    # ``Basket``: a class whose token many notes say more often than its users import it
    "src/shop/basket.py": "class Basket:\n    def __init__(self):\n        self.items = []\n",
    **{f"src/shop/checkout_{i}.py": (
        f"from shop.basket import Basket\n\n\ndef checkout_{i}(items):\n"
        f"    \"\"\"Checkout {i}: the total of the items.\"\"\"\n    return sum(items)\n")
       for i in range(6)},
    **{f"docs/carts_{i}.md": "# Carts\n\n" + "A basket holds items; the basket is paid.\n" * 12
       for i in range(8)},
    # ``ToolTip``: its token is said again and again, the name as written once, deep in a text
    "src/shop/tooltip.py": "class ToolTip:\n    \"\"\"A hint over a widget.\"\"\"\n",
    "src/shop/hover.py": ("from shop.tooltip import ToolTip\n\n\ndef hover(widget):\n"
                          "    return ToolTip()\n"),
    "docs/changes.md": ("# Changes\n\nEvery tooltip of the shop, release after release.\n\n"
                        + "".join(f"## 1.{i}\n\n" + "".join(
                            f"- The tooltip {i}.{j}: a tooltip, the tooltip.\n" for j in range(20))
                                  + "\n" for i in range(12))
                        + "## 0.9\n\n- Renamed the class of hints to `ToolTip`.\n"
                        + "".join(f"- Fixed the basket {j}.\n" for j in range(20)) + "\n"),
    # a module-level variable that its file says once and the docs say again and again
    "src/shop/state [v1].py": "\"\"\"State of the shop.\"\"\"\n\ncurrent_basket: dict = {}\n",
    **{f"docs/state_{i}.md": f"# State {i}\n\n" + "Read `current_basket` first.\n" * 10
       for i in range(6)},
    # a table at the top of one module that printers copy into an attribute of their own
    "src/shop/labels.py": ("\"\"\"Labels.\"\"\"\n\nGIFT_LABEL = make_label(\"gift\", [1],\n"
                           "                        kind=\"card\")\nknown_labels = {\n"
                           "    \"gift\": GIFT_LABEL,\n}\n"),
    **{f"src/shop/printer_{i}.py": (f"from shop.labels import known_labels\n\n\n"
                                    f"class Printer{i}:\n    def __init__(self):\n"
                                    f"        self.known_labels = dict(known_labels)\n")
       for i in range(4)},
    # a plain word one module assigns (as sympy's oo = S.Infinity), which tests say more
    "src/shop/money.py": "\"\"\"Money.\"\"\"\n\ncurrency = \"EUR\"\n",
    "tests/test_money.py": ("from shop.money import currency\n\n\ndef test_currency():\n"
                            + "    assert currency == 'EUR'\n" * 20),
    # and one that four modules assign: a convention, not a definition
    **{f"src/shop/log_{i}.py": ("import logging\n\nlogger = logging.getLogger(__name__)\n\n\n"
                                f"def warn_{i}():\n    logger.warning('{i}')\n")
       for i in range(4)},
    # a class too long for one chunk: its head, a method, and a short tail that says the
    # name more often for its length than the head does
    "src/shop/ledger.py": ("class Ledger:\n    \"\"\"The shop's accounts.\"\"\"\n\n"
                           + "".join(f"    entry_{i} = {i}\n" for i in range(60))
                           + "\n    def total(self):\n"
                           + "".join(f"        part_{i} = {i}\n" for i in range(30))
                           + "        return 0\n\n    kind = 'Ledger'  # Ledger, Ledger\n"),
}

pytestmark = pytest.mark.shop(files=FILES)


def run(query: str, **kw: object) -> list[tuple[str, str | None, str]]:
    ctx = open_context()
    sid = ensure_session(ctx)
    res = search(ctx, sid, query, SearchOptions(**kw))  # type: ignore[arg-type]
    return [(h.path, h.symbol, h.artifact_type) for h in res.hits]


def hits_of(query: str, **kw: object) -> list[Hit]:
    ctx = open_context()
    return search(ctx, ensure_session(ctx), query, SearchOptions(**kw)).hits  # type: ignore[arg-type]


def grep_files(root: Path, name: str) -> set[str]:
    return set(git(root, "grep", "-lw", name).split())


def test_the_definition_comes_first_not_the_template_that_repeats_the_name(shop: Path) -> None:
    hits = run("render_widget")
    assert ("src/shop/widgets.py", "render_widget") in [(p, s) for p, s, _ in hits[:3]], hits
    assert hits[0][0] != "templates/page.html"


def test_the_first_results_cover_the_files_that_use_the_name(shop: Path) -> None:
    files = grep_files(shop, "render_widget")
    assert len(files) == 8
    hits = run("render_widget", k=10)
    covered = {p for p, _, _ in hits} & files
    assert len(covered) >= min(5, len(files)), hits
    per_file = [p for p, _, _ in hits].count("templates/page.html")
    assert per_file <= 2, hits


def test_a_constant_is_found_where_it_is_defined_and_in_every_file(shop: Path) -> None:
    files = grep_files(shop, "SHOP_COOKIE_PARTITIONED")
    hits = run("SHOP_COOKIE_PARTITIONED", k=10)
    assert hits[0][0] == "src/shop/config.py", hits  # the quoted key of the defaults
    top5 = {p for p, _, _ in hits[:5]}
    assert top5 >= files - {"docs/cookies.md"} and len(top5 & files) >= min(5, len(files))


def test_a_class_chunked_in_parts_is_defined_by_its_first(shop: Path) -> None:
    ctx = open_context()
    hits = search(ctx, ensure_session(ctx), "Ledger", SearchOptions(k=5)).hits
    parts = [h for h in hits if h.symbol == "Ledger"]
    assert len(parts) == 2, hits  # the head and the tail, both of the class's symbol
    assert (hits[0].path, hits[0].start_line) == ("src/shop/ledger.py", 1), hits
    assert [h.breakdown.get("exact") for h in parts] == ["definition", "name"], parts


def test_a_qualified_name_puts_its_own_class_first(shop: Path) -> None:
    hits = run("Banner.render", k=3)
    assert hits[0][:2] == ("src/shop/widgets.py", "Banner"), hits  # a small class is one chunk
    hits = run("`Widget.render()`", k=3)
    assert hits[0][:2] == ("src/shop/widgets.py", "Widget"), hits


def test_a_method_the_class_inherits_puts_the_class_that_defines_it_first(shop: Path) -> None:
    # HeroCard derives from Card, Card from Widget: Widget.render before the top-level
    # render() of output.py (a top-level definition leads when no class is named)
    assert run("render", k=3)[0][:2] == ("src/shop/output.py", "render")
    hits = run("HeroCard.render", k=3)
    assert hits[0][:2] == ("src/shop/widgets.py", "Widget"), hits
    assert run("HeroCard.title", k=3)[0][:2] == ("src/shop/cards.py", "HeroCard")  # its own
    with Genesis() as g:  # one process, as a warm server: an edit of a base is seen
        first = g.search.run("HeroCard.render", g.search.options(k=1)).hits[0]
        (shop / "src/shop/cards.py").write_text(
            (shop / "src/shop/cards.py").read_text().replace("Card(Widget)", "Card(Banner)"))
        then = g.search.run("HeroCard.render", g.search.options(k=1)).hits[0]
    assert (first.symbol, then.symbol) == ("Widget", "Banner")


def test_type_code_keeps_code_that_is_also_an_api(shop: Path) -> None:
    everything = run("load_shop_user")
    assert everything[0][0] == "src/shop/views.py" and everything[0][2] == "API"
    code = run("load_shop_user", types=("CODE",))
    assert [p for p, _, _ in code][:1] == ["src/shop/views.py"], code
    assert run("load_shop_user", types=("API",))[0][0] == "src/shop/views.py"
    assert all(t != "API" or p.endswith(".py") for p, _, t in run("cart", types=("CODE",)))


def test_a_plain_word_the_tree_defines_is_found_where_it_is_defined(shop: Path) -> None:
    hits = run("discount", k=10)
    assert hits[0][:2] == ("src/shop/pricing.py", "discount"), hits
    # an assignment ``discount = 0.1`` is not the definition of a word: the offers follow
    assert [p for p, _, _ in hits[1:7]].count("src/shop/pricing.py") <= 1, hits
    assert len({p for p, _, _ in hits} & grep_files(shop, "discount")) >= 5, hits
    for written in ("`discount`", "discount()"):  # written as code, it is a name outright
        assert run(written, k=3)[0][:2] == ("src/shop/pricing.py", "discount"), written


def test_a_top_level_definition_comes_before_a_method_of_the_same_name(shop: Path) -> None:
    hits = run("render", k=5)
    assert hits[0][:2] == ("src/shop/output.py", "render"), hits
    assert ("src/shop/page.py", "Page.render") in [(p, s) for p, s, _ in hits[:3]], hits


def test_a_definition_far_down_the_fused_order_still_leads(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("genesis_git.search.exact.CANDIDATES", 2)  # every other row holds it
    assert run("discount", k=3)[0][:2] == ("src/shop/pricing.py", "discount")
    assert run("render_widget", k=3)[0][:2] == ("src/shop/widgets.py", "render_widget")


def test_files_that_use_a_name_beyond_the_candidates_are_still_found(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as ``App`` in flask: the notes say ``basket`` far more often than a checkout imports
    # ``Basket``, so with few candidates read, the checkouts are beyond them
    monkeypatch.setattr("genesis_git.search.exact.CANDIDATES", 4)
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 2)
    users = grep_files(shop, "Basket") - {"src/shop/basket.py"}
    assert len(users) == 6
    hits = run("Basket", k=8)
    assert hits[0][:2] == ("src/shop/basket.py", "Basket"), hits
    assert {p for p, _, _ in hits[1:7]} == users, hits
    monkeypatch.setattr("genesis_git.search.exact.WIDEN_FILES", 0)  # without looking further
    assert len({p for p, _, _ in run("Basket", k=8)} & users) < 5


def test_a_file_that_says_the_name_once_deep_in_a_long_text_is_found(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("genesis_git.search.exact.CANDIDATES", 4)
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 2)
    users = grep_files(shop, "ToolTip")
    assert users == {"src/shop/tooltip.py", "src/shop/hover.py", "docs/changes.md"}
    hits = run("ToolTip", k=6)
    assert hits[0][:2] == ("src/shop/tooltip.py", "ToolTip"), hits
    assert {p for p, _, _ in hits[:3]} == users, hits  # its chunk of the changes among them
    ctx = open_context()
    found = search(ctx, ensure_session(ctx), "ToolTip", SearchOptions(k=3)).hits
    assert "`ToolTip`" in next(h.text for h in found if h.path == "docs/changes.md")


def test_a_variable_that_no_candidate_defines_is_found_where_git_sees_it_assigned(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 2)  # the docs fill them
    asked: list[str] = []

    def word_lines(root: Path, word: str, paths: object = None) -> object:
        asked.append(word)
        return textlines.word_lines(root, word, paths)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "word_lines", word_lines)
    hits = run("current_basket", k=10)
    assert hits[0][0] == "src/shop/state [v1].py", hits
    # the lines git read for its definition also say which other files hold it (7 < 10)
    assert asked == ["current_basket"]
    holders = {"src/shop/state [v1].py", *(f"docs/state_{i}.md" for i in range(6))}
    assert {p for p, _, _ in hits} >= holders, hits


def test_a_variable_whose_word_is_everywhere_is_still_found_where_it_is_assigned(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as sympy's ``Matrix = MutableDenseMatrix``: ``matrix`` is in more files than git is
    # given by name, so git reads the whole tree
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 2)  # the docs fill them
    monkeypatch.setattr("genesis_git.search.exact.FALLBACK_FILES", 3)  # 7 files hold it
    hits = hits_of("current_basket", k=10)
    assert hits[0].path == "src/shop/state [v1].py", hits
    assert hits[0].name == "current_basket" and hits[0].breakdown["exact"] == "definition"
    out = subprocess.run([*genesis_cmd(), "search", "current_basket", "-k", "2"], cwd=shop,
                         text=True, capture_output=True, check=True).stdout
    assert out.splitlines()[0].endswith("\tcurrent_basket: dict = {}"), out  # its line


def test_a_top_level_definition_leads_the_attributes_that_copy_it(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as sympy's printers: each ``self.known_functions = dict(known_functions)`` defines the
    # attribute, indented; the module's table is the definition asked for
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 3)
    hits = hits_of("known_labels", k=6)
    assert (hits[0].path, hits[0].breakdown["exact"]) == ("src/shop/labels.py", "definition")
    assert [h.path for h in hits[1:3]] == ["src/shop/printer_0.py", "src/shop/printer_1.py"]
    assert {h.breakdown["exact"] for h in hits[1:3]} == {"definition"}  # self.known_labels =


def test_files_a_definition_showed_come_after_the_files_not_yet_shown(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 3)
    hits = hits_of("known_labels", k=6)  # the table, two printers' attributes, then the rest
    assert {h.path for h in hits[1:]} == {f"src/shop/printer_{i}.py" for i in range(4)}, hits


def test_a_top_level_assignment_that_goes_on_over_lines_is_a_definition(shop: Path) -> None:
    hits = hits_of("GIFT_LABEL", k=3)  # GIFT_LABEL = make_label("gift", [1],
    assert (hits[0].path, hits[0].breakdown["exact"]) == ("src/shop/labels.py", "definition")


def test_the_files_of_an_identifier_begin_with_its_definition(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("genesis_git.search.exact.READ_TEXTS", 2)  # the docs fill them
    with Genesis() as g:
        for query, first in (("current_basket", "src/shop/state [v1].py"),
                             ("render_widget", "src/shop/widgets.py"),
                             ("discount", "src/shop/pricing.py")):
            result = g.search.run(query, g.search.options(files=True, k=5))
            files = [fh.path for fh in group_by_file(result.hits)]
            assert files[0] == first and len(files) == 5, (query, files)


def test_a_plain_word_one_module_assigns_is_found_where_it_is_assigned(shop: Path) -> None:
    hits = hits_of("currency", k=3)
    assert (hits[0].path, hits[0].breakdown["exact"]) == ("src/shop/money.py", "definition")
    assert hits[1].path == "tests/test_money.py", hits


def test_a_plain_word_nothing_defines_keeps_the_search_order(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for word in ("price", "title", "cookie", "logger"):  # logger: four modules assign it
        found = run(word, k=10)
        assert found, word
        monkeypatch.setattr(engine, "word_of", lambda query: None)
        assert run(word, k=10) == found, word  # the same hits, in the same order
        monkeypatch.undo()


def test_more_than_one_word_is_not_an_identifier_query() -> None:
    assert identifier_of("render_widget") == "render_widget"
    assert identifier_of(" `Flask.url_for()` ") == "Flask.url_for"
    assert identifier_of("std::vector") == "std::vector"
    assert identifier_of("ProgressBar") == "ProgressBar" and identifier_of("HTTP2") == "HTTP2"
    for query in ("render widget", "url_for(x)", "进度条", "", "a.", "the", "order", "progressbar"):
        assert identifier_of(query) is None, query
    assert identifier_of("`order`") == "order" and identifier_of("echo()") == "echo"
    for query in ("echo(", ".echo()", ".echo", "def echo", "`def echo`", "fn echo"):  # as code
        assert identifier_of(query) == "echo", query
    assert identifier_of("class Context") == "Context"
    for query in ("ProgressBar.", "`ProgressBar.`", "Flask.url_for.", "echo().", ".echo."):
        assert identifier_of(query) in ("ProgressBar", "Flask.url_for", "echo"), query
    for query in ("ProgressBar..", "..", "progressbar."):  # a range, a word ending a sentence
        assert identifier_of(query) is None, query
    for query in ("def", "def echo now", "defecho", "(", ".", "def (x)"):
        assert identifier_of(query) is None, query
    assert word_of(" progressbar ") == "progressbar" and word_of("echo2") == "echo2"
    assert word_of("progressbar.") == "progressbar" and word_of("progressbar..") is None
    for query in ("Echo", "echo()", "two words", "进度条", "", "42", "_private"):
        assert word_of(query) is None, query
