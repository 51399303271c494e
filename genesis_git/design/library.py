"""The library folder as storage: its layout, safe paths, atomic writes, the manifest, the lock.

Every read and write of the design library goes through :meth:`Library.path`,
which resolves the path (symlinks included) and refuses anything outside the
library folder.  Files are written atomically (a temporary file in the same
folder, then ``os.replace``) and only when their bytes change, so a command
that changes nothing leaves every file byte-identical.  What is done with a
library as a whole (``init``, ``stats``, its health) is :mod:`genesis_git.design.manage`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config, load_config
from genesis_git.git.repo import Repo, find_repo
from genesis_git.kernel import locks
from genesis_git.kernel.errors import GenesisError

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
INDEX = "index.json"
FEEDBACK = "feedback.jsonl"
READER = "query.mjs"
REFS = "refs"
INBOX = "inbox"
GITIGNORE = ".gitignore"
LOCK = ".lock"
GITIGNORE_TEXT = "# written by genesis design init: scratch files of the library\n/.lock\n*.tmp-*\n"


class PathEscape(GenesisError):
    """A path that would leave the folder it must stay in."""


class LibraryUnavailable(GenesisError):
    """The library is missing, or its manifest or index cannot be read."""


def now_iso() -> str:
    """UTC time with milliseconds; ``SOURCE_DATE_EPOCH`` pins it for reproducible libraries."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        moment = datetime.fromtimestamp(int(epoch), tz=timezone.utc)
    else:
        moment = datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dump_json(obj: Any) -> str:
    """The one JSON layout of library files: UTF-8 kept, two-space indent, trailing newline."""
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def inside(base: Path, rel: str | Path, *, what: str = "path") -> Path:
    """``base / rel`` resolved, refused when it is absolute or resolves outside ``base``."""
    text = str(rel)
    if not text or "\0" in text:
        raise PathEscape(f"{what} {text!r} is not a valid path")
    candidate = Path(text)
    if candidate.is_absolute():
        raise PathEscape(f"{what} {text} is absolute; it must be relative to {base}",
                         hint="paths inside the library are relative")
    root = base.resolve()
    resolved = (root / candidate).resolve()
    if resolved != root and root not in resolved.parents:
        raise PathEscape(f"{what} {text} leaves {root}",
                         hint="traversal (..) and symlinks that point outside are refused")
    return resolved


def inside_repo(repo_root: Path, given: str | Path, *, what: str) -> Path:
    """A user-given input path (relative to the cwd) that must lie inside the working tree."""
    raw = Path(given)
    full = (raw if raw.is_absolute() else Path.cwd() / raw).resolve()
    root = repo_root.resolve()
    if full != root and root not in full.parents:
        raise PathEscape(f"{what} {given} is outside the repository {root}",
                         hint="copy it into the working tree first")
    return full


def read_json_input(repo_root: Path, given: str | Path, *, what: str, label: str,
                    unreadable: str = "cannot be read",
                    error: type[GenesisError] = GenesisError) -> tuple[Path, Any, bytes]:
    """Parse a user-given JSON file inside the working tree: its path, value and bytes.

    One clear ``error`` line otherwise; ``label`` starts each message
    (``"baseline b.json"``) and ``unreadable`` names a file that does not parse.
    """
    path = inside_repo(repo_root, given, what=what)
    try:
        data = path.read_bytes()
        return path, json.loads(data.decode("utf-8")), data
    except FileNotFoundError:
        raise error(f"{label}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{label} {unreadable}: {exc}") from None


def reader_bytes() -> bytes:
    """The packaged zero-dependency reader, ``query.mjs``."""
    from importlib import resources

    return resources.files("genesis_git.design").joinpath(READER).read_bytes()


def engine_sha256() -> str:
    return sha256_bytes(reader_bytes())


@dataclass
class Library:
    """One design library folder, with the repository and configuration it belongs to."""

    root: Path
    repo_root: Path
    config: Config

    # -- paths -----------------------------------------------------------
    def path(self, rel: str | Path) -> Path:
        return inside(self.root, rel)

    @property
    def shared_dir(self) -> Path:
        """The folder the two readers share (``.shared/``): the library's parent."""
        return self.root.parent

    def shared_path(self, name: str) -> Path:
        return inside(self.shared_dir, name, what="shared file")

    def display(self, path: Path) -> str:
        """``path`` relative to the repository root when it lies inside it."""
        try:
            return path.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def exists(self) -> bool:
        return self.path(MANIFEST).is_file()

    # -- files -------------------------------------------------------------
    def read_bytes(self, rel: str | Path) -> bytes:
        return self.path(rel).read_bytes()

    def write_bytes(self, rel: str | Path, data: bytes) -> bool:
        """Write atomically; ``False`` (and no write) when the bytes are already there."""
        target = self.path(rel)
        return _write_atomic(target, data)

    def write_text(self, rel: str | Path, text: str) -> bool:
        return self.write_bytes(rel, text.encode("utf-8"))

    def append_text(self, rel: str | Path, text: str) -> None:
        target = self.path(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as fh:
            fh.write(text)

    # -- manifest ------------------------------------------------------------
    def load_manifest(self) -> dict[str, Any]:
        target = self.path(MANIFEST)
        if not target.is_file():
            raise LibraryUnavailable(f"no design library at {self.display(self.root)}",
                                     hint="run `genesis design init`")
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LibraryUnavailable(
                f"{self.display(target)} cannot be read: {exc}",
                hint="restore it from git (git checkout -- the file)") from None
        if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
            raise LibraryUnavailable(f"{self.display(target)} is not a design library manifest",
                                     hint="restore it from git (git checkout -- the file)")
        if int(data.get("schemaVersion", 0)) > SCHEMA_VERSION:
            raise LibraryUnavailable(f"{self.display(target)} was written by a newer genesis",
                                     hint="upgrade genesis (pip install -U genesis-git)")
        return data

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """An exclusive lock on the library for one writing command."""
        self.root.mkdir(parents=True, exist_ok=True)
        return file_lock(self.path(LOCK))


@contextlib.contextmanager
def file_lock(lock: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold ``lock`` for the duration of the block (:mod:`genesis_git.kernel.locks`: a holder that
    dies lets go of it)."""
    try:
        with locks.hold(lock, timeout):
            yield
    except locks.Busy:
        raise GenesisError(f"the design library is busy ({lock})",
                           hint="another genesis command is writing it; try again when it "
                           "is done") from None


def _write_atomic(target: Path, data: bytes) -> bool:
    try:
        if target.read_bytes() == data:
            return False
    except OSError:
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return True


def library_root(repo_root: Path, config: Config) -> Path:
    raw = Path(config.settings.design.library_dir)
    return (raw if raw.is_absolute() else repo_root / raw).resolve()


def open_library(path: Path | str | None = None, *, repo: Repo | None = None,
                 config: Config | None = None) -> Library:
    """The library of the repository that contains ``path`` (default: the cwd)."""
    repo = repo or find_repo(path)
    config = config or load_config(repo.root)
    return Library(library_root(repo.root, config), repo.root, config)
