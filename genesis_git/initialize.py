"""``genesis init``: the store and a commented default config, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.config import CONFIG_FILE, default_config_text, load_config
from genesis_git.db.connect import connect, store_path
from genesis_git.repo import Repo, find_repo


def history_prefixes(repo: Repo, limit: int = 5000, top: int = 5) -> list[dict[str, Any]]:
    """The most frequent story-id prefixes in the last ``limit`` commits (the default
    pattern without the never-binding tokens), so that ``init`` can propose
    ``story.prefixes``."""
    from collections import Counter

    from genesis_git.story.commits import StoryRules, parse_log, story_ids

    if repo.head_sha() is None:
        return []
    from genesis_git.story.commits import LOG_FORMAT

    out = repo.git("log", "-z", "-n", str(limit), f"--format={LOG_FORMAT}", "HEAD", "--",
                   check=False)
    pattern = StoryRules().effective
    counts: Counter[str] = Counter()
    for commit in parse_log(out):
        for sid in story_ids(commit, pattern):
            counts[sid.rsplit("-", 1)[0]] += 1
    return [{"prefix": p, "commits": n} for p, n in counts.most_common(top)]


def init_repo(path: Path | str | None = None) -> dict[str, Any]:
    repo = find_repo(path)
    db = store_path(repo)
    store_created = not db.exists()
    connect(db).close()
    cfg_path = repo.root / CONFIG_FILE
    config_created = False
    if not cfg_path.exists():
        cfg_path.write_text(default_config_text(), encoding="utf-8")
        config_created = True
    config = load_config(repo.root)  # fail now, with one line, on a broken config
    return {
        "story_prefixes": history_prefixes(repo),
        "prefixes_set": config.list("story.prefixes"),
        "repository": str(repo.root),
        "store": str(db),
        "store_created": store_created,
        "config": str(cfg_path),
        "config_created": config_created,
    }
