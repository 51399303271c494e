"""Pure parts of ``genesis check``: the co-change arithmetic, test and doc names, quoted paths
in a patch, and the renderings of data that looks like markup or control codes."""

from __future__ import annotations

from genesis_git.check.change import _unquote
from genesis_git.check.cochange import cochange
from genesis_git.check.sources import is_doc
from genesis_git.impact.history import History
from genesis_git.index.classify import is_test_path
from genesis_git.render.check import markdown_lines, md, text_lines


def _history(commits: list[list[str]]) -> History:
    files: list[str] = []
    txs = []
    for names in commits:
        for n in names:
            if n not in files:
                files.append(n)
        txs.append([files.index(n) for n in names])
    return History("h", files, txs, len(txs), [f"{i:040d}" for i in range(len(txs))])


def test_a_specific_pairing_beats_a_file_that_changes_with_everything() -> None:
    commits = [["a.py", "b.py", "CHANGES"] for _ in range(3)]
    commits += [[f"x{i}.py", "CHANGES"] for i in range(20)]
    found = cochange(_history(commits), ["a.py"])
    assert found["b.py"].score > found["CHANGES"].score
    assert found["b.py"].pair_count == found["CHANGES"].pair_count == 3
    assert 0 < found["b.py"].confidence < 1


def test_a_commit_sharing_more_of_the_change_counts_more() -> None:
    hist = _history([["a.py", "b.py", "c.py"], ["a.py", "d.py"]])
    found = cochange(hist, ["a.py", "b.py"])
    assert found["c.py"].score > found["d.py"].score


def test_a_sweeping_commit_is_not_a_pairing() -> None:
    hist = _history([["a.py"] + [f"f{i}.py" for i in range(30)]])
    assert cochange(hist, ["a.py"]) == {}


def test_one_rule_names_tests_and_docs() -> None:
    for path in ("tests/test_order.py", "pkg/order_test.go", "web/order.spec.ts",
                 "src/test/java/OrderTest.java", "app/tests.py", "conftest.py",
                 "sympy/testing/runtests.py", "src/OrderTests.java", "lib/order_tests.py",
                 "spec/order_spec.rb", "ui/__tests__/cart.js"):
        assert is_test_path(path), path
    for path in ("src/click/testing.py", "contest.py", "src/latest.py", "pytest_plugin.py",
                 "src/attest.py", "docs/testing.rst"):
        assert not is_test_path(path), path
    assert is_doc("docs/usage.md") and is_doc("README.rst") and not is_doc("docs/conf.py")
    assert is_doc("site/guide.mdx") and is_doc("manual.asciidoc")  # impact's prose too


def test_a_quoted_patch_path_is_read_back() -> None:
    assert _unquote(b'"a\\tb\\"c\\303\\274.py"') == 'a\tb"cü.py'.encode()
    assert _unquote(b"plain/path.py") == b"plain/path.py"


DATA = {"change": {"label": "HEAD", "files": [{"path": "a.py", "status": "M"}]},
        "min_confidence": 0.5, "below_threshold": 2,
        "missing": [{"path": "x|y`<img src=q>`.py", "score": 1.2, "confidence": 0.75,
                     "reasons": [{"source": "co-change", "weight": 0.75,
                                  "detail": "changed with a.py in 3 of its 4 commits "
                                            "(last 1234567890 \x1b[31mred\x1b[0m **bold** "
                                            + "x" * 200 + ")"}]}]}


def test_markdown_cannot_break_the_table_or_carry_html() -> None:
    lines = markdown_lines(DATA)
    row = next(line for line in lines if line.startswith("| x"))
    assert "<img" not in row and "&lt;img" in row
    assert row.count("|") - row.count("\\|") == 4
    assert "\\*\\*bold\\*\\*" in row and "\x1b" not in row
    assert lines[-1].startswith("<sub>Shown: confidence 0.50 or more; 2 more below it")
    assert md("a_b") == "a\\_b"
    assert markdown_lines({**DATA, "missing": []}) == []


def test_text_fits_the_width_and_drops_escape_codes() -> None:
    lines = text_lines(DATA, 80)
    assert lines[0] == "HEAD (1 file): 1 file probably missing"
    assert lines[1] == " 0.75  x|y`<img src=q>`.py"  # a path is never cut
    assert all(len(line) <= 80 for line in lines[2:])
    assert "\x1b" not in "".join(lines)
