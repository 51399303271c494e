"""The sample project under examples/shop stays complete, small, and working."""

from __future__ import annotations

import os
import subprocess
import sys

from genesis_git.index.classify import CodeOwners, artifact_type, content_hint

from helpers import ROOT

SHOP = ROOT / "examples" / "shop"

EXPECTED = {
    "app/controllers/order_controller.py": "CODE",
    "app/services/order_service.py": "CODE",
    "app/services/user_service.py": "CODE",
    "app/models/order.py": "DB",
    "app/api/routes.py": "API",
    "app/api/schemas.py": "CODE",
    "app/templates/order_detail.html": "UI",
    "db/schema.sql": "DB",
    "db/migrations/0002_add_order_status.sql": "DB",
    "tests/test_order_service.py": "CODE",
    "docs/req/订单需求说明.md": "REQ",
    "docs/req/user-login.md": "REQ",
    "docs/arch/architecture.md": "ARCH",
    "docs/arch/订单模块设计.md": "ARCH",
    "docs/api/orders-api.md": "API",
    "docs/db/orders-table.md": "DB",
}


def _files() -> list[str]:
    return sorted(p.relative_to(SHOP).as_posix() for p in SHOP.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts
                  and ".pytest_cache" not in p.parts)


def test_every_kind_of_artifact_is_there_and_classified() -> None:
    files = _files()
    for rel, kind in EXPECTED.items():
        assert rel in files, rel
        text = (SHOP / rel).read_text(encoding="utf-8")
        assert artifact_type(rel, content_hint(rel, text)) == kind, rel
    for rel in ("CODEOWNERS", "README.md", "pyproject.toml"):
        assert rel in files


def test_codeowners_routes_reviews() -> None:
    owners = CodeOwners((SHOP / "CODEOWNERS").read_text(encoding="utf-8"))
    assert owners.owner("db/schema.sql") == "@dba-team"
    assert owners.owner("app/templates/order_detail.html") == "@frontend"
    assert owners.owner("docs/req/订单需求说明.md") == "@analysts"
    assert owners.owner("app/services/order_service.py") == "@shop-team"


def test_sample_is_small_and_has_no_discount_code_yet() -> None:
    files = _files()
    assert 20 <= len(files) <= 30
    for rel in files:
        text = (SHOP / rel).read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 120, rel
        assert "discount" not in text.lower(), f"{rel} mentions discount: the demo adds it"


def test_the_sample_tests_pass() -> None:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
                          cwd=SHOP, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "8 passed" in proc.stdout
