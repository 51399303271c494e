"""The layers of genesis, checked over the source with ``ast``: nothing imports from a higher
layer, no two packages import each other (directly or round a longer loop), and every module
stays short enough to read in one sitting.

Every import counts: at the top of a module, inside a function, or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "genesis_git"

# Low to high, one folder (a layer) each.  A module may import from its own folder and the
# folders below it.  A subfolder named here is a layer of its own, below its parent.
LAYERS: list[list[str]] = [
    ["genesis_git", "genesis_git.kernel"],  # standard library only, importable by the hooks
    ["genesis_git.text"],  # the tokenizer, query bounds, quoting, BM25
    ["genesis_git.config"],
    ["genesis_git.git"],
    ["genesis_git.store"],
    ["genesis_git.providers"],  # embedders, LLM engines, their HTTP call
    ["genesis_git.index"],  # scan, chunk, the blob cache, the session map
    ["genesis_git.rag"],  # the seed 000 API
    ["genesis_git.search"],
    ["genesis_git.stories.ledger"],  # the shared records kept in git
    ["genesis_git.stories"],
    ["genesis_git.impact"],
    ["genesis_git.check"],  # what a change forgot: history, references, tests, story, docs
    ["genesis_git.mirror", "genesis_git.design"],
    ["genesis_git.hooks"],
    ["genesis_git.app"],  # the workspace and the Genesis façade
    ["genesis_git.render"],  # text, Markdown and JSON per result type, for every door
    ["genesis_git.cli", "genesis_git.mcp", "genesis_git.web", "genesis_git.__main__"],  # the doors
]

# the folder that may import only the standard library (the hooks load it on every commit)
LIGHT = ("genesis_git.kernel",)
MAX_LINES = 450


def modules(package: Path = PACKAGE) -> Iterator[tuple[str, Path]]:
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def layer_of(module: str) -> int:
    """The layer of the longest prefix of ``module`` that the list names."""
    best, found = -1, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            within = module.startswith(name + ".") and name != "genesis_git"  # the root: itself only
            if (module == name or within) and len(name) > best:
                best, found = len(name), i
    if found < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")
    return found


def imports(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import of genesis in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from genesis_git.x import y`` may import the module genesis_git.x.y
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((node.lineno, sub if _exists(sub) else target))
    return [(line, name) for line, name in out if name.split(".")[0] == "genesis_git"]


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").is_file() or (
        PACKAGE.parent / rel / "__init__.py").is_file()


def package_of(module: str) -> str:
    """``genesis_git.index`` for ``genesis_git.index.scan``; a top-level module is its own."""
    parts = module.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def test_every_module_imports_only_from_its_layer_or_below() -> None:
    assert upward_imports() == []


def upward_imports(package: Path = PACKAGE) -> list[str]:
    """``path:line: ...`` for every import of a module from a higher layer."""
    wrong = []
    for module, path in modules(package):
        mine = layer_of(module)
        for line, target in imports(module, path):
            if layer_of(target) > mine:
                wrong.append(f"{path.relative_to(package.parent)}:{line}: {module} (layer {mine}) "
                             f"imports {target} (layer {layer_of(target)})")
    return wrong


def test_no_import_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for module, path in modules():
        src = package_of(module)
        for _, target in imports(module, path):
            dst = package_of(target)
            if dst != src and dst != "genesis_git":
                graph.setdefault(src, set()).add(dst)
    cycles = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


def test_the_light_runtime_imports_only_the_standard_library() -> None:
    import sys

    for module, path in modules():
        if not any(module == n or module.startswith(n + ".") for n in LIGHT):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        outside = [n for n in names if n.split(".")[0] not in sys.stdlib_module_names
                   and n != "__future__"
                   and not any(n == light or n.startswith(light + ".") for light in LIGHT)]
        assert outside == [], module


# the derived tables of the store; rag_store_chunks is the seed RagStore's own file
DERIVED = re.compile(r"\b(rag_(?!store_chunks)\w+|genesis_kv)\b")
GIT_DOOR = "genesis_git.kernel.gitrun"  # the only module that starts a git process
GITPYTHON_HOME = "genesis_git.git"  # the only package that imports GitPython


def code_strings(path: Path) -> Iterator[tuple[int, str]]:
    """The string constants of a module that are not docstrings, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_only_db_writes_sql_for_the_derived_tables() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for module, path in modules()
             if not module.startswith("genesis_git.store.")
             for line, text in code_strings(path) if DERIVED.search(text)]
    assert found == []


