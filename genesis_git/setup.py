"""``genesis init``: the store and a commented default config, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.config import CONFIG_FILE, default_config_text, load_config
from genesis_git.db.connect import connect, store_path
from genesis_git.repo import find_repo


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
    load_config(repo.root)  # fail now, with one line, on a broken config
    return {
        "repository": str(repo.root),
        "store": str(db),
        "store_created": store_created,
        "config": str(cfg_path),
        "config_created": config_created,
    }
