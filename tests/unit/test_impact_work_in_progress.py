"""Two impact signals for messages that say little: ``recent``, the files of the last commits
(the work in progress), and query words found inside run-together file names
(``pdf`` in ``mypdfloader.py``).  Each ranking test fails without its signal."""

from __future__ import annotations

import pytest
from test_impact_graph import corpus_of

from genesis_git.impact.analyse import analyze
from genesis_git.impact.combine import RankOptions, Weights, rank
from genesis_git.impact.history import MAX_COMMITS, History, recent_scores
from genesis_git.impact.signals import path_scores


def _history(transactions: list[list[int]], files: list[str]) -> History:
    shas = [f"{i:x}" * 40 for i in range(1, len(transactions) + 1)]
    return History("h", files, transactions, len(transactions), [s[:40] for s in shas],
                   [f"commit {i}" for i in range(len(transactions))],
                   ["commit" for _ in transactions])


def test_the_newest_commit_weighs_most_and_only_the_last_ten_count() -> None:
    files = ["new.py", "older.py", "ancient.py"]
    hist = _history([[0], [1], [1], *([[]] * 8), [2], []], files)
    scores = recent_scores(hist, files)
    assert "ancient.py" not in scores  # the twelfth commit is not work in progress
    assert scores["new.py"][0] == 1.0
    assert scores["older.py"][0] == pytest.approx(0.5 ** (1 / 3) + 0.5 ** (2 / 3))
    assert scores["older.py"][1] == ["2222222222", "3333333333"]  # short SHAs, newest first
    assert recent_scores(hist, files, commits=1) == {"new.py": (1.0, ["1111111111"])}


def test_a_sweeping_commit_and_files_outside_the_candidates_lend_nothing() -> None:
    files = [f"f{i}.py" for i in range(25)]
    hist = _history([list(range(25)), [3], [4]], files)
    assert recent_scores(hist, files) == {"f3.py": (pytest.approx(0.5 ** (1 / 3)),
                                                    ["2222222222"])}
    assert recent_scores(hist, ["f1.py"]) == {}


def test_the_first_commit_of_a_whole_history_is_not_work_in_progress() -> None:
    files = ["a.py", "b.py"]
    assert recent_scores(_history([[0], [0, 1]], files), files) == {"a.py": (1.0,
                                                                            ["1111111111"])}
    cut = _history([[0], [0, 1]], files)
    cut.changes = MAX_COMMITS  # a history cut at MAX_COMMITS: its last commit is not the first
    assert set(recent_scores(cut, files)) == {"a.py", "b.py"}


FILES = {"src/app/layout.py": "def draw(box):\n    return box\n",
         "src/app/version.py": "VERSION = '1.0'\n",
         "src/app/review.py": "def review():\n    pass\n"}


def test_a_follow_up_message_finds_the_file_the_last_commits_changed() -> None:
    hist = _history([[0], [1], []], ["src/app/layout.py", "src/app/version.py"])
    q = analyze("Apply suggestions from code review")
    ranked = rank(corpus_of(FILES), q, RankOptions(), hist).files
    assert [f.path for f in ranked[:2]] == ["src/app/review.py", "src/app/layout.py"], ranked
    assert ranked[1].reasons["recent"] == 0.3 and ranked[1].notes["recent"] == ["1111111111"]
    off = rank(corpus_of(FILES), q, RankOptions(ablate=frozenset({"recent"})), hist).files
    assert "src/app/layout.py" not in [f.path for f in off]


def test_a_bug_report_is_about_what_was_released_not_the_work_in_progress() -> None:
    hist = _history([[0], []], ["src/app/layout.py"])
    report = "review crashes\n\n```\n>>> review()\nTypeError: boom\n```\n"
    assert analyze(report).issue.bug_report
    ranked = rank(corpus_of(FILES), analyze(report), RankOptions(), hist).files
    assert all("recent" not in f.reasons for f in ranked)
    plain = rank(corpus_of(FILES), analyze("review crashes"), RankOptions(), hist).files
    assert any("recent" in f.reasons for f in plain)
    zero = rank(corpus_of(FILES), analyze("review crashes"),
                RankOptions(weights=Weights(recent=0.0)), hist).files
    assert all("recent" not in f.reasons for f in zero)


def test_a_bug_report_gets_no_co_change_and_a_requirement_does() -> None:
    # review.py and layout.py always changed together; the requirement names review only
    hist = _history([[0, 1], [0, 1], [0, 1], [2]], ["src/app/review.py", "src/app/layout.py",
                                                     "src/app/version.py"])
    plain = rank(corpus_of(FILES), analyze("review the layout of the review"), RankOptions(),
                 hist).files
    assert any("cochange" in f.reasons for f in plain)
    report = "review crashes\n\n```\n>>> review()\nTypeError: boom\n```\n"
    ranked = rank(corpus_of(FILES), analyze(report), RankOptions(), hist).files
    assert ranked and all("cochange" not in f.reasons for f in ranked)


LOADERS = {"loaders/mypdfloader.py": "def load(path):\n    return open(path).read()\n",
           "loaders/pdf/reader.py": "def read(path):\n    return path\n",
           "loaders/csvloader.py": "def load(path):\n    return path\n",
           "loaders/logs.py": "def load(path):\n    return path\n",
           "docs/catalog.md": "# Catalog\n"}


def test_a_word_inside_a_run_together_file_name_counts_half() -> None:
    corpus = corpus_of(LOADERS)
    assert corpus.files_named_with("pdf") == ["loaders/mypdfloader.py"]
    assert corpus.files_named_with("loader") == ["loaders/csvloader.py",
                                                 "loaders/mypdfloader.py"]
    assert corpus.files_named_with("catalog") == []  # the whole name is not inside itself
    scores = path_scores(corpus, analyze("fix the pdf rotation"))
    assert scores["loaders/pdf/reader.py"] == pytest.approx(2 * scores["loaders/mypdfloader.py"])
    assert set(scores) == {"loaders/pdf/reader.py", "loaders/mypdfloader.py"}


def test_short_words_and_numbers_are_not_looked_for_inside_names() -> None:
    corpus = corpus_of({**LOADERS, "src/v2ui.py": "x = 1\n"})
    assert corpus.files_named_with("og") == ["docs/catalog.md", "loaders/logs.py"]
    assert path_scores(corpus, analyze("og")) == {}  # two letters: too short to look inside
    assert "src/v2ui.py" not in path_scores(corpus, analyze("v2 ui"))


def test_a_requirement_that_matches_nothing_gets_no_work_in_progress() -> None:
    hist = _history([[0], []], ["src/app/layout.py"])
    assert rank(corpus_of(FILES), analyze("xyzzy plugh"), RankOptions(), hist).files == []