# a string that starts an SQL statement (upper case, as every statement of genesis is written)
SQL_STATEMENT = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE)\b")
# the store layer; the PostgreSQL mirror and the seed RagStore keep their own statements
SQL_OWNERS = ("genesis_git.store", "genesis_git.mirror", "genesis_git.rag.store")


def sql_outside_the_store(found: Iterable[tuple[str, Path]]) -> list[str]:
    """``path:line`` of every SQL statement string in a module outside :data:`SQL_OWNERS`."""
    return [f"{path.name}:{line}: {text.strip()[:60]}" for module, path in found
            if not any(module == o or module.startswith(o + ".") for o in SQL_OWNERS)
            for line, text in sorted(code_strings(path)) if SQL_STATEMENT.search(text)]


def test_every_sql_statement_lives_in_the_store() -> None:
    assert sql_outside_the_store(modules()) == []


def test_only_the_git_door_starts_git() -> None:
    assert git_starters() == set()


def git_starters(package: Path = PACKAGE) -> set[str]:
    """Modules other than the door that start git, or that import GitPython outside git/."""
    return {module for module, path in modules(package) if reaches_git(module, path)}


def reaches_git(module: str, path: Path) -> bool:
    if module != GIT_DOOR and any(git_commands(path)):
        return True
    in_git = module == GITPYTHON_HOME or module.startswith(GITPYTHON_HOME + ".")
    return not in_git and any(n == "git" or n.startswith("git.") for _, n in _all_imports(path))


SPAWNERS = {"Popen", "run", "call", "check_call", "check_output", "posix_spawn", "posix_spawnp",
            "execvp", "spawnlp"}


def git_commands(path: Path) -> Iterator[int]:
    """Lines where a command line starts with ``"git"``: ``["git", ...]`` or a spawn call."""
    def is_git(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and node.value == "git"

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and is_git(node.elts[0]):
            yield node.lineno
        elif isinstance(node, ast.Call) and node.args and is_git(node.args[0]):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
                node.func, "id", "")
            if name in SPAWNERS:
                yield node.lineno


