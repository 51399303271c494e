"""A Chinese query on English code, through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers import genesis_cmd, make_repo

FILES = {
    "src/termui.py": (
        "class ProgressBar:\n    \"\"\"Draws a bar that shows how far an iteration got.\"\"\"\n\n"
        "    def __init__(self, length, width=36):\n        self.length = length\n"
        "        self.width = width\n\n"
        "    def render(self):\n        filled = int(self.width * self.pos / self.length)\n"
        "        return '#' * filled + '-' * (self.width - filled)\n"),
    "src/pager.py": "def echo_via_pager(text):\n    \"\"\"Show text through a pager.\"\"\"\n    return text\n",
    "src/config.py": "def load_settings(path):\n    return open(path).read()\n",
    "README.md": "# termui\n\nTerminal helpers.\n",
}


def search(root: Path, *args: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), "search", *args], cwd=root, capture_output=True,
                          text=True, encoding="utf-8", env={**os.environ, **(env or {})},
                          timeout=120)


def test_a_chinese_query_finds_the_english_code(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "termui", FILES)
    proc = search(root, "--json", "-k", "3", "进度条 宽度")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["results"][0]["path"] == "src/termui.py"
    terms = {t["term"]: t for t in out["terms"]}
    assert {"progressbar", "width"} <= set(out["results"][0]["matched_terms"]), out["results"][0]
    assert terms["width"] == {"term": "width", "weight": 0.5, "origin": "lexicon:宽度"}
    assert terms["progressbar"]["origin"] == "lexicon:进度条"


def test_under_the_c_locale_too(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "termui", FILES)
    proc = search(root, "--files", "-k", "2", "分页器", env={"LC_ALL": "C", "LANG": "C"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split("\t")[0] == "src/pager.py"


def test_chinese_with_no_english_counterpart_still_says_nothing_matches(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "termui", FILES)
    proc = search(root, "鼹鼠")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "no chunk matches" in proc.stderr and "Traceback" not in proc.stderr


def test_impact_reads_a_chinese_requirement_on_english_code_too(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "termui", FILES)
    proc = subprocess.run([*genesis_cmd(), "impact", "--json", "-k", "3", "进度条 宽度"],
                          cwd=root, capture_output=True, text=True, encoding="utf-8",
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["files"][0]["path"] == "src/termui.py"
    assert any(i.get("symbol") == "ProgressBar" or "ProgressBar" in json.dumps(i)
               for i in out["impacts"]), out["impacts"]
