"""``genesis init``: the store and a commented default config, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.config.settings import CONFIG_FILE, default_config_text, load_config
from genesis_git.git.repo import Repo, find_repo
from genesis_git.store.connect import connect, store_path
from genesis_git.stories.ledger.sync import Binder


def history_prefixes(repo: Repo, limit: int = 5000, top: int = 5) -> list[dict[str, Any]]:
    """The most frequent story-id prefixes in the last ``limit`` commits (the default
    pattern without the never-binding tokens), so that ``init`` can propose
    ``story.prefixes``."""
    from collections import Counter

    from genesis_git.stories.commits import StoryRules, log_commits, story_ids

    if repo.head_sha() is None:
        return []
    pattern = StoryRules().effective
    counts: Counter[str] = Counter()
    for commit in log_commits(repo, ["HEAD"], ("-n", str(limit))):
        for sid in story_ids(commit, pattern):
            counts[sid.rsplit("-", 1)[0]] += 1
    return [{"prefix": p, "commits": n} for p, n in counts.most_common(top)]


def enable_share(cfg_path: Path) -> bool:
    """Write ``[ledger] share = true`` into ``.genesis.toml``; False if it was there."""
    import re

    text = cfg_path.read_text(encoding="utf-8") if cfg_path.exists() else ""
    lines = text.splitlines()
    section = None
    for i, line in enumerate(lines):
        bare = line.strip()
        if bare.startswith("["):
            section = bare.strip("[] ")
            continue
        if section == "ledger" and re.match(r"share\s*=", bare):
            if re.match(r"share\s*=\s*true\b", bare):
                return False
            lines[i] = "share = true"
            cfg_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return True
    for i, line in enumerate(lines):
        if line.strip() == "[ledger]":
            lines.insert(i + 1, "share = true")
            break
    else:
        lines += ["", "# the story ledger is shared through the git remote (genesis sync)",
                  "[ledger]", "share = true"]
    cfg_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return True


def init_repo(path: Path | str | None = None, *, share: bool = False,
              sync: bool = True, bind: Binder | None = None) -> dict[str, Any]:
    """The store and ``.genesis.toml``; with ``share``, ``[ledger] share = true``.  When
    sharing is on (now or already), the remote's ledger is pulled into the new store, and
    ``bind`` (given by the core) binds the story commits of the history it brings."""
    repo = find_repo(path)
    db = store_path(repo)
    store_created = not db.exists()
    connect(db).close()
    cfg_path = repo.root / CONFIG_FILE
    config_created = False
    if not cfg_path.exists():
        cfg_path.write_text(default_config_text(), encoding="utf-8")
        config_created = True
    share_set = enable_share(cfg_path) if share else False
    config = load_config(repo.root)  # fail now, with one line, on a broken config
    result: dict[str, Any] = {
        "story_prefixes": history_prefixes(repo),
        "prefixes_set": config.list("story.prefixes"),
        "repository": str(repo.root),
        "store": str(db),
        "store_created": store_created,
        "config": str(cfg_path),
        "config_created": config_created,
        "share": config.bool("ledger.share"),
        "share_set": share_set,
        "sync": None,
    }
    if config.bool("ledger.share") and sync:
        from genesis_git.stories.ledger.gitref import GitError
        from genesis_git.stories.ledger.sync import sync as run_sync

        conn = connect(db)
        warnings: list[str] = []
        try:
            result["sync"] = run_sync(conn, repo, config, store_dir=db.parent,
                                      warn=warnings.append, bind=bind)
            if result["sync"]["error"]:
                warnings.append(f"the shared ledger was not synced: {result['sync']['error']}")
        except (GitError, OSError) as exc:
            warnings.append(f"the shared ledger was not pulled: {exc}")
        finally:
            conn.close()
        result["warnings"] = warnings
    return result
