"""``genesis symbols``: definitions, references and outlines as ``path:line``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, genesis_cmd, write

pytestmark = pytest.mark.shop(files={
    **SAMPLE_FILES,
    "src/shop/refund.py": "from shop.orders import cancel_order\n\n\nclass Refunds:\n"
                          "    def cancel_order(self):\n        return cancel_order(1)\n",
    "tests/test_orders.py": "def cancel_order():\n    pass\n",
    "src/shop/limits.py": ("CART_LIMIT = 50\ncurrent_cart: dict = {}\n\n\ndef clamp(n):\n"
                           "    CART_LIMIT = 3  # a local, not the module's\n"
                           "    return min(n, CART_LIMIT)\n"),
    "web/api.js": ("function get() { return API_ROOT; }\n"
                   "export const API_ROOT = '/api';\n"),
    "docs/limits.md": "# Limits\n\n    DOC_ONLY = 1\n\nDOC_ONLY = 2 in prose.\n",
    "src/shop/base.py": "class Repository:\n    def save(self, item):\n        return item\n",
    "src/shop/carts.py": ("from shop.base import Repository\n\n\nclass Carts(Repository):\n"
                          "    def total(self):\n        return 0\n\n\nStore = Carts\n"),
})


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), "--no-pager", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_definitions_code_first_then_references(shop: Path) -> None:
    proc = run(shop, "symbols", "cancel_order", "--refs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n\n")[0].splitlines() == [
        "src/shop/orders.py:8: function cancel_order",
        "src/shop/refund.py:5: method Refunds.cancel_order",
        "tests/test_orders.py:1: function cancel_order"]
    assert proc.stdout.split("\n\n")[1].splitlines() == [
        "src/shop/refund.py:1:from shop.orders import cancel_order",
        "src/shop/refund.py:6:        return cancel_order(1)"]
    dotted = json.loads(run(shop, "symbols", "Refunds.cancel_order", "--json").stdout)
    assert [d["location"] for d in dotted["definitions"]] == ["src/shop/refund.py:5"]
    tables = json.loads(run(shop, "symbols", "orders", "--json").stdout)
    assert [(d["kind"], d["location"]) for d in tables["definitions"]] == [
        ("table", "db/schema.sql:1")]


def test_a_module_level_variable_is_a_definition_too(shop: Path) -> None:
    for name, expected in (("CART_LIMIT", "src/shop/limits.py:1: variable CART_LIMIT"),
                           ("current_cart", "src/shop/limits.py:2: variable current_cart"),
                           ("API_ROOT", "web/api.js:2: variable API_ROOT")):
        proc = run(shop, "symbols", name)
        assert (proc.returncode, proc.stdout) == (0, expected + "\n"), (name, proc.stderr)
    write(shop, "src/shop/fresh.py", "FRESH = 1\n")  # untracked: the working tree counts
    assert run(shop, "symbols", "FRESH").stdout == "src/shop/fresh.py:1: variable FRESH\n"
    assert run(shop, "symbols", "DOC_ONLY").returncode == 1  # prose defines nothing
    refs = json.loads(run(shop, "symbols", "CART_LIMIT", "--refs", "--json").stdout)
    assert [r["location"] for r in refs["references"]] == [
        "src/shop/limits.py:6", "src/shop/limits.py:7"]


def test_a_method_a_class_inherits_is_found_where_it_is_defined(shop: Path) -> None:
    proc = run(shop, "symbols", "Store.save")  # an alias of Carts, which derives from Repository
    assert (proc.returncode, proc.stdout) == (
        0, "src/shop/base.py:2: method Repository.save (inherited by Store)\n")
    data = json.loads(run(shop, "symbols", "Carts.save", "--json").stdout)
    assert [(d["location"], d["via"]) for d in data["definitions"]] == [
        ("src/shop/base.py:2", ["Carts", "Repository"])]
    own = json.loads(run(shop, "symbols", "Carts.total", "--json").stdout)["definitions"]
    assert [(d["location"], "via" in d) for d in own] == [("src/shop/carts.py:5", False)]
    assert run(shop, "symbols", "Carts.missing").returncode == 1


def test_a_name_written_as_code_is_the_name(shop: Path) -> None:
    for written in ("Carts.save()", "`Carts.save`", "Carts.save(", "def Carts.save"):
        proc = run(shop, "symbols", written)
        assert (proc.returncode, proc.stdout) == (
            0, "src/shop/base.py:2: method Repository.save (inherited by Carts)\n"), written
    for written in ("cancel_order()", ".cancel_order", "def cancel_order"):
        proc = run(shop, "symbols", written)
        assert proc.stdout.splitlines()[0] == "src/shop/orders.py:8: function cancel_order", \
            (written, proc.stdout, proc.stderr)
    assert run(shop, "symbols", "Store.").stdout == "src/shop/carts.py:9: variable Store\n"
    asked = json.loads(run(shop, "symbols", "Carts.total()", "--json").stdout)
    assert asked["name"] == "Carts.total()"  # as asked
    assert [d["location"] for d in asked["definitions"]] == ["src/shop/carts.py:5"]
    assert run(shop, "symbols", "Carts[0]").returncode == 1  # no name: nothing found


def test_outline_from_a_subfolder_sees_an_unsaved_edit(shop: Path) -> None:
    write(shop, "src/shop/orders.py", SAMPLE_FILES["src/shop/orders.py"]
          + "\n\ndef archive_order(order_id):\n    return None\n")
    proc = run(shop / "src", "symbols", "--outline", "shop/orders.py")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "src/shop/orders.py:1: class OrderController",
        "src/shop/orders.py:4: method OrderController.create_order",
        "src/shop/orders.py:8: function cancel_order",
        "src/shop/orders.py:12: function archive_order"]


def test_nothing_found_is_1_and_bad_arguments_are_2(shop: Path) -> None:
    none = run(shop, "symbols", "NoSuchThing")
    assert (none.returncode, none.stdout) == (1, "")
    for args, message in (
            ([], "genesis: error: give NAME or --outline PATH (one of them)"),
            (["x", "--outline", "README.md"], "genesis: error: give NAME or --outline PATH"),
            (["--outline", "../elsewhere.py"], "genesis: error: --outline: ../elsewhere.py is "
                                              "outside the repository"),
            (["--outline", "README.md", "--refs"], "genesis: error: --refs and --path go with "
                                                  "NAME, not with --outline")):
        bad = run(shop, "symbols", *args)
        assert bad.returncode == 2, (args, bad.stderr)
        assert bad.stderr.startswith(message) and len(bad.stderr.splitlines()) == 1, bad.stderr
    missing = run(shop, "symbols", "--outline", "src/nope.py")
    assert missing.returncode == 1
    assert missing.stderr.startswith("genesis: error: src/nope.py: not a file of this session")