def _all_imports(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.lineno, node.module or ""


def long_modules(package: Path = PACKAGE) -> dict[str, int]:
    return {module: n for module, path in modules(package)
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}


def test_modules_are_short() -> None:
    assert long_modules() == {}


def test_the_architecture_page_names_every_module() -> None:
    import fnmatch

    page = (PACKAGE.parent / "docs" / "explanation" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w/*.]+\.py|[\w]+/\*)`", page))
    missing = []
    for _, path in modules():
        rel = path.relative_to(PACKAGE).as_posix()
        if path.name == "__init__.py":
            continue
        if rel not in named and not any(fnmatch.fnmatch(rel, n) for n in named if "*" in n):
            missing.append(rel)
    assert missing == []


# -- the checker itself ---------------------------------------------------------------------

def test_the_checks_catch_a_package_that_breaks_them(tmp_path: Path) -> None:
    package = tmp_path / "genesis_git"
    rules = {
        "__init__.py": "",
        "kernel/__init__.py": "",
        "kernel/fine.py": "x = 1\n" * MAX_LINES,
        "kernel/long.py": "x = 1\n" * (MAX_LINES + 1),
        "kernel/gitrun.py": "import subprocess\nsubprocess.run(['git', 'status'])\n",
        "git/repo.py": "import git\n",
        "index/scan.py": "import subprocess\n\n\ndef f():\n    subprocess.run(['git', 'log'])\n",
        "index/blame.py": "import git\n",
        "store/connect.py": "from genesis_git.cli import main\nfrom genesis_git.text import tokens\n",
    }
    for rel, text in rules.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    assert long_modules(package) == {"genesis_git.kernel.long": MAX_LINES + 1}
    assert git_starters(package) == {"genesis_git.index.scan", "genesis_git.index.blame"}
    assert upward_imports(package) == [
        f"genesis_git/store/connect.py:1: genesis_git.store.connect (layer "
        f"{layer_of('genesis_git.store')}) imports genesis_git.cli.main (layer {len(LAYERS) - 1})"]
    assert [name for name, _ in modules(package)] == [
        "genesis_git", "genesis_git.git.repo", "genesis_git.index.blame",
        "genesis_git.index.scan", "genesis_git.kernel", "genesis_git.kernel.fine",
        "genesis_git.kernel.gitrun", "genesis_git.kernel.long", "genesis_git.store.connect"]


def test_the_checker_sees_every_kind_of_import(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("import genesis_git.cli.main\n"
                   "from genesis_git.index import scan\n"
                   "from . import repo\n"
                   "def f():\n    from genesis_git.app.facade import Genesis\n"
                   "if False:\n    from genesis_git.index.session import Context\n")
    found = [name for _, name in imports("genesis_git.git.repo", src)]
    assert found == ["genesis_git.cli.main", "genesis_git.index.scan", "genesis_git.git.repo",
                     "genesis_git.app.facade", "genesis_git.index.session"]
    assert [layer_of(n) > layer_of("genesis_git.git.repo") for n in found] == [
        True, True, False, True, True]


def test_the_string_checks_skip_docstrings_only(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text('"""Reads genesis_kv."""\n'
                   'def f(conn):\n    """From rag_chunk_cache."""\n'
                   '    return conn.execute("SELECT value FROM genesis_kv"), ["git", "log"]\n')
    strings = [text for _, text in code_strings(src)]
    assert [t for t in strings if DERIVED.search(t)] == ["SELECT value FROM genesis_kv"]
    assert list(git_commands(src)) == [4]
    src.write_text('import subprocess\nsubprocess.Popen(["git", "log"])\n'
                   'os.posix_spawnp("git", argv, env)\nFinding("git", "ok", "fine")\n')
    assert sorted(set(git_commands(src))) == [2, 3]


def test_the_sql_check_sees_a_statement_outside_the_store(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text('"""SELECT nothing: a docstring."""\n'
                   'def f(conn, ids):\n    """DELETE FROM nothing either."""\n'
                   '    conn.execute("SELECT * FROM story_records WHERE story_id=?", ("S-1",))\n'
                   '    marks = ",".join("?" * len(ids))\n'
                   '    conn.execute(f"DELETE FROM story_links WHERE id IN ({marks})", ids)\n'
                   '    conn.execute(\n        "  UPDATE sessions SET status=\'ended\'")\n'
                   '    conn.execute("CREATE TABLE t(x)")\n'
                   '    conn.execute("INSERT INTO t VALUES (1)")\n'
                   '    return "Update the index", "select a story", "PRAGMA user_version"\n')
    assert sql_outside_the_store([("genesis_git.stories.m", src)]) == [
        "m.py:4: SELECT * FROM story_records WHERE story_id=?",
        "m.py:6: DELETE FROM story_links WHERE id IN (",
        "m.py:8: UPDATE sessions SET status='ended'",
        "m.py:9: CREATE TABLE t(x)",
        "m.py:10: INSERT INTO t VALUES (1)"]
    for owner in ("genesis_git.store.m", "genesis_git.mirror.m", "genesis_git.rag.store"):
        assert sql_outside_the_store([(owner, src)]) == []
    assert sql_outside_the_store([("genesis_git.storey", src)]) != []


def test_the_git_check_names_any_other_module_that_starts_git(tmp_path: Path) -> None:
    spawns, gitpython, plain = tmp_path / "s.py", tmp_path / "g.py", tmp_path / "p.py"
    spawns.write_text('import subprocess\nsubprocess.run(["git", "status"])\n')
    gitpython.write_text("from git import Repo\n")
    plain.write_text('import os\nprint("git")\n')
    assert reaches_git("genesis_git.index.scan", spawns)
    assert reaches_git("genesis_git.git.repo", spawns)  # git/ reaches git through the door
    assert not reaches_git(GIT_DOOR, spawns)
    assert reaches_git("genesis_git.search.engine", gitpython)
    assert reaches_git(GIT_DOOR, gitpython)
    assert not reaches_git("genesis_git.git.repo", gitpython)
    assert not reaches_git("genesis_git.index.scan", plain)
    assert (PACKAGE.parent / Path(*GIT_DOOR.split("."))).with_suffix(".py").is_file()
    assert (PACKAGE.parent / Path(*GITPYTHON_HOME.split("."))).is_dir()


def test_a_module_outside_the_list_is_named() -> None:
    with pytest.raises(AssertionError, match="genesis_git.nowhere is in no layer"):
        layer_of("genesis_git.nowhere")
    assert layer_of("genesis_git.kernel.gitrun") < layer_of("genesis_git.index.scan")
    assert layer_of("genesis_git.cli.main") == len(LAYERS) - 1
