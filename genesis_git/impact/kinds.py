"""What kind of file a path is: lock, vendored, generated, data files (ranked low) and
changelogs (ranked by their own text only, never by history)."""

from __future__ import annotations

import re

from genesis_git.index.chunk import PROSE_EXTENSIONS
from genesis_git.index.facts import has_generated_mark

LOCK_NAMES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock",
    "pipfile.lock", "cargo.lock", "go.sum", "composer.lock", "gemfile.lock", "uv.lock",
    "pdm.lock", "mix.lock", "pubspec.lock", "podfile.lock", "packages.lock.json", "flake.lock",
    "bun.lockb", "requirements.lock",
})
_VENDOR_DIRS = ("vendor", "vendors", "third_party", "third-party", "thirdparty", "node_modules",
                "bower_components", "site-packages", "_vendor")
_GENERATED_NAME = re.compile(
    r"(_pb2(_grpc)?\.pyi?|\.pb\.go|\.pb\.(cc|h)|_generated\.\w+|\.generated\.\w+|\.g\.dart|"
    r"\.min\.(js|css)|\.bundle\.js|\.map)$", re.IGNORECASE)
_GENERATED_DIRS = ("dist", "generated", "__generated__", ".next")
_CHANGELOG = re.compile(r"^(changes|changelog|change_log|history|news|release[-_ ]?notes|"
                        r"releases|whatsnew|whats[-_]new)([-_.][\w.-]*)?$", re.IGNORECASE)

_DOC_EXT = {"", *(e[1:] for e in PROSE_EXTENSIONS)}  # CHANGES, CHANGES.md, …

_DATA_EXT = {"csv", "tsv", "jsonl", "ndjson", "parquet", "arff"}

PENALTY = {"lock": 0.15, "vendored": 0.3, "generated": 0.3, "data": 0.5}


def file_flags(path: str, head_text: str = "", *, marked: bool | None = None) -> list[str]:
    """``lock``, ``vendored``, ``generated``, ``data`` and/or ``changelog`` for one path (sorted).

    ``marked`` is :func:`has_generated_mark` of the head when it is known already."""
    flags: set[str] = set()
    parts = path.split("/")
    base = parts[-1]
    low = base.lower()
    if low in LOCK_NAMES or low.endswith(".lock"):
        flags.add("lock")
    if any(p.lower() in _VENDOR_DIRS for p in parts[:-1]):
        flags.add("vendored")
    if _GENERATED_NAME.search(base) or any(p.lower() in _GENERATED_DIRS for p in parts[:-1]):
        flags.add("generated")
    elif has_generated_mark(head_text) if marked is None else marked:
        flags.add("generated")
    if low.rsplit(".", 1)[-1] in _DATA_EXT and "." in low:
        flags.add("data")
    stem, _, ext = low.partition(".")
    if ext in _DOC_EXT and _CHANGELOG.match(stem):
        flags.add("changelog")
    elif len(parts) > 1 and parts[-2].lower() in ("changelog", "changes", "changelog.d",
                                                  "newsfragments", "changes.d"):
        flags.add("changelog")
    return sorted(flags)


def penalty_factor(flags: list[str]) -> float:
    """The multiplier for a file's score: the lowest of its flags' penalties (1.0 for none)."""
    factor = 1.0
    for f in flags:
        factor = min(factor, PENALTY.get(f, 1.0))
    return factor
