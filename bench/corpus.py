"""The standard-library corpus shared by the benchmarks.

:func:`build_stdlib_corpus` makes a git repository from the text files of the
running Python's standard library (about 2,000 files and 35 MB on CPython
3.11), committed once.  With ``copies > 1`` the whole library is copied
under ``copy0/``, ``copy1/``, … to show how a cost grows with size.

The repository is built once per destination: a later call with the same
arguments finds the marker file and returns at once.

    python bench/corpus.py /tmp/corpus --copies 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}
MARKER = ".corpus-built"


def stdlib_text_files(root: Path | None = None) -> list[tuple[str, bytes]]:
    """(relative path, content) of every UTF-8 text file of the standard library, sorted."""
    base = Path(root or sysconfig.get_paths()["stdlib"])
    out: list[tuple[str, bytes]] = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if b"\0" in data[:8192]:
                continue
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append((path.relative_to(base).as_posix(), data))
    return out


def _git(dest: Path, *args: str) -> None:
    env = dict(os.environ)
    env.update({"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
                "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
                "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"})
    subprocess.run(["git", *args], cwd=dest, check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def build_stdlib_corpus(dest: Path, copies: int = 1) -> Path:
    """A committed git repository at ``dest`` holding the standard library's text files.

    ``copies == 1`` puts the library at the root; ``copies > 1`` puts one copy
    under each of ``copy0/`` … ``copy<N-1>/``.  Returns ``dest``.
    """
    if copies < 1:
        raise ValueError("copies must be at least 1")
    dest = Path(dest)
    stamp = f"copies={copies}\n"
    marker = dest / ".git" / MARKER
    if marker.is_file() and marker.read_text() == stamp:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files = stdlib_text_files()
    prefixes = [""] if copies == 1 else [f"copy{i}/" for i in range(copies)]
    for prefix in prefixes:
        for rel, data in files:
            target = dest / (prefix + rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "config", "commit.gpgsign", "false")
    _git(dest, "config", "core.autocrlf", "false")
    _git(dest, "add", "-A", "-f")
    _git(dest, "commit", "-q", "-m", "standard library corpus")
    marker.write_text(stamp)
    return dest


def compile_genesis() -> None:
    """Byte-compile the genesis package, as ``pip install`` leaves it.

    Timings of a short command should not include compiling its modules, which
    happens on every run when the environment sets PYTHONDONTWRITEBYTECODE.
    """
    import compileall

    import genesis_git

    compileall.compile_dir(str(Path(genesis_git.__file__).parent), quiet=1)


def corpus_stats(dest: Path) -> tuple[int, int]:
    """(files, bytes) tracked by the corpus at ``dest``."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=dest, check=True,
                         capture_output=True).stdout
    paths = [p for p in out.split(b"\0") if p]
    return len(paths), sum((dest / p.decode()).stat().st_size for p in paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args(argv)
    path = build_stdlib_corpus(args.dest, args.copies)
    n, size = corpus_stats(path)
    print(f"{path}: {n} files, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
