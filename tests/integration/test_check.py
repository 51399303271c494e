"""``genesis check`` on real repositories with real history: each source of evidence, the
confidence threshold on a complete change, and the ways a change is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.check.change import read_change
from genesis_git.git.repo import find_repo
from genesis_git.kernel.errors import GenesisError, UsageError

from helpers import commit_files, git, make_repo, write

ORDER = "class Order:\n    def total(self):\n        return {n}\n"
SCHEMA = "from models.order import Order\n\n\ndef dump(o: Order):\n    return {{'total': {n}}}\n"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A history where models/order.py always changed with api/order_schema.py, and
    CHANGES.rst changed with everything."""
    root = make_repo(tmp_path / "shop", {
        "models/order.py": ORDER.format(n=0), "api/order_schema.py": SCHEMA.format(n=0),
        "CHANGES.rst": "Changes\n=======\n", "util/log.py": "def log(x):\n    return x\n",
        "README.md": "# shop\n"})
    for n in range(1, 6):
        commit_files(root, f"order total {n}", {
            "models/order.py": ORDER.format(n=n), "api/order_schema.py": SCHEMA.format(n=n),
            "CHANGES.rst": f"Changes\n=======\n\n- total {n}\n"})
    for n in range(1, 9):  # the changelog pairs with everything
        commit_files(root, f"log {n}", {"util/log.py": f"def log(x):\n    return x * {n}\n",
                                         "CHANGES.rst": f"Changes\n=======\n\n- log {n}\n"})
    return root


def run(root: Path, rev: str | None = None, **kw: object):  # type: ignore[no-untyped-def]
    with Genesis(root) as g:
        return g.check.run(rev, **kw)  # type: ignore[arg-type]


def test_cochange_names_the_file_that_always_changed_with_these(shop: Path) -> None:
    write(shop, "models/order.py", ORDER.format(n=99))
    git(shop, "add", "models/order.py")
    result = run(shop, staged=True)
    shown = [m.path for m in result.shown()]
    assert shown[:1] == ["api/order_schema.py"]
    top = result.shown()[0]
    assert top.reasons[0].source == "co-change"
    assert "in 6 of its 6 commits" in top.reasons[0].detail  # the first commit too
    assert top.confidence >= 0.7
    # the changelog changed with models/order.py as often, but it changes with everything
    everything = [m.path for m in run(shop, staged=True, min_confidence=0.0).missing]
    assert everything.index("api/order_schema.py") < everything.index("CHANGES.rst")
    assert "CHANGES.rst" not in shown


def test_a_complete_change_shows_nothing(shop: Path) -> None:
    commit_files(shop, "order total 6", {
        "models/order.py": ORDER.format(n=6), "api/order_schema.py": SCHEMA.format(n=6),
        "CHANGES.rst": "Changes\n=======\n\n- total 6\n"})
    result = run(shop, "HEAD")
    assert sorted(result.change.files) == ["CHANGES.rst", "api/order_schema.py",
                                           "models/order.py"]
    assert result.shown() == []
    assert result.to_json()["missing"] == []


def test_no_history_after_the_base_is_read(shop: Path) -> None:
    """A change made on the first commit sees only that commit's past, though the
    repository holds the five later commits that paired the two files."""
    first = git(shop, "rev-list", "--reverse", "HEAD").split()[0]
    git(shop, "checkout", "-q", "-b", "old", first)
    commit_files(shop, "order total, early", {"models/order.py": ORDER.format(n=7)})
    early = run(shop, "HEAD", min_confidence=0.0)
    pair = next(m for m in early.missing if m.path == "api/order_schema.py")
    history = next(r for r in pair.reasons if r.source == "co-change")
    assert "in 1 of its 1 commits" in history.detail
    assert run(shop, "HEAD").shown() == []
    git(shop, "checkout", "-q", "main")
    commit_files(shop, "order total, late", {"models/order.py": ORDER.format(n=7)})
    assert [m.path for m in run(shop, "HEAD").shown()][:1] == ["api/order_schema.py"]


