"""``genesis impact`` on a pasted issue, in a real repository: the traceback's module leads,
documentation, tests and genesis's own settings do not, every file says how sure it is, and
weak evidence is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app

from helpers import make_repo

runner = CliRunner()

FILES = {
    "src/pricer/__init__.py": "",
    "src/pricer/core.py": ("from pricer.rounding import round_half\n\n\nclass Quote:\n"
                           "    def price(self, amount, qty):\n"
                           "        return round_half(amount / qty)\n"),
    "src/pricer/rounding.py": ("def round_half(value):\n    \"\"\"Round half away from zero.\"\"\"\n"
                               "    return int(value + 0.5)\n"),
    "tests/test_core.py": ("from pricer.core import Quote\n\n\ndef test_price_of_zero_quantity():\n"
                           "    # price quote zero quantity division error\n"
                           "    assert Quote().price(1, 0) == 0  # quote price zero quantity\n"),
    "docs/usage.rst": ("Quotes\n======\n\nA quote's price for a zero quantity: the price of a "
                       "quote, quantity zero, price per quantity. Quote price quantity zero.\n"),
    ".github/ISSUE_TEMPLATE/bug.yml": "name: Bug\ndescription: price quote zero quantity error\n",
    ".genesis.toml": "# price quote zero quantity division error\n[impact]\nk = 12\n",
}
ISSUE = '''Quote.price fails for a zero quantity

```
>>> from pricer.core import Quote
>>> Quote().price(1, 0)
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/usr/lib/python3/site-packages/pricer/core.py", line 6, in price
    return round_half(amount / qty)
ZeroDivisionError: division by zero
```
The price of a quote with quantity zero should be zero.
'''


@pytest.fixture
def pricer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "pricer", FILES)
    monkeypatch.chdir(root)
    return root


def _json(*args: str) -> dict[str, Any]:
    res = runner.invoke(app, ["impact", "--json", *args])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def test_an_issue_with_a_traceback_ranks_the_source_it_names_first(pricer: Path) -> None:
    data = _json("-k", "10", "--", ISSUE)
    paths = [f["path"] for f in data["files"]]
    assert paths[0] == "src/pricer/core.py"
    assert ".genesis.toml" not in paths
    assert paths.index("docs/usage.rst") > paths.index("src/pricer/rounding.py")
    top = data["files"][0]
    assert top["reasons"]["traceback"] > 0 and 0.5 < top["confidence"] <= 1
    assert all(0 <= f["confidence"] <= top["confidence"] for f in data["files"])
    assert data["weak_evidence"] is False and data["schema"] == 1
    symbol = next(i for i in data["impacts"] if i["path"] == "src/pricer/core.py")
    assert symbol["target"] in ("Quote", "Quote.price") and symbol["confidence"] == top["confidence"]
    start, end = symbol["lines"]  # the evidence lies inside the symbol it is shown for
    assert all(start <= int(ev.split(":")[1]) <= end for ev in symbol["evidence"]
               if ev.startswith("src/pricer/core.py:"))
    docs = next(f for f in data["files"] if f["path"] == "docs/usage.rst")
    assert docs["reasons"]["prior"] < 0  # a bug report: documentation weighs less


def test_weak_evidence_is_flagged_in_json_and_said_in_text(pricer: Path) -> None:
    data = _json("--", "quantity xylophone marimba glockenspiel")
    assert data["weak_evidence"] is True
    assert any(w.startswith("weak evidence") for w in data["warnings"])
    res = runner.invoke(app, ["impact", "--", "quantity xylophone marimba glockenspiel"])
    assert res.exit_code == 0
    assert "warning: weak evidence" in res.stderr
    assert "  confidence 0." in res.stdout.splitlines()[3]


def test_the_variable_an_error_names_leads_to_the_code_that_uses_it(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    """In a session's index (chunks read from the store), the file whose code uses the
    variable comes first; the ones that only say it in a comment or a test do not."""
    files = {
        "src/site/i18n.py": ("def translate(message, source):\n    if source.endswith('#skip'):\n"
                             "        message, noqa = strip(message)\n"
                             "    return message if noqa else source\n"),
        "src/site/util.py": "import os  # noqa\n\n\ndef page_table(table):\n    return table\n",
        "src/site/themes/layout.css_t": ("table.contents { width: 100%; } td.contents "
                                         "{ width: 45%; } span.link { width: 50%; }\n"),
        "tests/test_i18n.py": "def test_noqa():\n    noqa = True\n    assert noqa\n",
    }
    monkeypatch.chdir(make_repo(tmp_path / "site", files))
    issue = ("UnboundLocalError: local variable 'noqa' referenced before assignment\n\n"
             "To translate a message of this page fails:\n\n```rst\n.. raw:: html\n\n"
             "   <table class='contents' width='100%'><td width='45%'><span class='link'>"
             "</span></td></table>\n```\n")
    data = _json("-k", "10", "--", issue)
    top = data["files"][0]
    assert top["path"] == "src/site/i18n.py" and top["reasons"]["traceback"] == pytest.approx(0.6)
    assert all("traceback" not in f["reasons"] for f in data["files"][1:])
    # the score is explained: the lines that use the name, and what the error named
    impact = next(i for i in data["impacts"] if i["path"] == "src/site/i18n.py")
    assert impact["detail"].startswith("the traceback or the error names it (uses noqa)")
    assert impact["evidence"] == ["src/site/i18n.py:3: message, noqa = strip(message)",
                                  "src/site/i18n.py:4: return message if noqa else source"]
    assert impact["target"] == "translate" and impact["lines"] == [1, 4]
