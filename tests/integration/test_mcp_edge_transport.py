"""The transport and the workspaces of ``genesis mcp``, in a real process and real repositories:
stderr that nobody reads never blocks the server, and one repository's long call holds
that repository only."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from genesis_git.app.workspaces import Workspaces

from helpers import make_repo

WHILE_SERVING = textwrap.dedent("""
    import os, subprocess, sys
    from genesis_git.mcp.transport import claimed_stdio

    with claimed_stdio(sys.argv[1]) as (wire_in, wire_out):
        for n in range(4000):  # 400 KB through sys.stderr, far past a pipe's 64 KiB
            sys.stderr.write(f"traceback line {n} " + "x" * 80 + "\\n")
        os.write(2, b"y" * 200_000)  # and through the descriptor itself
        subprocess.run([sys.executable, "-c",
                        "import sys; sys.stdout.write('z' * 200000); "
                        "sys.stderr.write('w' * 200000)"], check=True)
        print("stray print")  # not into the protocol
        wire_out.write(b'{"served": true}\\n')
        wire_out.flush()
    sys.stderr.write("after serving\\n")
""")


def test_while_serving_nothing_blocks_on_stderr_or_reaches_the_wire(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "genesis.log"
    proc = subprocess.Popen([sys.executable, "-c", WHILE_SERVING, str(log)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # stderr: a pipe nobody reads (yet)
    assert proc.stdout is not None and proc.stderr is not None
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.read()), daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive(), "the process blocked writing to an unread stderr"
    assert proc.wait(timeout=60) == 0
    assert got == [b'{"served": true}\n']  # the stray print and the child missed the wire
    text = log.read_text()
    assert "traceback line 0 " in text and "traceback line 3999 " in text
    assert proc.stderr.read() == b"after serving\n"  # stderr is back once serving ends


def test_one_repository_held_does_not_hold_another(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "first", {"a.md": "# First\n"})
    second = make_repo(tmp_path / "second", {"b.md": "# Second\n"})
    workspaces = Workspaces(limit=1)
    holding, release = threading.Event(), threading.Event()
    waited: list[float] = []

    def long_call() -> None:
        with workspaces.using(str(first)):
            holding.set()
            release.wait(60)

    def same_repository() -> None:
        start = time.monotonic()
        with workspaces.using(str(first)):
            waited.append(time.monotonic() - start)

    worker = threading.Thread(target=long_call)
    worker.start()
    try:
        assert holding.wait(60)
        start = time.monotonic()
        with workspaces.using(str(second)) as g:
            assert g.workspace.repo.root == second.resolve()
            assert set(workspaces.roots()) == {first.resolve(), second.resolve()}
        assert time.monotonic() - start < 30
        # over the limit of 1: the free one is closed, never the one a call still uses
        assert workspaces.roots() == [first.resolve()]
        queued = threading.Thread(target=same_repository)
        queued.start()
        time.sleep(0.5)
        assert not waited  # the same repository waits for the call that holds it
    finally:
        release.set()
        worker.join(60)
    queued.join(60)
    assert waited and waited[0] >= 0.4
    with workspaces.using(str(second)) as g:
        assert g.workspace.repo.root == second.resolve()
    assert workspaces.roots() == [second.resolve()]  # the limit is kept once first is free
    workspaces.close()
