"""``genesis init``: the store and a commented default config, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.config.settings import CONFIG_FILE, default_config_text, load_config
from genesis_git.git.repo import Repo, find_repo
from genesis_git.store.connect import connect, store_path
from genesis_git.stories.ledger.sync import Binder, ledger_remotes


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


def _ledger_value(text: str, key: str) -> tuple[int | None, str | None, list[str]]:
    """``(line index, value as written, lines)`` of ``key`` in the ``[ledger]`` section."""
    import re

    lines = text.splitlines()
    section = None
    for i, line in enumerate(lines):
        bare = line.strip()
        if bare.startswith("["):
            section = bare.strip("[] ")
            continue
        match = re.match(rf"{key}\s*=\s*(.*?)\s*(?:#.*)?$", bare)
        if section == "ledger" and match:
            return i, match[1], lines
    return None, None, lines


def _set_ledger(cfg_path: Path, key: str, value: str) -> bool:
    """Write ``key = value`` into the ``[ledger]`` section of ``.genesis.toml`` (the section
    is added when missing); False when the file already said so."""
    text = cfg_path.read_text(encoding="utf-8") if cfg_path.exists() else ""
    at, old, lines = _ledger_value(text, key)
    if old == value:
        return False
    if at is not None:
        lines[at] = f"{key} = {value}"
    else:
        for i, line in enumerate(lines):
            if line.strip() == "[ledger]":
                lines.insert(i + 1, f"{key} = {value}")
                break
        else:
            lines += ["", "# the story ledger is shared through the git remote (genesis sync)",
                      "[ledger]", f"{key} = {value}"]
    cfg_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return True


def enable_share(cfg_path: Path, remotes: list[str] | None = None) -> bool:
    """Write ``[ledger] share = true`` into ``.genesis.toml``, and ``remotes`` (the remotes
    that get the ledger) when given or when the file names none yet; False if nothing
    changed."""
    from genesis_git.config.schema import toml_value

    changed = _set_ledger(cfg_path, "share", "true")
    if not remotes:
        return changed
    return _set_ledger(cfg_path, "remotes", toml_value(list(remotes))) or changed


def share_remotes(repo: Repo, cfg_path: Path, named: list[str]) -> list[str]:
    """The remotes ``init --share`` writes: those ``named`` (each must exist), else the ones
    the file names already, else the remote init sees (the branch's upstream, ``origin``,
    the only remote), else none."""
    from genesis_git.kernel.errors import UsageError
    from genesis_git.stories.ledger.sync import default_remote, remotes

    have = remotes(repo.root)
    for name in named:
        if name not in have:
            raise UsageError(f"no remote named {name!r}", hint="see `git remote -v`")
    if named:
        return list(dict.fromkeys(named))
    text = cfg_path.read_text(encoding="utf-8") if cfg_path.exists() else ""
    if _ledger_value(text, "remotes")[1] is not None:
        return []  # the file names them already
    seen = default_remote(repo.root, repo.git_dir)
    return [seen] if seen else []


def init_repo(path: Path | str | None = None, *, share: bool = False,
              share_with: list[str] | None = None,
              sync: bool = True, bind: Binder | None = None) -> dict[str, Any]:
    """The store and ``.genesis.toml``; with ``share``, ``[ledger] share = true`` and
    ``[ledger] remotes`` (``share_with``, default the remote init sees).  When
    sharing is on (now or already), the remote's ledger is pulled into the new store, and
    ``bind`` (given by the core) binds the story commits of the history it brings."""
    repo = find_repo(path)
    if share_with and not share:
        from genesis_git.kernel.errors import UsageError

        raise UsageError("--remote names where the ledger is shared: give it with --share")
    cfg_path = repo.root / CONFIG_FILE
    wanted = share_remotes(repo, cfg_path, share_with or []) if share else []
    db = store_path(repo)
    store_created = not db.exists()
    connect(db).close()
    config_created = False
    if not cfg_path.exists():
        cfg_path.write_text(default_config_text(), encoding="utf-8")
        config_created = True
    share_set = enable_share(cfg_path, wanted) if share else False
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
        "share_remotes": ledger_remotes(repo.root, config),
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
        except (GitError, OSError) as exc:
            warnings.append(f"the shared ledger was not pulled: {exc}")
        finally:
            conn.close()
        result["warnings"] = warnings
    return result
