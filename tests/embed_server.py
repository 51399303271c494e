"""A real OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1 for tests.

It embeds with the hashing embedder, so its vectors are meaningful; ``mode``
makes it misbehave on purpose (``"500"``, ``"garbage"``, ``"short"``,
``"slow"``, ``"401"``).  Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from genesis_git.rag.embeddings import HashingEmbedder


class EmbedServer:
    def __init__(self, dim: int = 32, mode: str = "ok"):
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
        texts = body.get("input") or []
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
        vectors = self._embedder.embed(list(texts))
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
def running(dim: int = 32, mode: str = "ok") -> Iterator[EmbedServer]:
    server = EmbedServer(dim, mode)
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
