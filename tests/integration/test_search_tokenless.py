"""A name the index keeps no token of (a stopword or one letter: ``has()``, ``S``,
``Basic.has``) is still found as ``git grep -w`` would find it, definitions first, in the
working tree as it is (real repositories, the real session, the real command)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.kernel.errors import UsageError
from genesis_git.search import SearchOptions, search
from genesis_git.search.identifiers import tokenless
from genesis_git.search.results import Hit
from genesis_git.search.textlines import word_lines

from helpers import genesis_cmd, git, write

FILES = {
    "src/calc/basic.py": (  # long enough for a chunk per method
        "class Basic:\n    \"\"\"A node of an expression tree.\"\"\"\n\n"
        "    def has(self, *patterns):\n        \"\"\"Whether any pattern is in the tree.\"\"\"\n"
        + "".join(f"        step_{i} = self.args[{i}:]\n" for i in range(40))
        + "        return any(p in self.args for p in patterns)\n\n"
        "    def subs(self, old, new):\n"
        + "".join(f"        swap_{i} = (old, new, {i})\n" for i in range(40))
        + "        return self\n"),
    "src/calc/singleton.py": "class Registry:\n    \"\"\"Singletons.\"\"\"\n\n\nS = Registry()\n",
    # a function whose local ``S`` is assigned once and used forty times
    "src/calc/solver.py": ("from calc.basic import Basic\n\n\ndef solve(x):\n    S = []\n"
                           + "    S.append(x)\n" * 40 + "    return S\n"),
    # a test that says ``S`` far more often than anything defines it
    "tests/test_many.py": ("from calc.singleton import S\n\n\ndef test_half():\n"
                           + "    assert S.Half == S.Half\n" * 60),
    **{f"src/calc/use_{i}.py": (f"from calc.singleton import S\n\n\ndef value_{i}(expr):\n"
                                f"    if expr.has(S.Zero):\n        return S.One\n"
                                f"    return expr\n") for i in range(6)},
    "src/calc/consts.py": "e = 2.718281828\n\n\ndef f(x):\n    return e * x\n",
    "src/calc/units.py": "from calc.singleton import Registry\n\njoule = joules = J = Registry()\n",
    "src/calc/energy.py": ("from calc.units import J\n\n\ndef work(force, distance):\n"
                           "    return force * distance * J / J * J\n"),
    # text that .gitattributes calls binary: git only says it matches
    ".gitattributes": "src/calc/generated.py binary\n",
    "src/calc/generated.py": "def generated(expr):\n    return expr.has(2)\n",
    "src/calc/[odd] name.py": "def odd(expr):\n    return expr.has(1)\n",
    "docs/guide.md": ("# Guide\n\nAn expression has parts, and the guide has pages.\n\n"
                      "```python\ndef g(x):\n    return x\n```\n"),
}

pytestmark = pytest.mark.shop(files=FILES)


def hits_of(query: str, **kw: object) -> list[Hit]:
    ctx = open_context()
    sid = ensure_session(ctx)
    return search(ctx, sid, query, SearchOptions(**kw)).hits  # type: ignore[arg-type]


def run(query: str, **kw: object) -> list[tuple[str, str | None]]:
    return [(h.path, h.symbol) for h in hits_of(query, **kw)]


def users(root: Path, name: str) -> set[str]:
    return set(git(root, "grep", "-lwI", "-z", "-e", name).split("\0")) - {""}


def test_which_names_have_no_token() -> None:
    for name in ("has", "S", "a", "Basic.has", "_", "self.is"):
        assert tokenless(name), name
    for name in ("has_x", "Basic", "S1", "hasattr", "Basic.subs"):
        assert not tokenless(name), name


def test_a_method_named_by_a_stopword_is_found_first_and_its_users_follow(shop: Path) -> None:
    expected = users(shop, "has")
    assert "src/calc/[odd] name.py" in expected and len(expected) == 9
    for written in ("has()", "`has`", "has", "Basic.has", "has(", ".has()", "def has", "has."):
        hits = run(written, k=10)
        assert hits[0] == ("src/calc/basic.py", "Basic.has"), (written, hits)
        reached = {p for p, _ in hits} & expected
        assert len(reached) >= 5, (written, hits)
        places = [(h.path, h.start_line) for h in hits_of(written, k=10)]
        assert len(places) == len(set(places)), places  # no chunk twice


def test_a_one_letter_name_leads_with_its_module_level_definition(shop: Path) -> None:
    hits = run("S", k=10)
    assert hits[0][0] == "src/calc/singleton.py", hits  # not the local S = [], not the test
    assert run("S.", k=10) == hits  # as written before an attribute (S.One)
    assert hits.index(("src/calc/solver.py", "solve")) > 0
    assert len({p for p, _ in hits} & users(shop, "S")) >= 5, hits
    chained = [p for p, _ in run("J", k=3)]  # joule = joules = J = …
    assert chained[0] == "src/calc/units.py" and set(chained[1:]) == {"src/calc/energy.py"}


def test_a_text_file_that_git_calls_binary_is_still_read(shop: Path) -> None:
    assert "src/calc/generated.py" not in users(shop, "has")  # git grep -I leaves it out
    assert "src/calc/generated.py" in {p for p, _ in run("has()", k=30)}


def test_the_working_tree_is_what_is_searched(shop: Path) -> None:
    write(shop, "src/calc/fresh.py", "from calc.singleton import S\n\nTWO = S.One + S.One\n")
    write(shop, "src/calc/use_0.py", "def value_0(expr):\n    return expr\n")  # S is gone
    paths = {p for p, _ in run("S", k=30)}
    assert "src/calc/fresh.py" in paths  # untracked, never committed
    assert "src/calc/use_0.py" not in paths  # the edit, not the commit


def test_nothing_that_holds_the_name_says_so_and_a_stopword_is_still_refused(shop: Path
                                                                             ) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    res = search(ctx, sid, "z()", SearchOptions(k=5))
    assert res.hits == [] and res.warnings == ["no results: no file holds 'z' as a whole word"]
    assert run("f", k=3)[0][0] == "src/calc/consts.py"  # a plain word that a def defines
    assert run("e", k=3)[0][0] == "src/calc/consts.py"  # or a top-level assignment
    # plain words that no code defines (a sample of the guide is prose): only stopwords
    for query in ("the", "a", "is", "g"):
        with pytest.raises(UsageError, match="only stopwords"):
            search(ctx, sid, query, SearchOptions(k=5))
    with pytest.raises(UsageError, match="only stopwords"):
        search(ctx, sid, "has()", SearchOptions(k=5, mode="vector"))
    assert run("has()", k=5, paths=("docs/**",)) == [("docs/guide.md", None)]  # filters hold


def test_the_command_line_and_its_files_view(shop: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*genesis_cmd(), "search", *args], cwd=shop, text=True,
                              capture_output=True, timeout=120)

    res = cli("has()", "--json")
    assert res.returncode == 0, res.stderr
    hits = json.loads(res.stdout)["results"]
    assert hits[0]["path"] == "src/calc/basic.py" and hits[0]["breakdown"]["exact"] == "definition"
    assert hits[0]["matched_terms"] == ["has"]  # what --explain shows
    # the score is the text's: a method's line 100 (a top-level definition's 1000), a use's 1
    assert hits[0]["score"] == hits[0]["breakdown"]["text"] == 100.0
    assert [h["score"] for h in hits[1:]] and all(h["score"] == 1.0 for h in hits[1:]), hits
    res = cli("has()", "--explain", "-k", "1")  # and --explain says so
    assert "text    100.0 = lines with the name" in res.stdout and "lexical" not in res.stdout
    res = cli("--files", "-k", "3", "S")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith("src/calc/singleton.py"), res.stdout
    # files in the order of the search, not of their paths ("[odd] name.py" sorts first)
    res = cli("--files", "-k", "3", "has()")
    assert res.stdout.splitlines()[0].startswith("src/calc/basic.py"), res.stdout
    res = cli("the")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "only stopwords" in res.stderr


def test_git_grep_lines_keep_odd_paths_and_skip_binary_files(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "a\tb [c].py", "x = has(1)\nnothing\n  has = 2\n")
    (root / "blob.bin").write_bytes(b"has\0has")
    write(root, "marked.txt", "one has\n")
    write(root, ".gitattributes", "marked.txt binary\n")
    write(root, "words.txt", "hash hasher _has has_")  # not as a whole word
    found = word_lines(root, "has")
    assert sorted(found) == ["a\tb [c].py", "marked.txt"]  # text, whatever git calls it
    assert found["marked.txt"].lines() == ["one has"]
    assert found["a\tb [c].py"].numbers == [1, 3]
    assert found["a\tb [c].py"].lines() == ["x = has(1)", "  has = 2"]
    write(root, "new\nline.py", "has\n")  # a newline in a path: read record by record
    assert word_lines(root, "has")["new\nline.py"].numbers == [1]
    assert word_lines(tmp_path, "has") == {}  # not a repository: no match, no error
