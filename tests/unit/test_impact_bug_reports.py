"""Impact on a bug report: the variable an interpreter's error names, a changelog among the
documents, the page a report pastes (impact.issue, impact.anchors, impact.analyse).

Each ranking test runs the same corpus twice, with the signal and with it switched off
(``RankOptions.ablate``), so that it fails without the signal."""

from __future__ import annotations

from test_impact_graph import corpus_of

from genesis_git.impact.analyse import analyze
from genesis_git.impact.anchors import (
    VARIABLE_FILES,
    file_kind,
    in_code,
    prior_factor,
    variable_scores,
)
from genesis_git.impact.combine import RankOptions, rank
from genesis_git.impact.issue import read_issue, term_counts

PAGE = ("<table class='contents' width='100%'><tr><td width='45%' rowspan='4'>"
        "<span class='link'>the table of contents</span></td></tr></table>")
UNBOUND = f"""UnboundLocalError: local variable 'noqa' referenced before assignment
### Describe the bug
To translate a message of a page that holds raw html fails:
```rst
.. raw:: html

   {PAGE}
   {PAGE}
```
"""
TREE = {
    "src/site/i18n.py": ("def translate(message, source):\n"
                         "    if source.endswith('#skip'):\n"
                         "        message, noqa = strip(message)\n"
                         "    return message if noqa else source\n"),
    "src/site/util.py": "import os  # noqa\n\ndef html_page(table):\n    return table\n",
    "src/site/themes/layout.css_t": "<table width='100%'><tr><td>contents</td></tr></table>\n",
    "tests/test_i18n.py": "def test_noqa():\n    noqa = True\n    assert noqa\n",
}


def _top(files: dict[str, str], text: str, **kw: object) -> list[str]:
    return [f.path for f in rank(corpus_of(files), analyze(text), RankOptions(**kw)).files]  # type: ignore[arg-type]


def test_the_variable_an_error_names_is_read_from_the_interpreters_messages() -> None:
    assert read_issue(UNBOUND).variables == ["noqa"]
    assert read_issue("NameError: name 'cart_total' is not defined").variables == ["cart_total"]
    assert read_issue("UnboundLocalError: cannot access local variable 'x' where it is not "
                      "associated with a value").variables == ["x"]
    assert read_issue("the local variable is not defined here").variables == []
    assert "noqa" in read_issue(UNBOUND).code_tokens


def test_a_variable_the_error_names_leads_to_the_code_that_uses_it() -> None:
    corpus = corpus_of(TREE)
    q = analyze(UNBOUND)
    file_terms = corpus.text_scores(q.weights)[3]
    # a comment (util.py's) is no use; a test counts only when nothing else uses it
    assert variable_scores(q, corpus, file_terms) == {"src/site/i18n.py": (1.0, "noqa")}
    assert _top(TREE, UNBOUND)[0] == "src/site/i18n.py"
    assert _top(TREE, UNBOUND, ablate=frozenset({"traceback"}))[0] != "src/site/i18n.py"
    only_test = {k: v for k, v in TREE.items() if k != "src/site/i18n.py"}
    assert variable_scores(q, corpus_of(only_test),
                           corpus_of(only_test).text_scores(q.weights)[3]) == {
        "tests/test_i18n.py": (1.0, "noqa")}
    # shared among the files that use it
    two = {**TREE, "src/site/lint.py": "def check(line):\n    noqa = '#skip' in line\n"
                                       "    return noqa\n"}
    corpus = corpus_of(two)
    assert variable_scores(q, corpus, corpus.text_scores(q.weights)[3]) == {
        "src/site/i18n.py": (0.5, "noqa"), "src/site/lint.py": (0.5, "noqa")}
    # in more files than VARIABLE_FILES it tells none of them apart
    many = {f"src/site/m{i}.py": "def f():\n    noqa = 1\n    return noqa\n"
            for i in range(VARIABLE_FILES + 1)}
    corpus = corpus_of(many)
    assert variable_scores(q, corpus, corpus.text_scores(q.weights)[3]) == {}
    corpus = corpus_of(dict(list(many.items())[:VARIABLE_FILES]))
    assert len(variable_scores(q, corpus, corpus.text_scores(q.weights)[3])) == VARIABLE_FILES


def test_a_name_in_code_is_a_whole_word_before_any_comment() -> None:
    assert in_code("noqa", "x = 1\nmsg, noqa = parse(msg)\n")
    assert in_code("noqa", "noqa")
    assert not in_code("noqa", "import os  # noqa\nnoqa_count = 1\nparse_noqa(x)\n")
    assert not in_code("noqa", "x = 1  # noqa = 2\n")
    assert in_code("noqa", "# noqa\nreturn noqa  # noqa\n")  # the second line's first


CHANGES_TREE = {
    "CHANGES": ("Release 7.2\n\nBugs fixed\n* #11015: the total of an empty cart crashes\n"
                "* #11016: an empty cart total is wrong\n* the cart total of a cart\n"),
    "src/shop/cart.py": "class Cart:\n    def total(self):\n        return sum(self.items)\n",
}
BUG = "Empty cart total crashes\n\n```\n>>> Cart().total()\nZeroDivisionError\n```\n"


def test_a_changelog_without_an_extension_is_a_document_in_a_bug_report() -> None:
    assert file_kind("CHANGES", ["changelog"]) == "doc"
    assert file_kind("CHANGES") == "source"  # by its path alone, a file with no extension
    q = analyze(BUG)
    assert prior_factor("CHANGES", q, ["changelog"]) < 1.0
    assert _top(CHANGES_TREE, BUG)[0] == "src/shop/cart.py"
    assert _top(CHANGES_TREE, BUG, ablate=frozenset({"prior"}))[0] == "CHANGES"


PASTED = """Latex: terms are not separated by a newline
### Describe the bug
The terms of a definition list run together:
```rst
:samp:`{file}.cc` :samp:`{file}.cp` :samp:`{file}.cxx` :samp:`{file}.cpp`
  C++ source file that must be preprocessed.
:samp:`{file}.hh` :samp:`{file}.hp` :samp:`{file}.hpp`
  C++ header file.
```
"""
WRITERS = {
    "src/writers/pdf.py": ("class LaTeXTranslator:\n    def visit_term(self, node):\n"
                             "        # a term of a definition list, then a newline\n"
                             "        self.body.append('\\\\item[')\n"),
    "src/roles.py": ("def samp_role(name, rawtext, text):\n    # :samp:`{file}.cpp` marks the "
                     "variable part of a file name: a C++ source file, a header file\n"
                     "    return samp(text)\n\n\n"
                     "def samp(text):\n    return text  # samp samp file file\n"),
}


def test_the_words_of_a_pasted_page_count_once() -> None:
    """An ```rst (```html, ```yaml …) block is the page that shows the bug: its words count
    once however often it repeats them, so the title's words are not drowned; a block of
    code, or one without a language, keeps its counts."""
    counts = term_counts(PASTED)
    assert counts["samp"] == 1 and counts["file"] == 1  # six and seven times in the block
    assert counts["term"] == 2 and counts["latex"] == 1  # the prose keeps its counts
    code = PASTED.replace("```rst", "```python")
    assert term_counts(code)["samp"] == 7
    assert term_counts(PASTED.replace("```rst", "```"))["samp"] == 7
    q = analyze(PASTED)
    assert q.weights["latex"] > q.weights["samp"] and q.weights["term"] > q.weights["samp"]
    assert _top(WRITERS, PASTED)[0] == "src/writers/pdf.py"
    assert _top(WRITERS, code)[0] == "src/roles.py"
