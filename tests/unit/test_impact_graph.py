"""The reference graph: imports, definitions, tables and their columns (genesis_git.impact.graph)."""

from __future__ import annotations

from genesis_git.impact.corpus import Corpus
from genesis_git.impact.corpus_text import corpus_from_rag
from genesis_git.impact.graph import build_graph, column_tokens
from genesis_git.providers.embedders import FakeEmbedder
from genesis_git.rag.impact_rag import ImpactRAG
from genesis_git.rag.store import RagStore


def corpus_of(files: dict[str, str]) -> Corpus:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    rag.index("t", sorted(files.items()))
    return corpus_from_rag(rag, "t")


PY = {
    "src/shop/__init__.py": "from shop.core import Order\n",
    "src/shop/core.py": "class Order:\n    pass\n",
    "src/shop/api/routes.py": (
        "from ..core import Order\nfrom . import schemas\nimport shop.util as u, os\n"),
    "src/shop/api/__init__.py": "",
    "src/shop/api/schemas.py": "from shop.core import (\n    Order,\n)\n",
    "src/shop/util.py": "def helper():\n    return 1\n",
    "tests/test_core.py": "from shop import core\nimport shop\n",
}


def test_python_imports_resolve_to_files() -> None:
    g = build_graph(corpus_of(PY))
    assert g.imports["src/shop/api/routes.py"] == {
        "src/shop/core.py", "src/shop/api/schemas.py", "src/shop/util.py"}
    assert g.imports["src/shop/api/schemas.py"] == {"src/shop/core.py"}
    assert g.imports["tests/test_core.py"] == {"src/shop/__init__.py", "src/shop/core.py"}
    assert g.imports["src/shop/__init__.py"] == {"src/shop/core.py"}
    assert g.importers["src/shop/core.py"] == {
        "src/shop/__init__.py", "src/shop/api/routes.py", "src/shop/api/schemas.py",
        "tests/test_core.py"}
    assert g.imports["src/shop/util.py"] == set()


def test_javascript_relative_imports_resolve() -> None:
    g = build_graph(corpus_of({
        "web/src/App.tsx": "import { Order } from './models/order'\nimport x from 'react'\n",
        "web/src/models/order.ts": "export interface Order { id: number }\n",
        "web/src/pages/index.js": "const api = require('../api')\nimport('../App')\n",
        "web/src/api/index.js": "export const get = 1\n",
    }))
    assert g.imports["web/src/App.tsx"] == {"web/src/models/order.ts"}
    assert g.imports["web/src/pages/index.js"] == {"web/src/api/index.js", "web/src/App.tsx"}


def test_tables_from_ddl_alter_and_orm_with_their_columns() -> None:
    g = build_graph(corpus_of({
        "db/schema.sql": (
            "-- users\nCREATE TABLE users (\n  id INTEGER PRIMARY KEY,\n  email TEXT\n);\n\n"
            "CREATE TABLE IF NOT EXISTS \"orders\" (\n  id INTEGER PRIMARY KEY,\n"
            "  customer_id INTEGER NOT NULL REFERENCES users(id),\n"
            "  total_cents NUMERIC(10, 2) NOT NULL, -- money\n  status TEXT,\n"
            "  CONSTRAINT chk CHECK (status IN ('a', 'b')),\n  PRIMARY KEY (id)\n);\n"),
        "db/migrations/0002.sql": "ALTER TABLE orders ADD COLUMN gift TEXT;\n",
        "app/models/order.py": (
            "class Order(Model):\n    __tablename__ = \"orders\"\n\n"
            "    id = Column(\"INTEGER\", primary_key=True)\n"
            "    shipping_address: str = mapped_column(Text)\n"
            "    note = models.CharField(max_length=10)\n"),
    }))
    assert sorted(g.tables) == ["order", "user"]
    orders = g.tables["order"]
    assert orders.name == "orders"
    assert orders.paths == ["app/models/order.py", "db/migrations/0002.sql", "db/schema.sql"]
    assert orders.lines["db/schema.sql"] == (7, 14)
    assert orders.lines["db/migrations/0002.sql"] == (1, 1)
    assert orders.columns == ["id", "shipping_address", "note", "customer_id", "total_cents",
                              "status"]
    assert column_tokens(orders) == ["shippingaddress", "note", "customerid", "totalcent",
                                     "status"]
    assert g.tables["user"].columns == ["id", "email"]


def test_symbols_index_classes_functions_and_methods() -> None:
    g = build_graph(corpus_of({"svc.py": (
        "class OrderService:\n" + "".join(f"    x{i} = {i}\n" for i in range(90)) +
        "    def create(self):\n        return 1\n\n\ndef cancel_order():\n    pass\n")}))
    assert ("svc.py", "OrderService.create", 92, 93) in g.symbols["create"]
    assert g.symbols["orderservice"][0][:2] == ("svc.py", "OrderService")
    assert g.symbols["cancelorder"] == [("svc.py", "cancel_order", 96, 97)]


def test_lazy_graph_gives_the_same_answers() -> None:
    corpus = corpus_of(PY)
    eager = build_graph(corpus)
    lazy = build_graph(corpus, wanted={"order", "helper"}, eager_imports=False)
    assert lazy.importers == {} and lazy.imports == {}
    for path in corpus.files:
        assert lazy.imports_of(path) == eager.imports[path]
    assert sorted(lazy.symbols) == ["helper", "order"]
    assert lazy.symbols["order"] == eager.symbols["order"]


def test_a_symbol_every_file_calls_lends_its_callers_less_than_a_rare_one() -> None:
    from genesis_git.impact.analyse import analyze
    from genesis_git.impact.signals import graph_scores

    files = {"pkg/core.py": "def everywhere():\n    pass\n\n\ndef seldom():\n    pass\n",
             "pkg/rare_user.py": "from pkg.core import seldom\n\nseldom()\n"}
    for i in range(30):
        files[f"pkg/user{i}.py"] = "from pkg.core import everywhere\n\neverywhere()\n"
    corpus = corpus_of(files)
    graph = build_graph(corpus)

    def lent(requirement: str) -> dict[str, float]:
        q = analyze(requirement)
        terms = corpus.text_scores(q.weights)[3]
        raw, why = graph_scores(graph, q, {"pkg/core.py": 1.0}, corpus.flags, terms)
        assert all(seed == "pkg/core.py" for ws in why.values() for _, seed in ws)
        return raw

    common = lent("everywhere() returns the wrong value")
    rare = lent("seldom() returns the wrong value")
    assert set(common) == {f"pkg/user{i}.py" for i in range(30)}
    assert set(rare) == {"pkg/rare_user.py"}
    assert rare["pkg/rare_user.py"] == 1.0  # one caller in 32 files: all of the seed's weight
    assert 0 < max(common.values()) < 0.6 * rare["pkg/rare_user.py"]
