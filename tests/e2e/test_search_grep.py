"""``genesis search -F/-E``: every matching line of the session's files, like ``git grep -n``,
files ranked; the working tree as it is now."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, genesis_cmd, git, write

pytestmark = pytest.mark.shop(files={
    **SAMPLE_FILES,
    "src/shop/refund.py": "from shop.orders import cancel_order\n\n\ndef refund(order_id):\n"
                          "    return cancel_order(order_id)  # ORDER_ID\n",
    "docs/notes.md": "Orders: see order_id and \x1b[31mred order_id\x1b[0m.\n",
    "assets/logo.bin": "order_id\0\0binary",
})


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), "--no-pager", *args], cwd=root, capture_output=True,
                          text=True, timeout=120)


def test_fixed_strings_find_what_git_grep_finds_with_unsaved_edits(shop: Path) -> None:
    write(shop, "src/shop/draft.py", "def draft(order_id):\n    return order_id\n")  # untracked
    write(shop, "docs/notes.md", "nothing here any more\n")  # an edit not yet committed
    proc = run(shop, "search", "-F", "order_id")
    assert proc.returncode == 0, proc.stderr
    got = {tuple(line.split(":", 2)[:2]) for line in proc.stdout.splitlines()}
    git(shop, "add", "-N", "src/shop/draft.py")  # so that git grep sees it too
    ours = subprocess.run(["git", "grep", "-n", "-I", "-F", "order_id"], cwd=shop,
                          capture_output=True, text=True).stdout
    assert got == {tuple(line.split(":", 2)[:2]) for line in ours.splitlines()}
    lines = proc.stdout.splitlines()
    # files with a definition line that holds it, a tie by path; lines in file order
    assert [line.split(":")[0] for line in lines] == [
        "src/shop/draft.py", "src/shop/draft.py", "src/shop/orders.py", "src/shop/orders.py",
        "src/shop/refund.py", "src/shop/refund.py"]
    assert lines[0] == "src/shop/draft.py:1:def draft(order_id):"
    assert not any(line.startswith("docs/notes.md") for line in lines)
    assert not any(line.startswith("assets/") for line in lines)


def test_regex_ignore_case_limits_json_and_exit_codes(shop: Path) -> None:
    data = json.loads(run(shop, "search", "-E", "-i", r"order_id\b", "--json").stdout)
    assert data["mode"] == "regex" and data["ignore_case"] is True
    assert {m["location"] for m in data["matches"]} >= {"src/shop/refund.py:5",
                                                         "docs/notes.md:1"}
    refund = [m for m in data["matches"] if m["location"] == "src/shop/refund.py:5"][0]
    assert refund["column"] == 25 and refund["definition"] is False
    top = json.loads(run(shop, "search", "-F", "order_id", "-k", "1", "--json").stdout)
    assert [f["path"] for f in top["files"]] == ["src/shop/orders.py"]
    assert top["files_left_out"] == 2
    plain = run(shop, "search", "-F", "red order_id")
    assert plain.stdout == "docs/notes.md:1:Orders: see order_id and red order_id.\n"
    nothing = run(shop, "search", "-F", "zanzibar")
    assert (nothing.returncode, nothing.stdout) == (1, "")
    for args, message in (
            (["-E", "("], "genesis: error: not a valid regular expression: missing ), "
                          "unterminated subpattern at position 0"),
            (["-F", "-E", "x"], "genesis: error: -F/--fixed-strings and -E/--regex cannot "
                                "be used together"),
            (["-F", "--files", "x"], "genesis: error: --files does not go with -F or -E"),
            (["-i", "x"], "genesis: error: -i/--ignore-case goes with -F or -E")):
        bad = run(shop, "search", *args)
        assert bad.returncode == 2, (args, bad.stderr)
        assert bad.stderr.splitlines()[0].startswith(message), bad.stderr
        assert len(bad.stderr.splitlines()) == 1
