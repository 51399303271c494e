"""``genesis impact`` on a follow-up message: the files the last commits changed (the work in
progress) are found and say why; the first commit (the project's start) is not work in
progress, and a bug report does without."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app

from helpers import commit_files, make_repo

runner = CliRunner()

FILES = {"src/app/__init__.py": "",
         "src/app/layout.py": "def draw(box):\n    return box\n",
         "src/app/version.py": "VERSION = '1.0'\n",
         "src/app/review.py": "def review():\n    pass\n",
         "docs/guide.md": "# Guide\n\nHow to draw a box.\n"}


@pytest.fixture
def app_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "app", FILES)
    commit_files(root, "Draw boxes with a width",
                 {"src/app/layout.py": "def draw(box, width):\n    return box\n"})
    monkeypatch.chdir(root)
    return root


def _impact(*args: str) -> dict[str, Any]:
    res = runner.invoke(app, ["impact", "--json", "-k", "5", *args])
    assert res.exit_code == 0, res.output
    out: dict[str, Any] = json.loads(res.stdout)
    return out


def test_a_follow_up_commit_message_finds_the_last_commits_file(app_repo: Path) -> None:
    out = _impact("--", "Apply suggestions from the code review")
    files = {f["path"]: f for f in out["files"]}
    ranked = list(files)
    assert "src/app/layout.py" in ranked, ranked
    assert "src/app/version.py" not in ranked  # only the first commit, the project's start, had it
    assert files["src/app/layout.py"]["reasons"] == {"recent": 0.3}
    head = (app_repo / ".git" / "refs" / "heads" / "main").read_text()[:10]
    why = next(i["detail"] for i in out["impacts"] if i["path"] == "src/app/layout.py")
    assert why.startswith("changed by the last commits (" + head), why
    assert out["weak_evidence"] is True  # nothing in the message names the file


def test_no_history_leaves_the_work_in_progress_out(app_repo: Path) -> None:
    out = _impact("--no-history", "--", "Apply suggestions from the code review")
    assert all("recent" not in f["reasons"] for f in out["files"])


def test_a_bug_report_is_not_pulled_towards_the_last_commits(app_repo: Path) -> None:
    report = "review fails\n\n```\n>>> from app.review import review\n>>> review(1)\n" \
             "TypeError: review() takes 0 positional arguments but 1 was given\n```\n"
    out = _impact("--", report)
    assert out["files"][0]["path"] == "src/app/review.py"
    assert all("recent" not in f["reasons"] for f in out["files"])
