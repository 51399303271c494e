"""`make demo` runs examples/demo.py with the runtime alone: the whole main job must keep
working end to end in a venv that holds genesis and its runtime dependencies, nothing else,
with node missing."""

from __future__ import annotations

import importlib.util
import os
import pty
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from genesis_git import __version__

from helpers import ROOT, make_repo, read_pty


def _run(args: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=180,
                          **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{args} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of the wheel's metadata."""
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(f"genesis_git-{__version__}.dist-info/METADATA").decode()
    return re.findall(r"^Requires-Dist: (.+)$", text, re.MULTILINE)


def runtime_closure(requirements: list[str]) -> list[metadata.Distribution]:
    """The installed distributions genesis needs at run time: its requirements without any
    extra, and theirs, as pip would resolve them here."""
    found: dict[str, metadata.Distribution] = {}
    todo: list[tuple[str, tuple[str, ...]]] = [(r, ()) for r in requirements]
    while todo:
        text, extras = todo.pop()
        req = Requirement(text)
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in (*extras, "")):
            continue
        key = canonicalize_name(req.name)
        if key in found:
            continue
        found[key] = metadata.distribution(req.name)
        todo += [(r, tuple(req.extras)) for r in found[key].requires or []]
    return list(found.values())


def runtime_venv(root: Path) -> Path:
    """A venv with the wheel of genesis installed and only its runtime dependencies on the
    path: a folder of links to exactly those distributions (no download, no dev tools, no
    extras), put on the venv's path by a ``.pth`` file."""
    dist = root / "dist"
    args: list[str | Path] = [sys.executable, "-m", "build", "--wheel", "--outdir", dist]
    if importlib.util.find_spec("hatchling") is not None:
        args.append("--no-isolation")
    _run([*args, ROOT], cwd=ROOT)
    wheel = dist / f"genesis_git-{__version__}-py3-none-any.whl"
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
          "--no-index", "--disable-pip-version-check", wheel])
    deps = root / "runtime-deps"
    deps.mkdir()
    for d in runtime_closure(wheel_requirements(wheel)):
        tops = {Path(f).parts[0] for f in d.files or []}
        for top in sorted(tops - {"..", "__pycache__"}):
            source = Path(str(d.locate_file(top)))
            if source.exists() and not top.endswith(".pth") and not (deps / top).exists():
                (deps / top).symlink_to(source)
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    (Path(site.stdout.strip()) / "_runtime_dependencies.pth").write_text(f"{deps}\n")
    return venv