def test_references_find_the_importers_of_an_edited_function(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {
        "shop/pricing.py": "def apply_discount(total, code):\n    return total\n",
        "shop/checkout.py": "from shop.pricing import apply_discount\n\n\n"
                            "def pay(t):\n    return apply_discount(t, None)\n",
        "shop/unrelated.py": "def other():\n    return 1\n"})
    write(root, "shop/pricing.py", "def apply_discount(total, code, rate=0):\n    return total\n")
    result = run(root)  # the working tree against HEAD
    item = next(m for m in result.shown() if m.path == "shop/checkout.py")  # shown by default
    ref = next(r for r in item.reasons if r.source == "references")
    assert "imports shop/pricing.py" in ref.detail and "apply_discount" in ref.detail
    assert "the definition of apply_discount changed" in ref.detail
    assert [m.path for m in result.shown()] == ["shop/checkout.py"]
    # a body edited, its signature kept: the importer is a candidate, not shown by default
    git(root, "commit", "-qam", "discount rate")
    write(root, "shop/pricing.py", "def apply_discount(total, code, rate=0):\n"
                                   "    return total * (1 - rate)\n")
    body = run(root)
    assert [m.path for m in body.missing if m.reasons[0].source == "references"] == [
        "shop/checkout.py"]
    assert body.shown() == []


def test_tests_of_an_edited_module_that_the_change_left_alone(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {
        "src/pricing.py": "def rate():\n    return 1\n",
        "tests/test_pricing.py": "def test_rate():\n    assert True\n",
        "tests/test_other.py": "def test_other():\n    assert True\n"})
    write(root, "src/pricing.py", "def rate():\n    return 2\n")
    git(root, "add", "-A")
    result = run(root, staged=True, min_confidence=0.0)
    item = next(m for m in result.missing if m.path == "tests/test_pricing.py")
    assert item.reasons[0].source == "tests"
    assert "tests pricing.py" not in item.reasons[0].detail  # the whole path is named
    assert "tests src/pricing.py" in item.reasons[0].detail
    assert [m.path for m in result.missing if any(r.source == "tests" for r in m.reasons)] == [
        "tests/test_pricing.py"]
    write(root, "tests/test_pricing.py", "def test_rate():\n    assert 2\n")
    git(root, "add", "-A")
    assert "tests/test_pricing.py" not in {m.path for m in run(root, staged=True,
                                                                min_confidence=0.0).missing}


