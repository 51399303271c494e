"""The vocabulary cannot drift from the schemas that store it: the SQLite migrations and the
mirror's PostgreSQL schema keep literal copies, and each CHECK constraint allows exactly the
words of :mod:`genesis_git.kernel.vocabulary`."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from genesis_git.kernel import vocabulary as V
from genesis_git.mirror import schema as pg
from genesis_git.store import migrations

# constraint name -> the vocabulary tuple it must allow
CONSTRAINTS = {
    "chk_session_status": V.SESSION_STATUSES,
    "chk_session_artifact_role": V.NOTE_ROLES,
    "chk_session_change_type": V.CHANGE_TYPES,
    "chk_story_status": V.STORY_STATUSES,
    "chk_story_artifact_role": V.STORY_ROLES,
    "chk_story_change_type": V.CHANGE_TYPES,
    "chk_story_link_type": V.LINK_TYPES,
    "chk_blob_content_type": V.ARTIFACT_TYPES,
    "chk_map_artifact_type": V.ARTIFACT_TYPES,
}
PG_CONSTRAINTS = {k: v for k, v in CONSTRAINTS.items() if k in pg.SEED_002}


def _allowed(sql: str, constraint: str) -> tuple[str, ...]:
    """The quoted words of the ``IN (...)`` list of one named CHECK constraint."""
    m = re.search(rf"CONSTRAINT {constraint} CHECK \([^()]*IN \(([^)]*)\)", sql)
    assert m, f"{constraint} not found"
    return tuple(re.findall(r"'([^']*)'", m.group(1)))


def test_the_migrations_literals_equal_the_vocabulary() -> None:
    assert migrations.ARTIFACT_TYPES == V.ARTIFACT_TYPES
    assert migrations.SESSION_ROLES == V.NOTE_ROLES
    assert migrations.STORY_ROLES == V.STORY_ROLES
    assert migrations.CHANGE_TYPES == V.CHANGE_TYPES
    assert migrations.STORY_STATUSES == V.STORY_STATUSES
    assert migrations.LINK_TYPES == V.LINK_TYPES


def test_the_mirror_schemas_literals_equal_the_vocabulary() -> None:
    assert pg.SESSION_ROLES == V.NOTE_ROLES
    assert pg.STORY_ROLES == V.STORY_ROLES
    assert pg.CHANGE_TYPES == V.CHANGE_TYPES
    assert pg.STORY_STATUSES == V.STORY_STATUSES
    assert pg.LINK_TYPES == V.LINK_TYPES


@pytest.mark.parametrize("constraint", sorted(CONSTRAINTS))
def test_a_migrated_store_checks_exactly_the_vocabulary(tmp_path: Path, constraint: str) -> None:
    conn = sqlite3.connect(tmp_path / "blank.db")
    migrations.migrate(conn)
    sql = "\n".join(row[0] for row in conn.execute(
        "SELECT sql FROM sqlite_master WHERE type='table' AND sql IS NOT NULL"))
    conn.close()
    assert _allowed(sql, constraint) == CONSTRAINTS[constraint]


@pytest.mark.parametrize("constraint", sorted(PG_CONSTRAINTS))
def test_the_mirror_schema_checks_exactly_the_vocabulary(constraint: str) -> None:
    assert _allowed(pg.SEED_002, constraint) == PG_CONSTRAINTS[constraint]


def test_the_mirror_checks_every_word_kind_the_store_does() -> None:
    assert set(PG_CONSTRAINTS) == set(CONSTRAINTS) - {
        "chk_session_status", "chk_blob_content_type", "chk_map_artifact_type"}


def test_named_words_belong_to_their_tuples() -> None:
    assert {V.TYPE_CODE, V.TYPE_OTHER} <= set(V.ARTIFACT_TYPES)
    assert V.ROLE_NOTE in V.NOTE_ROLES
    assert V.ROLE_REQUIREMENT in V.STORY_ROLES and V.ROLE_REQUIREMENT not in V.NOTE_ROLES
    assert set(V.NOTE_ROLES) < set(V.STORY_ROLES)
    assert sorted(V.ROLE_ORDER) == sorted(V.STORY_ROLES)
    assert {V.STATUS_DRAFT, V.STATUS_IN_PROGRESS} <= set(V.STORY_STATUSES)
    assert V.SESSION_ACTIVE in V.SESSION_STATUSES
    assert V.LINK_COMMIT in V.LINK_TYPES


def test_the_code_uses_the_vocabulary() -> None:
    from genesis_git.index import classify
    from genesis_git.search import results
    from genesis_git.stories import tables

    assert classify.ARTIFACT_TYPES is V.ARTIFACT_TYPES
    assert results.ARTIFACT_TYPES is V.ARTIFACT_TYPES
    assert results.MODES is V.SEARCH_MODES
    assert tables.ROLE_ORDER is V.ROLE_ORDER
    from genesis_git.stories import commits

    assert commits.TRAILER_MODES is V.TRAILER_MODES
    assert commits.StoryRules(trailer="sometimes").trailer == "story"


def test_the_note_roles_the_cli_offers_are_the_vocabulary() -> None:
    from genesis_git.cli import session_notes

    text = Path(session_notes.__file__).read_text(encoding="utf-8")
    offered = re.search(r'help="(analysis[^"]*)\."', text)
    assert offered
    assert set(re.findall(r"\w+", offered.group(1))) - {"or"} == set(V.NOTE_ROLES)


def test_the_vocabulary_imports_nothing() -> None:
    source = Path(V.__file__).read_text(encoding="utf-8")
    imports = [ln for ln in source.splitlines() if ln.startswith(("import ", "from "))]
    assert imports == ["from __future__ import annotations"]
