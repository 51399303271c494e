"""bench/baselines.py: plain BM25 over a commit's files, read from git, with nothing of genesis."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from helpers import ROOT, git, load_module


def _baselines() -> ModuleType:
    return load_module(ROOT / "bench" / "baselines.py", "bench_baselines")


def test_words_split_identifiers_and_give_cjk_bigrams() -> None:
    words = _baselines().words
    assert words("parseArgs max_width") == ["parseargs", "parse", "args", "max", "width"]
    assert words("HTTPServer") == ["httpserver", "http", "server"]
    assert words("订单表 x") == ["订单", "单表", "x"]
    assert words("表") == ["表"]


def test_bm25_ranks_the_files_of_the_commit_asked_not_of_head(tmp_path: Path) -> None:
    baselines = _baselines()
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app").mkdir()
    (root / "app" / "progress.py").write_text("def render_bar(width):\n    return '#' * width\n")
    (root / "app" / "orders.py").write_text("class Order:\n    total = 0\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0progress bar width")
    (root / "订单.md").write_text("订单表 说明\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "app" / "orders.py").write_text("class Order:\n    progress_width = 0\n" * 3)
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
    tree = baselines.Tree(root / ".git")
    ranked = baselines.bm25_rank(tree, first, "the progress bar has the wrong width")
    assert ranked == ["app/progress.py"]  # the binary file is no document; orders.py had no match
    later = baselines.bm25_rank(tree, "HEAD", "progress bar width")
    assert sorted(later) == ["app/orders.py", "app/progress.py"]  # the second commit's orders.py
    assert baselines.bm25_rank(tree, first, "订单表") == ["订单.md"]