def test_docs_that_name_an_edited_public_symbol_or_setting(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {
        "lib/api.py": "def fetch_orders(limit):\n    return []\n\n\n"
                      "def _private_helper():\n    return 0\n",
        "config/app.toml": "[orders]\npage_size = 20\n",
        "docs/usage.md": "# Usage\n\nCall `fetch_orders` with a limit.\n",
        "docs/settings.rst": "Settings\n========\n\n``page_size`` sets the page.\n",
        "docs/internals.md": "`_private_helper` is internal.\n"})
    write(root, "lib/api.py", "def fetch_orders(limit, offset=0):\n    return []\n\n\n"
                              "def _private_helper():\n    return 1\n")
    write(root, "config/app.toml", "[orders]\npage_size = 50\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "paging")
    result = run(root, "HEAD", min_confidence=0.0)
    found = {m.path: m for m in result.missing}
    assert found["docs/usage.md"].reasons[0].source == "docs"
    assert "fetch_orders" in found["docs/usage.md"].reasons[0].detail
    assert "page_size" in found["docs/settings.rst"].reasons[0].detail
    private = found["docs/internals.md"].reasons if "docs/internals.md" in found else []
    assert "docs" not in {r.source for r in private}  # a private name is not the docs' business
    assert run(root, "HEAD").shown() == []  # one past commit together is not yet a habit


def test_a_range_as_a_pull_request_shows_it(shop: Path) -> None:
    git(shop, "checkout", "-q", "-b", "feature")
    commit_files(shop, "feature: order total", {"models/order.py": ORDER.format(n=42)})
    commit_files(shop, "feature: readme", {"README.md": "# shop\n\nmore\n"})
    git(shop, "checkout", "-q", "main")
    commit_files(shop, "main moved on", {"util/log.py": "def log(x):\n    return -x\n"})
    result = run(shop, "main...feature")
    assert sorted(result.change.files) == ["README.md", "models/order.py"]  # not util/log.py
    assert len(result.change.commits) == 2
    assert [m.path for m in result.shown()][:1] == ["api/order_schema.py"]
    two_dots = run(shop, "main..feature", min_confidence=0.0)
    assert "util/log.py" in two_dots.change.files  # git diff A..B: the two trees


def test_names_that_are_not_a_change_fail_in_one_line(shop: Path) -> None:
    with pytest.raises(GenesisError, match="not a revision or range: 'nope'"):
        run(shop, "nope")
    with pytest.raises(GenesisError, match="cannot start with '-'"):
        run(shop, "--output=x")
    with pytest.raises(UsageError, match="unknown source 'gossip'"):
        run(shop, "HEAD", sources=["gossip"])


def test_paths_git_would_quote_are_read_whole(tmp_path: Path) -> None:
    odd = 'we"ird\tname ü.py'
    root = make_repo(tmp_path / "r", {odd: "def f():\n    return 1\n", "b.py": "x = 1\n"})
    write(root, odd, "def f():\n    return 2\n")
    git(root, "add", "-A")
    change = read_change(find_repo(root), staged=True)
    assert change.files == {odd: "M"}
    assert change.new_lines[odd] == [(2, 2)]


def test_staged_changes_with_a_revision_are_refused_not_ignored(shop: Path) -> None:
    with pytest.raises(UsageError, match="the staged changes have no revision"):
        read_change(find_repo(shop), "HEAD", staged=True)


def test_two_refs_pushed_at_one_commit_are_checked_once(shop: Path) -> None:
    from genesis_git.hooks.prepush_check import pushed_ranges

    git(shop, "branch", "twin")
    git(shop, "update-ref", "refs/remotes/origin/main", "HEAD~2")  # what the remote has
    tip = git(shop, "rev-parse", "HEAD").strip()
    base = git(shop, "rev-parse", "HEAD~2").strip()
    zero = "0" * 40
    lines = [["refs/heads/main", tip, "refs/heads/main", zero],
             ["refs/heads/twin", tip, "refs/heads/twin", zero]]
    ranges = pushed_ranges(str(shop), lines)
    assert ranges == [f"{base}..{tip}"]


def test_the_root_commit_and_an_empty_change(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    first = run(root, "HEAD")
    assert sorted(first.change.files) == ["a.py", "b.py"] and first.missing == []
    nothing = run(root, staged=True)
    assert nothing.change.files == {} and nothing.missing == []


def test_a_check_creates_no_store(shop: Path, genesis_env: Path) -> None:
    """A clone that never ran genesis (a CI job) gets an answer and no store, also when the
    commits name a story the ledger does not hold."""
    commit_files(shop, "STORY-3: order total", {"models/order.py": ORDER.format(n=77)})
    result = run(shop, "HEAD")
    assert result.story_ids == ["STORY-3"]
    assert result.warnings == ["story STORY-3 is not in the ledger: no story evidence"]
    assert [m.path for m in result.shown()][:1] == ["api/order_schema.py"]
    assert not (genesis_env / "genesis.db").exists()


def test_a_repository_without_a_commit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.py": "x = 1\n"}, commit=False)
    git(root, "add", "a.py")
    staged = run(root, staged=True)
    assert staged.change.files == {"a.py": "A"} and staged.missing == []
    with pytest.raises(GenesisError, match="the repository has no commit yet"):
        run(root, "HEAD")
