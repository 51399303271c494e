"""``genesis ledger mirror`` and ``--org``: real repositories, real ledger refs, a real PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from genesis_git.stories.ledger.gitref import append_records, read_records
from genesis_git.stories.ledger.records import Record, fold

from helpers import commit_files, genesis_cmd, git, make_repo

pytest.importorskip("psycopg")

ANN = ("Ann Analyst", "ann@example.com")
BOB = ("Bob Builder", "bob@example.com")


def rec(kind: str, story: str | None = None, *, session: str | None = None,
        who: tuple[str, str] = ANN, time: str | None = None, **payload: Any) -> Record:
    return Record.new(kind, story_id=story, session_id=session, author_name=who[0],
                      author_email=who[1], payload=payload, time=time)


def run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([*genesis_cmd(), *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def project_repo(path: Path, origin: str, mirror_url: str | None) -> Path:
    root = make_repo(path, {"README.md": f"# {path.name}\n"})
    git(root, "remote", "add", "origin", origin)
    if mirror_url is not None:
        (root / ".genesis.toml").write_text(f'[ledger]\nmirror = "{mirror_url}"\n')
    return root


def story_commit(root: Path, story: str, files: dict[str, str | None], subject: str,
                 who: tuple[str, str] = ANN) -> list[Record]:
    """A real commit naming ``story``, and the records the ledger keeps for it."""
    sha = commit_files(root, f"{story}: {subject}", files)
    date = git(root, "log", "-1", "--format=%aI", sha).strip()
    recs = [rec("link.added", story, who=who, link_type="commit", target=sha,
                description=subject, meta={"author": who[0], "date": date, "subject":
                                           f"{story}: {subject}", "committed": 0})]
    for path, text in files.items():
        recs.append(rec("artifact.added", story, who=who, role="doc_change", path=path,
                        doc_id=sha, change_type="removed" if text is None else "added",
                        source_ref="commit"))
    return recs


def two_repositories(tmp_path: Path, url: str) -> tuple[Path, Path]:
    backend = project_repo(tmp_path / "backend", "git@git.example.com:org/backend.git", url)
    web = project_repo(tmp_path / "web", "https://git.example.com/org/web.git", url)
    append_records(backend, [
        rec("story.created", "STORY-12", title="Discount codes", status="in_progress"),
        rec("artifact.added", "STORY-12", role="decision",
            content="discount_code is nullable; old orders keep NULL", path="db/schema.sql"),
        rec("artifact.added", "STORY-12", role="risk", content="totals must stay consistent"),
        *story_commit(backend, "STORY-12", {"db/schema.sql": "ALTER TABLE orders;\n"},
                      "add discount code"),
    ])
    append_records(web, [
        rec("story.created", "STORY-12", who=BOB, title="Discount codes (web)",
            status="in_progress"),
        rec("artifact.added", "STORY-12", who=BOB, role="note",
            content="the checkout form shows a discount field"),
        rec("link.added", "STORY-12", who=BOB, link_type="ticket", target="JIRA-7",
            description="design ticket"),
        *story_commit(web, "STORY-12", {"src/checkout.ts": "export {}\n"}, "checkout field",
                      who=BOB),
        rec("story.created", "STORY-13", who=BOB, title="Dark mode",
            time="2030-01-01T00:00:00.000Z"),
    ])
    return backend, web


def counts(pg_db) -> dict[str, int]:
    return {t: pg_db.count(t) for t in ("genesis_records", "story_records", "story_artifacts",
                                        "story_links", "session_artifacts")}


def test_two_repositories_in_one_mirror(tmp_path: Path, pg_db) -> None:
    backend, web = two_repositories(tmp_path, pg_db.url)
    for root in (backend, web):
        out = run(root, "ledger", "mirror", "--json")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert res["sent"] == res["added"] == res["records"] > 0
        assert pg_db.password not in out.stdout + out.stderr
    assert json.loads(run(backend, "ledger", "mirror", "--json").stdout)["project"] == \
        "git.example.com/org/backend"

    out = run(web, "story", "context", "STORY-12", "--org", "--json")
    assert out.returncode == 0, out.stderr
    ctx = json.loads(out.stdout)
    assert ctx["story"]["projects"] == ["git.example.com/org/backend", "git.example.com/org/web"]
    assert ctx["story"]["project_id"] == "git.example.com/org/backend"  # created there first
    assert ctx["story"]["title"] == "Discount codes"  # the earliest story.created gives it
    decisions = ctx["artifacts"]["decision"]
    assert [(a["project"], a["summary"]) for a in decisions] == [
        ("git.example.com/org/backend", "discount_code is nullable; old orders keep NULL")]
    assert [(a["project"], a["summary"]) for a in ctx["artifacts"]["note"]] == [
        ("git.example.com/org/web", "the checkout form shows a discount field")]
    assert ctx["artifacts"]["risk"][0]["project"] == "git.example.com/org/backend"
    assert {(c["project"], c["subject"]) for c in ctx["commits"]} == {
        ("git.example.com/org/backend", "STORY-12: add discount code"),
        ("git.example.com/org/web", "STORY-12: checkout field")}
    assert {(f["project"], f["path"], f["change"]) for f in ctx["files"]} == {
        ("git.example.com/org/backend", "db/schema.sql", "added"),
        ("git.example.com/org/web", "src/checkout.ts", "added")}
    assert [(lk["project"], lk["type"], lk["target"]) for lk in ctx["links"]] == [
        ("git.example.com/org/web", "ticket", "JIRA-7")]

    md = run(backend, "story", "context", "STORY-12", "--org", "--markdown").stdout
    assert md.startswith("# STORY-12: Discount codes\n")
    assert "- [git.example.com/org/web] the checkout form shows a discount field" in md
    assert "[git.example.com/org/backend] added: `db/schema.sql`" in md
    text = run(backend, "story", "context", "STORY-12", "--org").stdout
    assert "projects (2): git.example.com/org/backend, git.example.com/org/web" in text

    listed = json.loads(run(backend, "story", "list", "--org", "--json").stdout)["stories"]
    assert [(s["story_id"], s["projects"], s["artifacts"], s["commits"]) for s in listed] == [
        ("STORY-13", ["git.example.com/org/web"], 0, 0),
        ("STORY-12", ["git.example.com/org/backend", "git.example.com/org/web"], 3, 2)]
    backend_only = run(backend, "story", "list", "--org", "--project",
                       "git.example.com/org/backend")
    assert [line.split("\t")[0] for line in backend_only.stdout.splitlines()] == ["STORY-12"]


def test_mirroring_again_changes_nothing(tmp_path: Path, pg_db) -> None:
    backend, web = two_repositories(tmp_path, pg_db.url)
    for root in (backend, web):
        assert run(root, "ledger", "mirror").returncode == 0
    before = counts(pg_db)
    with pg_db.admin() as conn:
        ids_before = conn.execute("SELECT array_agg(id ORDER BY id) FROM story_artifacts").fetchone()
    for root in (web, backend):
        out = run(root, "ledger", "mirror")
        assert out.returncode == 0
        assert out.stdout.startswith("the mirror is up to date:")
    assert counts(pg_db) == before
    with pg_db.admin() as conn:
        assert conn.execute(
            "SELECT array_agg(id ORDER BY id) FROM story_artifacts").fetchone() == ids_before


def _db_state(pg_db) -> dict[str, Any]:
    with pg_db.admin() as conn:
        stories = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT story_id, title, status FROM story_records")}
        arts = sorted(r[0] for r in conn.execute("SELECT record_id FROM story_artifacts"))
        links = sorted(r[0] for r in conn.execute("SELECT record_id FROM story_links"))
    return {"stories": stories, "artifacts": arts, "links": links}


def _fold_state(records: list[Record]) -> dict[str, Any]:
    states = fold(records)
    return {"stories": {s: (st.title, st.status) for s, st in states.items()},
            "artifacts": sorted(a["record_id"] for st in states.values() for a in st.artifacts),
            "links": sorted(lk["record_id"] for st in states.values() for lk in st.links)}


def test_three_clones_and_two_repositories_at_once(tmp_path: Path, pg_db) -> None:
    origin = "https://git.example.com/org/shop.git"
    shared = [rec("story.created", "STORY-12", title="Discounts", status="draft"),
              rec("artifact.added", "STORY-12", role="decision", content="nullable column")]
    clones = []
    for n in range(3):
        root = project_repo(tmp_path / f"clone{n}", origin, pg_db.url)
        who = (f"Dev {n}", f"dev{n}@example.com")
        own = [rec("artifact.added", "STORY-12", who=who, role="note", content=f"note {n}.{i}")
               for i in range(40)]
        own.append(rec("story.status", "STORY-12", who=who, status="review" if n else "done",
                       time=f"2026-11-0{n + 1}T10:00:00.000Z"))
        append_records(root, shared + own)
        clones.append(root)
    others = []
    for name in ("docs", "mobile"):
        root = project_repo(tmp_path / name, f"git@git.example.com:org/{name}.git", pg_db.url)
        append_records(root, [rec("artifact.added", "STORY-12", role="note", content=name)] +
                       [rec("story.created", f"{name.upper()}-{i}", title=name) for i in range(30)])
        others.append(root)
    import os

    procs = [subprocess.Popen([*genesis_cmd(), "ledger", "mirror", "--json"], cwd=root,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ)) for root in clones + others]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 5, [e for _, e in outs]
    added = sum(json.loads(o)["added"] for o, _ in outs)
    everything = {r.id: r for root in clones + others for r in read_records(root)}
    assert added == len(everything) == pg_db.count("genesis_records")
    with pg_db.admin() as conn:
        dupes = conn.execute(
            "SELECT count(*) FROM (SELECT story_id, summary, project_id FROM story_artifacts "
            "GROUP BY 1, 2, 3 HAVING count(*) > 1) d").fetchone()[0]
    assert dupes == 0
    assert _db_state(pg_db) == _fold_state(list(everything.values()))
    assert _db_state(pg_db)["stories"]["STORY-12"] == ("Discounts", "review")  # Nov 3 wins


def test_title_and_status_follow_the_last_writer_in_any_order(tmp_path: Path, pg_db) -> None:
    a = project_repo(tmp_path / "a", "https://git.example.com/org/a.git", pg_db.url)
    b = project_repo(tmp_path / "b", "https://git.example.com/org/a.git", pg_db.url)
    created = rec("story.created", "STORY-1", title="first", time="2026-11-01T00:00:00.000Z")
    append_records(a, [created, rec("story.title", "STORY-1", title="late title",
                                    time="2026-11-05T00:00:00.000Z"),
                       rec("story.status", "STORY-1", status="done",
                           time="2026-11-02T00:00:00.000Z")])
    append_records(b, [created, rec("story.title", "STORY-1", who=BOB, title="early title",
                                    time="2026-11-03T00:00:00.000Z"),
                       rec("story.status", "STORY-1", who=BOB, status="review",
                           time="2026-11-04T00:00:00.000Z")])
    assert run(a, "ledger", "mirror").returncode == 0
    assert run(b, "ledger", "mirror").returncode == 0  # b's title is older: a's stays
    ctx = json.loads(run(a, "story", "context", "STORY-1", "--org", "--json").stdout)
    assert (ctx["story"]["title"], ctx["story"]["status"]) == ("late title", "review")
    assert _db_state(pg_db) == _fold_state(list(read_records(a)) + list(read_records(b)))


def test_removed_links_and_retracted_notes_leave_the_mirror(tmp_path: Path, pg_db) -> None:
    root = project_repo(tmp_path / "r", "https://git.example.com/org/r.git", pg_db.url)
    commit = story_commit(root, "STORY-5", {"a.py": "x = 1\n"}, "first")
    note = rec("artifact.added", "STORY-5", role="note", content="to be retracted")
    session_note = rec("note.written", session="s-1", role="risk", content="session risk")
    append_records(root, [rec("story.created", "STORY-5", title="t"), note, session_note,
                          *commit])
    assert run(root, "ledger", "mirror").returncode == 0
    assert pg_db.count("story_artifacts") == 2 and pg_db.count("session_artifacts") == 1
    append_records(root, [rec("note.retracted", "STORY-5", note_id=note.id),
                          rec("note.retracted", session="s-1", note_id=session_note.id),
                          rec("link.removed", "STORY-5", link_type="commit",
                              target=commit[0].payload["target"])])
    assert run(root, "ledger", "mirror").returncode == 0
    assert pg_db.count("story_artifacts") == 0  # the note and the commit's file
    assert pg_db.count("story_links") == 0
    assert pg_db.count("session_artifacts") == 0


def test_a_rewrite_and_a_retraction_reach_the_mirror(repo: Path, pg_db) -> None:
    """An amend moves the notes to another story and leaves the first with nothing; a
    retracted note leaves: the mirror's rows follow, as the fold of the records says."""
    from genesis_git.git.repo import find_repo
    from genesis_git.hooks import install as inst

    (repo / ".genesis.toml").write_text(f'[ledger]\nmirror = "{pg_db.url}"\n')
    inst.install(find_repo(repo), python=sys.executable)
    assert run(repo, "session", "start").returncode == 0
    notes = [json.loads(run(repo, "session", "note", text, "--role", "decision",
                            "--json").stdout) for text in ("keep me", "take me back")]
    commit_files(repo, "STORY-12: codes", {"x.txt": "x\n"})
    assert run(repo, "ledger", "mirror").returncode == 0
    assert set(_db_state(pg_db)["stories"]) == {"STORY-12"}
    git(repo, "commit", "-q", "--amend", "-m", "STORY-13: codes")
    assert run(repo, "ledger", "mirror").returncode == 0
    state = _db_state(pg_db)
    assert state["stories"] == {"STORY-13": ("codes", "in_progress")}
    assert state == _fold_state(list(read_records(repo)) + _pending(repo))
    with pg_db.admin() as conn:
        summaries = sorted(r[0] for r in conn.execute(
            "SELECT summary FROM story_artifacts WHERE artifact_role='decision'"))
    assert summaries == ["keep me", "take me back"]
    out = run(repo, "session", "retract", str(notes[1]["id"]))
    assert out.returncode == 0, out.stderr
    assert run(repo, "ledger", "mirror").returncode == 0
    with pg_db.admin() as conn:
        assert [r[0] for r in conn.execute(
            "SELECT summary FROM story_artifacts WHERE artifact_role='decision'")] == ["keep me"]
        assert [r[0] for r in conn.execute("SELECT summary FROM session_artifacts")] == [
            "keep me"]
    assert _db_state(pg_db) == _fold_state(list(read_records(repo)) + _pending(repo))


