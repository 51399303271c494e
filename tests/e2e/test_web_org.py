"""``genesis web --org``: the stories of every repository in a real PostgreSQL mirror, each row
saying which project it came from."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from clones import clone, commit, env_of, gen, make_remote
from webserve import get, served

pytest.importorskip("psycopg")
pytest.importorskip("starlette")
pytestmark = pytest.mark.slow


def _project(tmp: Path, name: str, who: str, mirror: str | None) -> Path:
    (tmp / name).mkdir()
    root = clone(make_remote(tmp / name), tmp / name, who)
    if mirror is not None:
        (root / ".genesis.toml").write_text(f'[ledger]\nshare = true\nmirror = "{mirror}"\n')
    return root


def test_org_lists_stories_across_repositories_with_their_projects(tmp_path: Path,
                                                                   pg_db) -> None:
    shop = _project(tmp_path, "shop", "ana", pg_db.url)
    billing = _project(tmp_path, "billing", "cy", pg_db.url)
    commit(shop, "app/cart.py", "def cart():\n    pass\n", "STORY-21: the cart keeps a code")
    commit(billing, "app/invoice.py", "def invoice():\n    pass\n",
           "STORY-21: the invoice shows the code")
    commit(billing, "app/tax.py", "def tax():\n    pass\n", "STORY-22: <i>tax</i> rounding")
    for root in (shop, billing):
        gen(root, "ledger", "mirror")
    projects = {"shop": str(tmp_path / "shop" / "remote.git"),
                "billing": str(tmp_path / "billing" / "remote.git")}
    with served(billing, "--org") as server:
        status, _, body = get(server.url + "stories")
        assert status == 200 and "2 of 2 stories in the mirror at " in body
        rows = dict(re.findall(r'href="/stories/(STORY-\d+)">.*?<td>((?:<span class=tag>'
                               r'[^<]*</span>)*)</td>', body))
        tags = {sid: re.findall(r"<span class=tag>([^<]*)</span>", cell)
                for sid, cell in rows.items()}
        assert len(tags["STORY-21"]) == 2 and len(tags["STORY-22"]) == 1
        assert all(any(p.endswith(name) or name in p for p in tags["STORY-21"])
                   for name in ("shop", "billing")), (tags, projects)
        assert "&lt;i&gt;tax&lt;/i&gt; rounding" in body
        status, _, body = get(server.url + "stories/STORY-21")
        assert status == 200
        timeline = body[body.index('id="timeline"'):body.index('id="files"')]
        assert timeline.count('data-kind="commit"') == 2
        assert "the cart keeps a code" in timeline and "the invoice shows the code" in timeline
        assert 'id="look-at"' not in body  # no index across repositories
        assert get(server.url + "search?q=cart")[0] == 404


def test_org_without_a_mirror_is_one_line(tmp_path: Path) -> None:
    root = _project(tmp_path, "shop", "ana", None)
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "web", "--org", "--port", "0"],
                          cwd=root, env=env_of(), capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("genesis: error: --org needs the PostgreSQL mirror (set [ledger] "
                           "mirror (or GENESIS_LEDGER_MIRROR) to its URL)\n")
