"""What the tests share: real git repositories, the real command, the design library's
fixtures, and one fake OpenAI-compatible server (embeddings and chat) on 127.0.0.1.

Fixtures live in ``conftest.py``; everything a test imports lives here.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typer.testing import Result

    from genesis_git.design.library import Library

ROOT = Path(__file__).resolve().parents[1]


# -- git repositories ------------------------------------------------------------------------

def git(cwd: Path, *args: str, input: str | None = None, check: bool = True,
        env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, input=input, text=True,
                          capture_output=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def make_repo(path: Path, files: dict[str, str] | None = None, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    for rel, text in (files or {}).items():
        write(path, rel, text)
    if commit and files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


SAMPLE_FILES = {
    "README.md": "# Shop\n\nAn order service.\n\n## Usage\n\nRun the server.\n",
    "src/shop/orders.py": (
        "class OrderController:\n"
        "    \"\"\"Handles order requests.\"\"\"\n\n"
        "    def create_order(self, customer_id, items):\n"
        "        return {'customer': customer_id, 'items': items}\n\n\n"
        "def cancel_order(order_id):\n"
        "    return order_id\n"
    ),
    "db/schema.sql": "CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n  total NUMERIC\n);\n",
    "docs/req/orders.md": "# 订单需求\n\n## 新增字段\n\n订单表新增字段 discount_code。\n",
}


def build_repo(path: Path, files: dict[str, str], message: str, *, home: Path) -> Path:
    """Commit what ``path`` holds plus ``files`` into a new repository at ``path``, with git
    reading no configuration but the repository's own (``home`` stands in for $HOME)."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "GIT_CONFIG_NOSYSTEM": "1"}
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        env[var] = "Test User"
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        env[var] = "test@example.com"
    path.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        write(path, rel, text)
    git(path, "init", "-q", "-b", "main", env=env)
    for key, value in (("user.name", "Test User"), ("user.email", "test@example.com"),
                       ("commit.gpgsign", "false")):
        git(path, "config", key, value, env=env)
    git(path, "add", "-A", env=env)
    git(path, "commit", "-q", "-m", message, env=env)
    return path


def commit_files(root: Path, msg: str, files: dict[str, str | None] | None = None,
                 *extra: str) -> str:
    """Write (or, for ``None``, remove) files, commit them with ``msg``; the new HEAD."""
    for rel, text in (files or {}).items():
        if text is None:
            git(root, "rm", "-q", rel)
        else:
            write(root, rel, text)
            git(root, "add", rel)
    git(root, "commit", "-q", "-m", msg, *extra)
    return git(root, "rev-parse", "HEAD").strip()


# -- the store -----------------------------------------------------------------------------------

# -- a session with notes, as the hooks find it ----------------------------------------------

def open_session(root: Path, home: Path, *notes: str | tuple[str, str], sid: str = "s-1",
                 doc: str | None = None, hooks: bool = True) -> None:
    """Install the real hooks in ``root`` (unless ``hooks`` is false) and store an active
    session ``sid`` for it in ``home``'s store, with ``notes``: a text is a decision, a
    ``(role, text)`` pair keeps its role."""
    from genesis_git.git.repo import find_repo
    from genesis_git.hooks import install
    from genesis_git.store.connect import connect

    if hooks:
        install.install(find_repo(root), python=sys.executable)
    conn = connect(home / "genesis.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree, status, source_doc) VALUES "
                 "(?, 'repo', ?, 'active', ?)", (sid, str(root), doc))
    for note in notes:
        role, text = ("decision", note) if isinstance(note, str) else note
        conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, "
                     "summary) VALUES (?, 'repo', ?, ?)", (sid, role, text))
    conn.close()


