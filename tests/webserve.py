"""``genesis web`` as the tests run it: a real subprocess on a free port (``--port 0``, its URL
read from the first line of stdout), stopped with SIGTERM; every wait is bounded.  Also the
story the page tests read: a real clone of a real bare remote with the hooks installed, a
requirement document, notes of every role (one of them an XSS attempt) and story commits."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from clones import clone, commit, env_of, gen, make_remote
from helpers import write

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> \x1b[31mred'
REQUIREMENT = """# Discount codes at checkout

A customer can enter one **discount code** at checkout; the order keeps it.

| field | type | meaning |
|---|---|---|
| discount_code | TEXT | the code entered |

<b>raw html stays text</b>

- a code applies once per order
- an expired code is refused
"""


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> tuple[int, str, str]:
        """Send ``sig``, wait for the end: ``(returncode, rest of stdout, stderr)``."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=5)
            raise AssertionError(f"genesis web did not stop on signal {sig}: {err!r}") from None
        return self.proc.returncode, out.decode(), err.decode()


def start(cwd: Path, *args: str, timeout: float = 30, env: dict[str, str] | None = None
          ) -> Server:
    """``genesis web --port 0 ARGS`` in ``cwd``; its URL once the first line is printed."""
    proc = subprocess.Popen([sys.executable, "-m", "genesis_git", "web", "--port", "0", *args],
                            cwd=cwd, env=env or env_of(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    line = b""
    while time.monotonic() < deadline and not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            byte = os.read(fd, 1)  # unbuffered: the rest stays in the pipe for communicate
            if not byte:
                break
            line += byte
    if not line.startswith(b"http://"):
        proc.kill()
        out, err = proc.communicate(timeout=5)
        raise AssertionError(f"genesis web printed no URL ({proc.returncode}): "
                             f"{(line + out + err).decode(errors='replace')}")
    return Server(line.decode().strip(), proc)


@contextmanager
def served(cwd: Path, *args: str) -> Iterator[Server]:
    server = start(cwd, *args)
    try:
        yield server
    finally:
        server.stop()


def get(url: str, *, host: str | None = None, method: str = "GET",
        timeout: float = 30) -> tuple[int, dict[str, str], str]:
    """``(status, headers, body)`` of one request (a foreign ``Host`` when given)."""
    req = urllib.request.Request(url, method=method, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, \
                resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, \
            exc.read().decode("utf-8")


def story_clones(tmp: Path) -> tuple[Path, Path]:
    """Ana (analyst) starts STORY-7 with its requirement, notes and a commit, and shares it;
    Bo (tester) clones later and syncs: ``(ana, bo)``.  A second story, STORY-8, is Bo's."""
    remote = make_remote(tmp)
    ana = clone(remote, tmp, "ana")
    commit(ana, "docs/req/discount.md", REQUIREMENT, "docs: the discount requirement")
    gen(ana, "session", "start", "--doc", "docs/req/discount.md")
    gen(ana, "session", "note", "Codes are case-insensitive", "--role", "decision")
    gen(ana, "session", "note", "Refunds may count a discount twice", "--role", "risk")
    gen(ana, "session", "note", "--role", "analysis", "--", XSS)
    commit(ana, "app/orders.py",
           "def total(items, discount_code=None):\n    return sum(items)\n",
           "STORY-7: discount code on orders")
    write(ana, "db/schema.sql", "CREATE TABLE orders (id INTEGER, discount_code TEXT);\n")
    commit(ana, "db/schema.sql", "CREATE TABLE orders (id INTEGER, discount_code TEXT);\n",
           "STORY-7: the orders table keeps the code")
    gen(ana, "story", "link", "STORY-7", "--type", "ticket", "--target", "JIRA-42",
        "--description", "the ticket")
    subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=ana, env=env_of(),
                   check=True, capture_output=True, timeout=120)
    gen(ana, "sync")
    bo = clone(remote, tmp, "bo")
    gen(bo, "sync")
    gen(bo, "session", "start")
    gen(bo, "session", "note", "Test a code twice on one order", "--role", "test_model")
    commit(bo, "tests/test_orders.py", "def test_total():\n    assert True\n",
           "STORY-8: a test of the order total")
    gen(bo, "story", "set", "STORY-8", "--status", "review")
    return ana, bo
