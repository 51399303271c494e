"""`make demo` runs examples/demo.py: the whole main job must keep working end to end."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="the demo's reader step needs node")
def test_demo_runs_the_main_job(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GENESIS_HOME"}
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    headings = re.findall(r"^== (\d+)\. ", out, re.MULTILINE)
    assert headings == [str(i) for i in range(1, 11)]
    assert "installed " in out and "/hooks/post-commit" in out
    assert re.search(r"started s-\S+: 2\d files, 0 cache hits", out)
    assert "impact of: 订单表新增字段 discount_code" in out
    assert "Genesis-Session: s-" in out
    assert "STORY-12: add discount code" in out and "updated  db/schema.sql" in out
    assert "discount_code is nullable; existing orders keep NULL" in out
    assert "rejected" in out  # the inbox card without a license
    assert "DSG-" in out
    mate = out.split("== 10. ")[1]
    assert re.search(r"ledger: pulled \d+ records from origin", mate)
    assert "discount_code is nullable; existing orders keep NULL — Demo Analyst" in mate
    assert '"pulled": 0' in mate and '"remote": "origin"' in mate
    last = out.split("== 9. ")[1].split("== 10. ")[0]
    assert re.search(r"\b0 misses\b", last) and "0 new chunks" in last
    repo = Path(out.strip().splitlines()[-1].strip())
    assert repo.is_dir() and (repo / ".git" / "genesis" / "genesis.db").is_file()