def query(home: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` in ``home``'s store, read with plain sqlite3."""
    import sqlite3

    conn = sqlite3.connect(home / "genesis.db")
    try:
        return [tuple(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


# -- a transport that hangs ------------------------------------------------------------------

def hanging_ssh(folder: Path) -> tuple[Path, Path]:
    """An ``ssh`` stand-in that never answers and starts a child of its own; both pids are
    appended to the second path returned, so a test can check that none outlives a bound."""
    pids = folder / "ssh.pids"
    ssh = folder / "slow-ssh"
    ssh.write_text(f"#!/bin/sh\nsleep 120 &\necho $! >> {pids}\necho $$ >> {pids}\nwait\n")
    ssh.chmod(0o755)
    return ssh, pids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def survivors(pids: Path, expected: int = 2, grace: float = 2.0) -> list[int]:
    """The processes listed in ``pids`` still alive after ``grace`` seconds (killed, so that
    none is left behind); asserts that ``expected`` of them had started."""
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == expected, started
    end = time.monotonic() + grace
    while any(_alive(p) for p in started) and time.monotonic() < end:
        time.sleep(0.05)
    left = [p for p in started if _alive(p)]
    for pid in left:
        os.kill(pid, 9)
    return left


def cached_chunks(conn: Any, session_id: str | None = None
                  ) -> list[tuple[str | None, str, int, int, str, list[str]]]:
    """``(path, blob_sha, start_line, end_line, text, tokens)`` of the cached chunks, read from
    the blobs' packs: one row per path and chunk of a session's map with ``session_id``, else
    one per chunk of every cached blob (path ``None``)."""
    from genesis_git.index import packs
    from genesis_git.index.cache import read_packs
    from genesis_git.store import blobs

    paths: dict[int, list[str | None]] = {}
    if session_id is None:
        for bid in conn.execute("SELECT id FROM rag_blob_cache"):
            paths[int(bid[0])] = [None]
    else:
        for path, bid in conn.execute("SELECT path, blob_id FROM rag_session_chunk_map "
                                      "WHERE session_id=? AND blob_id IS NOT NULL", (session_id,)):
            paths.setdefault(int(bid), []).append(path)
    shas = {int(r[0]): str(r[1]) for r in conn.execute("SELECT id, blob_sha FROM rag_blob_cache")}
    texts: dict[int, tuple[list[str], list[list[str]]]] = {
        bid: (packs.decode_texts(t), packs.decode_terms(k).token_lists())
        for bid, _, t, k in read_packs(conn, list(paths), ("texts", "terms"))}
    out: list[tuple[str | None, str, int, int, str, list[str]]] = []
    seen: dict[int, int] = {}
    for bid, start, end, *_ in blobs.chunk_lines(conn, sorted(texts)):
        n = seen[bid] = seen.get(bid, -1) + 1
        for path in paths[bid]:
            out.append((path, shas[bid], start, end, texts[bid][0][n], texts[bid][1][n]))
    return out


# -- the command -------------------------------------------------------------------------------

def genesis_cmd() -> list[str]:
    """The real console entry point, as a subprocess argv."""
    return [sys.executable, "-m", "genesis_git"]


def read_pty(master: int) -> bytes:
    """Everything written to a pseudo-terminal until its other side closes."""
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks)


# -- the design library ------------------------------------------------------------------------

LIB = Path(".shared/design-library")
INBOX_EXAMPLE = ROOT / "examples" / "design-inbox"


def design(*args: str) -> Result:
    """``genesis design ARGS`` in the current directory, through the real app."""
    from typer.testing import CliRunner

    from genesis_git.cli.main import app

    return CliRunner().invoke(app, ["design", *args])


def ok(*args: str) -> Result:
    res = design(*args)
    assert res.exit_code == 0, f"design {' '.join(args)}: {res.exit_code}\n{res.output}"
    return res


def lib_of(root: Path) -> Library:
    from genesis_git.design.library import open_library

    return open_library(root)


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mtime (ns) of every file below ``folder``."""
    out: dict[str, tuple[str, int]] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out[p.relative_to(folder).as_posix()] = (
                hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


def copy_inbox(root: Path, *, unknown_license_for_empty: bool = False) -> None:
    inbox = root / LIB / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    for p in INBOX_EXAMPLE.iterdir():
        shutil.copy(p, inbox / p.name)
    if unknown_license_for_empty:
        meta_path = inbox / "empty-list.meta.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["license"] = "unknown"
        meta_path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")


def node() -> str:
    exe = shutil.which("node")
    assert exe, "the reader tests need Node.js >= 20 on PATH"
    return exe


def run_reader(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NODE_")}
    return subprocess.run([node(), str(root / LIB / "query.mjs"), *args], cwd=root,
                          capture_output=True, text=True, encoding="utf-8", env=env, timeout=60)


def card(n: int, title: str, tags: list[str], tokens: dict[str, Any], rationale: str,
         summary: str = "", dos: list[str] | None = None, donts: list[str] | None = None,
         license: str = "CC-BY-4.0", status: str = "active") -> dict[str, Any]:
    """A card as another library's manifest would hold it."""
    return {"id": f"SRC-{n:04d}", "title": title, "summary": summary, "tags": tags,
            "source": {"kind": "user", "ref": f"fixture board {n}", "license": license},
            "tokens": tokens, "rationale": rationale, "dos": dos or [], "donts": donts or [],
            "images": [], "status": status, "weight": 1.0}


def tok(name: str, value: Any, unit: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "value": value}
    if unit:
        out["unit"] = unit
    return out


def write_manifest(path: Path, cards: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schemaVersion": 1, "cards": cards}, ensure_ascii=False,
                               indent=2), encoding="utf-8")
    return path


# -- one fake OpenAI-compatible server: /v1/embeddings and /v1/chat/completions ----------------

CHAT_ANSWER = {"impacts": [{"target": "orders.discount_code", "kind": "field",
                            "path": "db/schema.sql", "lines": [15, 25], "type": "add",
                            "detail": "new column"}]}


class FakeOpenAI:
    """A real HTTP server on 127.0.0.1 that answers as an OpenAI-compatible endpoint.

    Embeddings come from the hashing embedder (so they are meaningful); a chat
    completion answers :data:`CHAT_ANSWER` as JSON.  ``mode`` makes it misbehave on
    purpose: ``"500"``, ``"401"``, ``"garbage"``, ``"slow"``, and for embeddings
    ``"short"`` and ``"reversed"``.  Every request is recorded.
    """

    def __init__(self, dim: int = 32, mode: str = "ok"):
        from genesis_git.providers.embedders import HashingEmbedder

        self.dim = dim
        self.mode = mode
        self.requests: list[dict[str, Any]] = []
        self._embedder = HashingEmbedder(dim)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "body": body,
                                        "auth": self.headers.get("Authorization")})
                server.answer(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if self.mode == "500":
            self._send(handler, 500, b'{"error": {"message": "model exploded"}}')
            return
        if self.mode == "401":
            self._send(handler, 401, b'{"error": {"message": "invalid api key"}}')
            return
        if self.mode == "garbage":
            self._send(handler, 200, b"<html>hello</html>")
            return
        if self.mode == "slow":
            time.sleep(1.5)
        if handler.path.rstrip("/").endswith("/chat/completions"):
            message = {"role": "assistant", "content": json.dumps(CHAT_ANSWER)}
            self._send(handler, 200, json.dumps({"choices": [{"message": message}]}).encode())
            return
        vectors = self._embedder.embed(list(body.get("input") or []))
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        if self.mode == "short":
            data = data[:-1]
        if self.mode == "reversed":
            data = list(reversed(data))
        payload = {"object": "list", "data": data, "model": body.get("model")}
        self._send(handler, 200, json.dumps(payload).encode())

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, raw: bytes) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(raw)))
            handler.end_headers()
            handler.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass

    def embed(self, texts: list[str]) -> list[list[float]]:
        """What the server would answer, for comparing in tests."""
        return self._embedder.embed(texts)


@contextmanager
def running(dim: int = 32, mode: str = "ok") -> Iterator[FakeOpenAI]:
    """A :class:`FakeOpenAI` serving for the ``with`` block, then shut down."""
    server = FakeOpenAI(dim, mode)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(timeout=5)


def free_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def load_module(path: Path, name: str) -> ModuleType:
    """A Python file that is not a package module (a bench script, another test file),
    loaded as module ``name``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