def _pending(root: Path) -> list[Record]:
    """The records the store holds that no ledger ref has yet (the mirror sends them)."""
    from genesis_git.mirror.source import pending_lines

    store = Path(os.environ["GENESIS_HOME"]) / "genesis.db"
    return [Record.from_json(line.decode()) for line in pending_lines(store)]


def test_a_record_the_seed_forbids_is_kept_but_not_folded(tmp_path: Path, pg_db) -> None:
    root = project_repo(tmp_path / "r", "https://git.example.com/org/r.git", pg_db.url)
    append_records(root, [rec("story.created", "STORY-9", title="t", status="wip"),
                          rec("artifact.added", "STORY-9", role="opinion", content="meh"),
                          rec("link.added", "STORY-9", link_type="wiki", target="x"),
                          rec("story.status", "STORY-9", status="blocked"),
                          rec("artifact.added", "STORY-9", role="note", content="fine")])
    out = run(root, "ledger", "mirror", "--json")
    assert out.returncode == 0, out.stderr
    assert pg_db.count("genesis_records") == 5
    with pg_db.admin() as conn:
        assert conn.execute("SELECT status FROM story_records").fetchall() == [("draft",)]
        assert conn.execute("SELECT summary FROM story_artifacts").fetchall() == [("fine",)]
    assert pg_db.count("story_links") == 0


