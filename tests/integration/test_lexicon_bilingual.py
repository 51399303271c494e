"""The lexicon translates only the Chinese words that the code base does not write itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, search
from genesis_git.search.session_index import clear_memory

from helpers import make_repo

CODE = {
    "src/termui.py": ("class ProgressBar:\n    def __init__(self, width=36):\n"
                      "        self.width = width\n"),
    "src/pager.py": "def echo_via_pager(text):\n    return text\n",
}


def lexicon_terms(root: Path, query: str, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], str]:
    monkeypatch.chdir(root)
    clear_memory()
    ctx = open_context()
    res = search(ctx, ensure_session(ctx), query, SearchOptions(k=3))
    return {t.term for t in res.terms if t.origin.startswith("lexicon:")}, res.hits[0].path


def test_english_code_gets_the_english_words(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    terms, top = lexicon_terms(make_repo(tmp_path / "en", CODE), "进度条 宽度", monkeypatch)
    assert terms == {"progress", "bar", "progressbar", "width"}
    assert top == "src/termui.py"


def test_a_chinese_word_the_docs_write_is_not_translated(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    files = {**CODE, "docs/进度.md": "# 进度条\n\n进度条显示任务完成了多少。\n"}
    terms, top = lexicon_terms(make_repo(tmp_path / "zh", files), "进度条 宽度", monkeypatch)
    assert terms == {"width"}  # 宽度 is not in the docs, 进度条 is
    assert top == "docs/进度.md"
