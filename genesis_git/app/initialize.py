"""``genesis init``: the store and a commented default config, idempotently.

The config goes where a Python project keeps its tools' settings: the ``[tool.genesis]``
table of an existing ``pyproject.toml`` (appended, the rest of the file untouched), else
``.genesis.toml``; a ``.genesis.toml`` that exists is always the one written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.config.settings import CONFIG_FILE, default_config_text, load_config
from genesis_git.git.repo import Repo, find_repo
from genesis_git.kernel.errors import GenesisError
from genesis_git.store.connect import connect, store_path
from genesis_git.stories.commits import StoryRules
from genesis_git.stories.ledger.sync import Binder, ledger_remotes


def history_prefixes(repo: Repo, rules: StoryRules | None = None, limit: int = 5000,
                     top: int = 5) -> tuple[list[dict[str, Any]], int]:
    """The most frequent story-id prefixes in the last ``limit`` commits of HEAD and the
    number of commits read, so that ``init`` can propose ``story.prefixes``.  An id counts
    exactly when it would bind (:func:`genesis_git.stories.commits.story_ids`, with the
    repository's pattern and ignore list): never from a merge, nor from a ``Merge …``
    subject, a standard's number (``IEC61131-3``) or a hosting number (``GH-4886``)."""
    from collections import Counter

    from genesis_git.stories.commits import log_commits, story_ids

    if repo.head_sha() is None:
        return [], 0
    base = rules or StoryRules()
    pattern = StoryRules(base.pattern, (), base.ignore).effective
    counts: Counter[str] = Counter()
    scanned = 0
    for commit in log_commits(repo, ["HEAD"], ("-n", str(limit))):
        scanned += 1
        for prefix in dict.fromkeys(sid.rsplit("-", 1)[0]
                                    for sid in story_ids(commit, pattern)):
            counts[prefix] += 1
    return [{"prefix": p, "commits": n} for p, n in counts.most_common(top)], scanned


PYPROJECT = "pyproject.toml"
TOOL_TABLE = "tool.genesis"


def _toml(text: str) -> dict[str, Any] | None:
    """``text`` parsed as TOML, or ``None`` when it is not valid TOML."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def pyproject_block(newline: str = "\n") -> str:
    """The commented defaults as a ``[tool.genesis]`` table, to append to pyproject.toml."""
    body = [line.replace("# [", f"# [{TOOL_TABLE}.", 1) if line.startswith("# [") else line
            for line in default_config_text().splitlines()[3:]]
    lines = ["", f"[{TOOL_TABLE}]",
             "# genesis configuration. Every key is shown with its default, commented out;",
             f"# a section is the table [{TOOL_TABLE}.<section>]. A .genesis.toml beside this",
             "# file overrides these; GENESIS_<SECTION>_<KEY> in the environment overrides both.",
             *body]
    return newline.join(lines) + newline


def config_target(root: Path) -> tuple[Path, str | None]:
    """Where ``init`` keeps the settings: ``.genesis.toml`` when it exists; else the
    ``[tool.genesis]`` table of an existing ``pyproject.toml``; else a new ``.genesis.toml``.
    The second value is the table (``None``: the whole file is genesis's)."""
    own = root / CONFIG_FILE
    pyproject = root / PYPROJECT
    if own.exists() or not pyproject.is_file():
        return own, None
    return pyproject, TOOL_TABLE


def write_config(path: Path, table: str | None) -> bool:
    """Write the commented defaults; ``False`` when the settings are already there (or the
    pyproject.toml does not parse: the config loader then says what is wrong with it)."""
    if table is None:
        if path.exists():
            return False
        path.write_text(default_config_text(), encoding="utf-8")
        return True
    text = path.read_bytes().decode("utf-8", errors="replace")
    data = _toml(text)
    if data is None or "genesis" in (data.get("tool") or {}):
        return False
    newline = _newline(text)
    with path.open("a", encoding="utf-8", newline="") as fh:
        fh.write(("" if not text or text.endswith("\n") else newline) + pyproject_block(newline))
    return True


def _ledger_table(data: Any, table: str | None) -> dict[str, Any]:
    """The ``[ledger]`` table of parsed settings (with ``table``, ``[tool.genesis.ledger]``)."""
    for key in [*(table.split(".") if table else ()), "ledger"]:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _set_in_ledger(cfg_path: Path, table: str | None, key: str, value: str) -> bool:
    """Write ``key = value`` (``value`` as TOML) into the ``[ledger]`` section of
    ``cfg_path`` (with ``table``, ``[tool.genesis.ledger]``); ``False`` if it said so already.
    Only that line changes; a file laid out so that the edit would not hold (an inline table,
    dotted keys) is left as it is, with one line that says what to write."""
    import re

    section_name = f"{table}.ledger" if table else "ledger"
    text = cfg_path.read_bytes().decode("utf-8") if cfg_path.exists() else ""
    parsed = _toml(text)
    if parsed is None:
        return False  # not TOML: the config loader says what is wrong with it
    wanted = (_toml(f"{key} = {value}") or {}).get(key)
    if _ledger_table(parsed, table).get(key) == wanted:
        return False
    newline = _newline(text)
    lines = text.splitlines(keepends=True)
    section = None
    done = False
    for i, line in enumerate(lines):
        bare = line.strip()
        header = re.match(r"\[\s*([^\[\]]+?)\s*\](?:\s*#.*)?$", bare)
        if header:
            section = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "")
            continue
        if section == section_name and re.match(rf"{key}\s*=", bare):
            lines[i] = f"{key} = {value}" + newline
            done = True
            break
    if not done:
        for i, line in enumerate(lines):
            if line.strip() == f"[{section_name}]":
                lines.insert(i + 1, f"{key} = {value}" + newline)
                break
        else:
            if lines and not lines[-1].endswith(("\n", "\r")):
                lines[-1] += newline
            lines += [newline, "# the story ledger is shared through the git remote (genesis sync)"
                      + newline, f"[{section_name}]" + newline, f"{key} = {value}" + newline]
    new = "".join(lines)
    if _ledger_table(_toml(new), table).get(key) != wanted:
        what = "turn on sharing" if key == "share" else f"write {key}"
        raise GenesisError(f"{cfg_path}: cannot {what} in this layout",
                           hint=f"write {key} = {value} under [{section_name}] yourself")
    with cfg_path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(new)
    return True


def enable_share(cfg_path: Path, table: str | None = None,
                 remotes: list[str] | None = None) -> bool:
    """Write ``share = true`` into the settings' ``[ledger]`` section, and ``remotes`` (the
    remotes that get the ledger) when given; ``False`` if nothing changed."""
    from genesis_git.config.schema import toml_value

    changed = _set_in_ledger(cfg_path, table, "share", "true")
    if not remotes:
        return changed
    return _set_in_ledger(cfg_path, table, "remotes", toml_value(list(remotes))) or changed


def share_remotes(repo: Repo, cfg_path: Path, table: str | None, named: list[str]) -> list[str]:
    """The remotes ``init --share`` writes: those ``named`` (each must exist), else none when
    the settings name some already, else the remote init sees (the branch's upstream,
    ``origin``, the only remote), else none."""
    from genesis_git.kernel.errors import UsageError
    from genesis_git.stories.ledger.sync import default_remote, remotes

    have = remotes(repo.root)
    for name in named:
        if name not in have:
            raise UsageError(f"no remote named {name!r}", hint="see `git remote -v`")
    if named:
        return list(dict.fromkeys(named))
    text = cfg_path.read_bytes().decode("utf-8") if cfg_path.exists() else ""
    if "remotes" in _ledger_table(_toml(text) or {}, table):
        return []  # the settings name them already
    seen = default_remote(repo.root, repo.git_dir)
    return [seen] if seen else []


def init_repo(path: Path | str | None = None, *, share: bool = False,
              share_with: list[str] | None = None,
              sync: bool = True, bind: Binder | None = None) -> dict[str, Any]:
    """The store and the settings (:func:`config_target`: ``.genesis.toml``, or the
    ``[tool.genesis]`` table of an existing pyproject.toml); with ``share``,
    ``[ledger] share = true`` and ``[ledger] remotes`` (``share_with``, default the remote
    init sees).  When
    sharing is on (now or already), the remote's ledger is pulled into the new store, and
    ``bind`` (given by the core) binds the story commits of the history it brings."""
    repo = find_repo(path)
    if share_with and not share:
        from genesis_git.kernel.errors import UsageError

        raise UsageError("--remote names where the ledger is shared: give it with --share")
    cfg_path, table = config_target(repo.root)
    wanted = share_remotes(repo, cfg_path, table, share_with or []) if share else []
    db = store_path(repo)
    store_created = not db.exists()
    connect(db).close()
    config_created = write_config(cfg_path, table)
    share_set = enable_share(cfg_path, table, wanted) if share else False
    config = load_config(repo.root)  # fail now, with one line, on a broken config
    found, scanned = history_prefixes(repo, StoryRules.from_config(config))
    result: dict[str, Any] = {
        "story_prefixes": found,
        "commits_surveyed": scanned,
        "prefixes_set": list(config.settings.story.prefixes),
        "repository": str(repo.root),
        "store": str(db),
        "store_created": store_created,
        "config": str(cfg_path),
        "config_table": table,
        "config_created": config_created,
        "share": config.settings.ledger.share,
        "share_set": share_set,
        "share_remotes": ledger_remotes(repo.root, config),
        "sync": None,
    }
    if config.settings.ledger.share and sync:
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
