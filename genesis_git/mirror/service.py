"""The mirror's operations as the core offers them (the CLI and the ``Genesis`` façade call these).

* :func:`mirror` — the repository's ledger records into the mirror;
* :func:`org_stories` / :func:`org_story` — read the mirror back.

The local store is never written: a failure leaves everything local as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config, load_config
from genesis_git.kernel.errors import GenesisError
from genesis_git.mirror import org, schema
from genesis_git.mirror.conninfo import Target, resolve
from genesis_git.mirror.project import project_id


def configured(config: Config) -> bool:
    """Whether a mirror is configured (``genesis sync`` mirrors only then)."""
    return bool(config.settings.ledger.mirror.strip())


def target(config: Config, url: str | None = None) -> Target:
    return resolve(url, config.settings.ledger.mirror, config.sources)


def config_here(path: Path | str | None = None) -> Config:
    """The configuration of the repository around ``path``; outside one, defaults and env
    (so that ``--org`` works with ``GENESIS_LEDGER_MIRROR`` alone)."""
    from genesis_git.git.repo import find_repo

    try:
        root: Path | None = find_repo(path).root
    except GenesisError:
        root = None
    return load_config(root)


def repository_project(repo: Any, config: Config) -> tuple[str, str]:
    """``(project_id, where it came from)`` of ``repo`` in the mirror."""
    origin = repo.config_get("remote.origin.url")
    return project_id(config.settings.ledger.project_id, origin, repo.project_id)


def mirror(repo: Any, config: Config, url: str | None = None, *,
           batch_size: int | None = None) -> dict[str, Any]:
    """Mirror every record of the repository's ledger (local and fetched) into PostgreSQL."""
    from genesis_git.mirror import source as ledger
    from genesis_git.mirror.connect import connect, psycopg
    from genesis_git.mirror.push import BATCH, known_ids, push

    tgt = target(config, url)
    psycopg()  # say how to install it before reading anything
    project, where = repository_project(repo, config)
    from genesis_git.store.connect import store_path

    lines = ledger.ledger_lines(repo.root)
    ledger.add_lines(lines, ledger.pending_lines(store_path(repo)))
    with connect(tgt) as conn:
        have = known_ids(conn, list(lines))
        records = ledger.parse(item for rid, item in lines.items() if rid not in have)
        result = push(conn, records, project, batch_size=batch_size or BATCH)
    result.records = len(lines)
    return {"mirror": tgt.shown, "project": project, "project_source": where,
            "schema": schema.VERSION, **result.as_dict()}


@contextmanager
def _reading(tgt: Target) -> Iterator[Any]:
    """A connection for reading: no migration (a reader may not create tables), but a
    mirror that genesis never wrote to is one clear line."""
    from genesis_git.mirror.connect import connect

    with connect(tgt, migrate=False) as conn:
        if not schema.applied(conn):
            raise GenesisError(f"the mirror at {tgt.shown} holds no genesis ledger yet",
                               hint="run `genesis ledger mirror` in a repository first")
        yield conn


def org_stories(config: Config, url: str | None = None, *, status: str | None = None,
                project: str | None = None) -> dict[str, Any]:
    org.check_status(status)
    tgt = target(config, url)
    with _reading(tgt) as conn:
        rows = org.list_stories(conn, status=status, project=project)
    return {"mirror": tgt.shown, "stories": rows}


def org_story(config: Config, story_id: str, url: str | None = None) -> dict[str, Any]:
    tgt = target(config, url)
    with _reading(tgt) as conn:
        ctx = org.story_context(conn, story_id)
    ctx["mirror"] = tgt.shown
    return ctx
