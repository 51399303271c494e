"""``genesis search`` on a session that nothing changed loads what a search needs and not the
indexing machinery (the indexer, the scan, the work pool, the chunkers, the file metadata,
the base builder), nor the ledger's view when no ledger ref moved; an edit still loads the
indexer and is found."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import genesis_cmd, write

INDEXING = ("genesis_git.index.indexer", "genesis_git.index.scan", "genesis_git.index.pool",
            "genesis_git.index.prepare", "genesis_git.index.metadata",
            "genesis_git.search.base.stream", "genesis_git.stories.ledger.view")

# the console script's entry point, reporting the modules it loaded when it leaves
RUN = """import json, sys
import genesis_git.cli.main as main
main._exit = lambda code: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
sys.argv = ["genesis", *sys.argv[1:]]
main.run()
"""


def search_modules(root: Path, query: str, command: str = "search"
                   ) -> tuple[dict[str, object], set[str]]:
    proc = subprocess.run([sys.executable, "-c", RUN, command, "--json", query], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stderr.rsplit("MODULES ", 1)[1])
    return json.loads(proc.stdout), set(modules)


def test_a_search_of_an_unchanged_session_leaves_the_indexer_unloaded(repo: Path) -> None:
    subprocess.run([*genesis_cmd(), "search", "order"], cwd=repo, check=True,
                   capture_output=True, timeout=120)  # the session and its search base
    found, modules = search_modules(repo, "order")
    assert found["results"]
    assert "genesis_git.search.engine" in modules
    assert [m for m in INDEXING if m in modules] == []

    write(repo, "src/zebra_notes.py", "def zebra_stripes_counted():\n    return 42\n")
    found, modules = search_modules(repo, "zebra_stripes_counted")
    assert [r["path"] for r in found["results"]][:1] == ["src/zebra_notes.py"]
    assert "genesis_git.index.prepare" in modules  # the edit was indexed by this process
    assert "genesis_git.index.indexer" in modules

    found, modules = search_modules(repo, "zebra_stripes_counted")  # a name: its definition
    assert [r["path"] for r in found["results"]][:1] == ["src/zebra_notes.py"]
    assert "genesis_git.search.exact" in modules
    assert "numpy.ma" not in modules  # np.unique would load it: ~10 ms of a search's start


def test_symbols_loads_neither_numpy_nor_the_impact_pipeline(repo: Path) -> None:
    write(repo, "src/shelf.py", "class Store:\n    def save(self):\n        pass\n\n\n"
                                "class Carts(Store):\n    pass\n")
    subprocess.run([*genesis_cmd(), "search", "Carts"], cwd=repo, check=True,
                   capture_output=True, timeout=120)  # the edit indexed
    found, modules = search_modules(repo, "Carts.save", command="symbols")
    assert [(d["name"], d["via"]) for d in found["definitions"]] == [  # type: ignore[index]
        ("Store.save", ["Carts", "Store"])]
    assert "genesis_git.search.inherit" in modules  # the class walk ran
    assert [m for m in modules if m.split(".")[0] == "numpy"] == []
    assert [m for m in modules if m.startswith("genesis_git.impact.")] == [
        "genesis_git.impact.facts"]  # the symbols' facts; not the pipeline