def test_hooks_never_talk_to_postgresql(repo: Path, pg_db) -> None:
    """A commit with a mirror configured: the installed hooks bind the story, the mirror is
    untouched (not even its schema), and the hook process never imports psycopg."""
    from genesis_git.git.repo import find_repo
    from genesis_git.hooks import install as inst

    (repo / ".genesis.toml").write_text(f'[ledger]\nmirror = "{pg_db.url}"\n')
    inst.install(find_repo(repo), python=sys.executable)
    assert run(repo, "session", "start").returncode == 0
    assert run(repo, "session", "note", "a decision", "--role", "decision").returncode == 0
    commit = commit_files(repo, "STORY-12: with a mirror configured", {"x.txt": "x\n"})
    assert commit
    with pg_db.admin() as conn:
        assert conn.execute("SELECT to_regclass('genesis_migrations')").fetchone() == (None,)
    probe = ("import sys\nfrom genesis_git.hooks import run\n"
             "open('m.txt','w').write('STORY-12: y\\n')\n"
             "for argv in (['commit-msg', 'm.txt'], ['post-commit']):\n"
             "    assert run.main(argv) == 0\n"
             "print(sorted(m for m in sys.modules if m.startswith(('psycopg', "
             "'genesis_git.mirror'))))\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    assert "STORY-12" in run(repo, "story", "list").stdout


def test_project_identity_and_an_empty_ledger(tmp_path: Path, pg_db) -> None:
    root = make_repo(tmp_path / "lonely", {"a.txt": "a\n"})
    out = run(root, "ledger", "mirror", "--url", pg_db.url, "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert (res["project"], res["records"], res["sent"]) == ("lonely", 0, 0)
    assert "no origin remote" in res["project_source"]
    assert "genesis: warning: no origin remote: this repository is project 'lonely'" in out.stderr
    out = run(root, "ledger", "mirror", "--url", pg_db.url)
    assert out.stdout.startswith("nothing to mirror: the ledger of lonely has no records yet")
    (root / ".genesis.toml").write_text('[ledger]\nproject_id = "team/lonely"\n')
    append_records(root, [rec("story.created", "STORY-3", title="x")])
    out = run(root, "ledger", "mirror", "--url", pg_db.url)
    assert out.returncode == 0
    assert out.stdout.startswith("mirrored 1 new records of team/lonely to "
                                 f"postgresql://{pg_db.user}@")
    with pg_db.admin() as conn:
        assert conn.execute("SELECT project_id FROM story_records").fetchall() == [
            ("team/lonely",)]


def test_lines_out_of_canonical_form_and_malformed_ones(tmp_path: Path, pg_db) -> None:
    from genesis_git.stories.ledger.gitref import update_ref, write_commit
    from genesis_git.stories.ledger.records import LEDGER_REF

    root = project_repo(tmp_path / "r", "https://git.example.com/org/r.git", pg_db.url)
    canonical = rec("story.created", "STORY-4", title="canonical")
    other = rec("artifact.added", "STORY-4", role="note", content='says "id":"X" inside')
    reordered = json.dumps({"payload": other.payload, "kind": other.kind, "id": other.id,
                            "story_id": other.story_id, "session_id": None,
                            "author_name": "A", "author_email": "a@x", "time": other.time})
    blob = "\n".join([canonical.to_json(), reordered, "{not json", ""]).encode()
    commit = write_commit(root, None, {"stories/STORY-4.jsonl": blob}, [], "ledger")
    assert update_ref(root, LEDGER_REF, commit, None, "test")
    out = run(root, "ledger", "mirror", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["records"] == 2
    assert "skipped 1 malformed ledger record" in out.stderr
    with pg_db.admin() as conn:
        assert conn.execute("SELECT summary FROM story_artifacts").fetchall() == [
            ('says "id":"X" inside',)]
    again = run(root, "ledger", "mirror", "--json")
    assert json.loads(again.stdout)["sent"] == 0


def test_real_commits_and_notes_of_two_repositories(tmp_path: Path, pg_db) -> None:
    """The installed hooks record notes and commits; `ledger mirror` sends them (also those
    still waiting for `genesis sync`), never a private note."""
    roots = {}
    for name, origin, text, role in (
            ("backend", "git@git.example.com:org/backend.git", "discount_code is nullable",
             "decision"),
            ("web", "https://git.example.com/org/web.git", "old browsers hide the field",
             "risk")):
        root = project_repo(tmp_path / name, origin, pg_db.url)
        env = {"GENESIS_HOME": str(tmp_path / f"{name}-store")}
        for args in (("hooks", "install"), ("session", "start"),
                     ("session", "note", text, "--role", role),
                     ("session", "note", f"private thought of {name}", "--private")):
            out = run(root, *args, env=env)
            assert out.returncode == 0, (args, out.stderr)
        (root / f"{name}.txt").write_text("x\n")
        git(root, "add", f"{name}.txt")
        done = subprocess.run(["git", "commit", "-q", "-m", "STORY-12: discount code"],
                              cwd=root, env={**os.environ, **env}, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        out = run(root, "ledger", "mirror", "--json", env=env)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["added"] > 0
        roots[name] = (root, env)
    root, env = roots["web"]
    out = run(root, "story", "context", "STORY-12", "--org", "--json", env=env)
    assert out.returncode == 0, out.stderr
    ctx = json.loads(out.stdout)
    assert ctx["story"]["projects"] == ["git.example.com/org/backend", "git.example.com/org/web"]
    assert [(a["project"], a["summary"]) for a in ctx["artifacts"]["decision"]] == [
        ("git.example.com/org/backend", "discount_code is nullable")]
    assert [(a["project"], a["summary"]) for a in ctx["artifacts"]["risk"]] == [
        ("git.example.com/org/web", "old browsers hide the field")]
    assert sorted((c["project"], c["subject"]) for c in ctx["commits"]) == [
        ("git.example.com/org/backend", "STORY-12: discount code"),
        ("git.example.com/org/web", "STORY-12: discount code")]
    assert {(f["project"], f["path"]) for f in ctx["files"]} >= {
        ("git.example.com/org/backend", "backend.txt"), ("git.example.com/org/web", "web.txt")}
    assert "private thought" not in out.stdout
    with pg_db.admin() as conn:
        assert conn.execute("SELECT count(*) FROM genesis_records "
                            "WHERE payload::text LIKE '%private thought%'").fetchone()[0] == 0
    before = counts(pg_db)
    for root, env in roots.values():
        assert run(root, "ledger", "mirror", env=env).stdout.startswith(
            "the mirror is up to date")
    assert counts(pg_db) == before


def test_sync_mirrors_too_and_the_hooks_never_do(tmp_path: Path, pg_db) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    root = project_repo(tmp_path / "clone", f"file://{bare}", None)
    (root / ".genesis.toml").write_text(
        f'[ledger]\nmirror = "{pg_db.url}"\nshare = true\nproject_id = "org/shop"\n')
    for args in (("hooks", "install"), ("session", "start"),
                 ("session", "note", "ship it behind a flag", "--role", "decision")):
        assert run(root, *args).returncode == 0, args
    commit_files(root, "STORY-12: flag", {"f.txt": "f\n"})
    git(root, "push", "-q", "origin", "main")  # the pre-push hook shares the ledger...
    with pg_db.admin() as conn:  # ...and never talks to PostgreSQL
        assert conn.execute("SELECT to_regclass('genesis_migrations')").fetchone() == (None,)

    out = run(root, "sync", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["mirror"]["project"] == "org/shop" and res["mirror"]["added"] > 0
    with pg_db.admin() as conn:
        assert conn.execute("SELECT project_id, summary FROM story_artifacts "
                            "WHERE artifact_role = 'decision'").fetchall() == [
            ("org/shop", "ship it behind a flag")]
    out = run(root, "sync")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].startswith("mirror: 0 new records of org/shop to ")

    dead = f"postgresql://{pg_db.user}@127.0.0.1:1/org"
    out = run(root, "sync", env={"GENESIS_LEDGER_MIRROR": dead})
    assert out.returncode == 4
    assert out.stdout.startswith("origin: pulled")  # the sync itself is reported
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("genesis: error:")]
    assert errors == [f"genesis: error: cannot reach the mirror at {dead}: Connection refused"]
    out = run(root, "sync", "--json", env={"GENESIS_LEDGER_MIRROR": dead})
    assert out.returncode == 4 and json.loads(out.stdout)["mirror"]["exit_code"] == 4

    (root / ".genesis.toml").write_text('[ledger]\nshare = true\n')
    out = run(root, "sync", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["mirror"] is None


def test_an_ancestor_comes_first_in_the_mirror_whatever_the_clocks(tmp_path: Path,
                                                                   pg_db) -> None:
    root = project_repo(tmp_path / "api", "git@git.example.com:org/api.git", pg_db.url)
    first = commit_files(root, "STORY-20: first", {"a.txt": "a\n"})
    second = commit_files(root, "STORY-20: second", {"b.txt": "b\n"})
    # the second was made on a clock an hour behind: by time alone it would come first
    when = {first: (1_790_000_000, []), second: (1_790_000_000 - 3600, [first])}
    append_records(root, [rec("story.created", "STORY-20", title="Clocks")] + [
        rec("link.added", "STORY-20", link_type="commit", target=sha, description=sha[:7],
            meta={"subject": subject, "committed": committed, "parents": parents})
        for sha, subject in ((second, "STORY-20: second"), (first, "STORY-20: first"))
        for committed, parents in [when[sha]]])
    assert run(root, "ledger", "mirror", "--json").returncode == 0
    out = run(root, "story", "context", "STORY-20", "--org", "--json")
    assert out.returncode == 0, out.stderr
    assert [c["subject"] for c in json.loads(out.stdout)["commits"]] == [
        "STORY-20: first", "STORY-20: second"]


def test_the_mirror_orders_a_story_through_another_storys_commit(tmp_path: Path, pg_db) -> None:
    root = project_repo(tmp_path / "api", "git@git.example.com:org/api.git", pg_db.url)
    first = commit_files(root, "STORY-21: first", {"a.txt": "a\n"})
    between = commit_files(root, "STORY-22: between", {"b.txt": "b\n"})
    last = commit_files(root, "STORY-21: last", {"c.txt": "c\n"})
    # the last was made on a clock two hours behind; only STORY-22's commit joins it to
    # the first
    when = {first: (1_790_000_000, []), between: (1_790_000_100, [first]),
            last: (1_790_000_000 - 7200, [between])}
    story = {first: "STORY-21", between: "STORY-22", last: "STORY-21"}
    append_records(root, [rec("story.created", sid, title=sid) for sid in ("STORY-21", "STORY-22")]
                   + [rec("link.added", story[sha], link_type="commit", target=sha,
                          description=sha[:7],
                          meta={"subject": sha[:7], "committed": committed, "parents": parents})
                      for sha in (last, between, first) for committed, parents in [when[sha]]]
                   + [rec("link.added", "STORY-22", link_type="commit", target="f" * 40,
                          description="odd", meta={"committed": "soon", "parents": "none"})])
    assert run(root, "ledger", "mirror", "--json").returncode == 0
    out = run(root, "story", "context", "STORY-21", "--org", "--json")
    assert out.returncode == 0, out.stderr
    assert [c["sha"] for c in json.loads(out.stdout)["commits"]] == [first, last]