@pytest.mark.slow
def test_demo_runs_with_the_runtime_alone_and_no_node(tmp_path: Path) -> None:
    venv = runtime_venv(tmp_path)
    tools = tmp_path / "tools"  # git and nothing else: node is not on this PATH
    tools.mkdir()
    (tools / "git").symlink_to(shutil.which("git") or "git")
    env = {k: v for k, v in os.environ.items()
           if k not in ("GENESIS_HOME", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(TMPDIR=str(tmp_path), PATH=f"{venv / 'bin'}{os.pathsep}{tools}")
    python = venv / "bin" / "python"

    probe = ("import importlib.util as u, genesis_git; print(genesis_git.__file__); "
             "print(*[m for m in ('mcp', 'psycopg', 'pytest', 'mypy', 'pgserver', 'mkdocs') "
             "if u.find_spec(m)])")
    where, extras = _run([python, "-c", probe], cwd=tmp_path, env=env).stdout.splitlines()
    assert Path(where).is_relative_to(venv), where
    assert extras == "", f"the demo's venv holds more than the runtime: {extras}"
    assert shutil.which("node", path=env["PATH"]) is None

    # without the extras, genesis names the command that adds one to this very install
    wheel = tmp_path / "dist" / f"genesis_git-{__version__}-py3-none-any.whl"
    plain = make_repo(tmp_path / "plain", {"a.txt": "a\n"})
    for args, extra, what in ((["mcp"], "mcp", "genesis mcp needs the MCP SDK"),
                              (["ledger", "mirror", "--url", "postgresql://u@127.0.0.1/x"],
                               "postgres", "the PostgreSQL mirror needs psycopg 3")):
        missing = subprocess.run([venv / "bin" / "genesis", *args], cwd=plain, env=env,
                                 capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        assert missing.returncode == 3, missing.stderr
        assert missing.stderr.strip().splitlines() == [
            f"genesis: error: {what}, an optional extra (install it with: {python} -m pip "
            f"install '{wheel}[{extra}]'; once genesis-git is published: "
            f"pip install 'genesis-git[{extra}]')"]

    proc = subprocess.run([python, str(ROOT / "examples" / "demo.py")], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out
    headings = re.findall(r"^== (\d+)\. ", out, re.MULTILINE)
    assert headings == [str(i) for i in range(1, 12)]
    assert "installed " in out and "/hooks/post-commit" in out
    assert f"python:   {python}" in out  # the hooks run the demo's own genesis
    assert re.search(r"started s-\S+: 2\d files, 0 cache hits", out)
    assert "impact of: 订单表新增字段 discount_code" in out
    assert "Genesis-Session: s-" in out
    assert "STORY-12: add discount code" in out and "updated  db/schema.sql" in out
    assert "discount_code is nullable; existing orders keep NULL" in out
    design = out.split("== 8. ")[1].split("== 9. ")[0]
    # the deliberate error is announced before the command that fails
    told, rejected = design.index("fails on purpose"), design.index("1 rejected")
    assert told < design.index("$ genesis design ingest inbox") < rejected
    assert "DSG-" in design
    assert design.count("node is not installed: skipped") == 1
    assert "$ node " not in design
    mate = out.split("== 10. ")[1].split("== 11. ")[0]
    assert re.search(r"ledger: pulled \d+ records from origin", mate)
    assert "discount_code is nullable; existing orders keep NULL — Demo Analyst" in mate
    assert '"pulled": 0' in mate and '"remote": "origin"' in mate
    last = out.split("== 9. ")[1].split("== 10. ")[0]
    assert re.search(r"\b0 misses\b", last) and "0 new chunks" in last
    left = out.split("== 11. ")[1]
    assert "?? .shared/" in left and "?? tasks/" in left
    assert " M " not in left and ".genesis.toml" not in left  # the settings were committed
    repo = Path(out.strip().splitlines()[-1].strip())
    assert repo.is_dir() and (repo / ".git" / "genesis" / "genesis.db").is_file()
    assert "[tool.genesis.ledger]\nshare = true" in (repo / "pyproject.toml").read_text()
    assert not (repo / ".genesis.toml").exists()


def test_demo_commands_write_to_the_terminal_itself(tmp_path: Path) -> None:
    """The demo does not capture what a command prints: on a terminal, genesis sees one."""
    code = ("import runpy, sys; from pathlib import Path; "
            f"demo = runpy.run_path({str(ROOT / 'examples' / 'demo.py')!r}); "
            "demo['run']([sys.executable, '-c', 'import sys; print(\"tty:\", "
            "sys.stdout.isatty(), sys.stderr.isatty())'], Path('.'))")
    pid, master = pty.fork()
    if pid == 0:  # the child: its stdout and stderr are the terminal
        os.chdir(tmp_path)
        os.execv(sys.executable, [sys.executable, "-c", code])
    out = read_pty(master).decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    assert "tty: True True" in out


def test_make_demo_installs_the_runtime_only() -> None:
    """`make demo` builds its own venv from `.` without the dev tools or the extras, and
    `make test` still installs them."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    demo = _run(["make", "-n", "-B", "demo", "DEMO_VENV=/nonexistent/demo-venv"], cwd=ROOT).stdout
    installs = [line for line in demo.splitlines() if " pip install " in line]
    assert installs and all(line.rstrip().endswith(" -e .") for line in installs), demo
    assert "/nonexistent/demo-venv/bin/python examples/demo.py" in demo
    test = _run(["make", "-n", "-B", "test", "VENV=/nonexistent/venv"], cwd=ROOT).stdout
    assert "pip install --quiet -e '.[dev,postgres,mcp,web]'" in test
