"""The mirror failing: one line, a documented exit, no password anywhere, nothing local changed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.stories.ledger.gitref import append_records
from genesis_git.stories.ledger.records import Record

from helpers import genesis_cmd, git, make_repo

pytest.importorskip("psycopg")

MIRROR_EXIT = 4


def run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*genesis_cmd(), *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def ledger_repo(tmp_path: Path, url: str | None = None) -> Path:
    root = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    git(root, "remote", "add", "origin", "https://git.example.com/org/r.git")
    if url is not None:
        (root / ".genesis.toml").write_text(f'[ledger]\nmirror = "{url}"\n')
    append_records(root, [
        Record.new("story.created", story_id="STORY-1", author_name="A", author_email="a@x",
                   payload={"title": "t"}),
        Record.new("artifact.added", story_id="STORY-1", author_name="A", author_email="a@x",
                   payload={"role": "decision", "content": "keep it"}),
    ])
    return root


def local_state(root: Path, home: Path) -> dict[str, object]:
    """The ledger refs and every file of the store folder (what a failure must not change)."""
    refs = git(root, "for-each-ref", "refs/genesis/")
    files = {p.relative_to(home).as_posix(): p.read_bytes()
             for p in sorted(home.rglob("*")) if p.is_file()}
    return {"refs": refs, "store": files}


def everything_written(root: Path, home: Path, out: subprocess.CompletedProcess) -> str:
    logs = "".join(p.read_text(errors="replace") for p in home.rglob("*.log"))
    return out.stdout + out.stderr + logs


def assert_one_line(out: subprocess.CompletedProcess, *needles: str) -> None:
    assert out.returncode == MIRROR_EXIT, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_wrong_password(tmp_path: Path, pg_db, genesis_env: Path) -> None:
    if not pg_db.server.checks_passwords:  # pragma: no cover - only some external servers
        pytest.skip("the server at GENESIS_TEST_PG_URL does not check passwords")
    root = ledger_repo(tmp_path, pg_db.url)
    before = local_state(root, genesis_env)
    wrong = "Wr0ng-" + pg_db.password
    out = run(root, "ledger", "mirror", env={"PGPASSWORD": wrong})
    assert_one_line(out, "the mirror refused the login", "password authentication failed")
    written = everything_written(root, genesis_env, out)
    assert wrong not in written and pg_db.password not in written
    out = run(root, "--debug", "ledger", "mirror", env={"PGPASSWORD": wrong})
    assert out.returncode == MIRROR_EXIT and wrong not in out.stdout + out.stderr
    assert local_state(root, genesis_env) == before
    # the password given in the environment's URL is masked too
    env_url = pg_db.url.replace(f"{pg_db.user}@", f"{pg_db.user}:{wrong}@")
    out = run(root, "ledger", "mirror", env={"GENESIS_LEDGER_MIRROR": env_url,
                                             "PGPASSWORD": ""})
    assert_one_line(out, "refused the login", f"{pg_db.user}:***@")
    assert wrong not in everything_written(root, genesis_env, out)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_host(tmp_path: Path, pg_db, genesis_env: Path) -> None:
    url = f"postgresql://genesis@127.0.0.1:{_closed_port()}/org"
    root = ledger_repo(tmp_path, url)
    before = local_state(root, genesis_env)
    out = run(root, "ledger", "mirror")
    assert_one_line(out, "cannot reach the mirror at postgresql://genesis@127.0.0.1:",
                    "refused")
    assert pg_db.password not in everything_written(root, genesis_env, out)
    assert local_state(root, genesis_env) == before
    out = run(root, "story", "list", "--org")
    assert_one_line(out, "cannot reach the mirror")


def test_missing_table_permission_rolls_the_batch_back(tmp_path: Path, pg_db,
                                                       genesis_env: Path) -> None:
    root = ledger_repo(tmp_path, pg_db.url)
    assert run(tmp_path, "ledger", "mirror", "--url", pg_db.url).returncode == 3  # not a repo
    out = run(root, "ledger", "mirror", "--json")  # the owner creates the schema
    assert out.returncode == 0, out.stderr
    with pg_db.admin() as conn:
        conn.execute("TRUNCATE genesis_records, story_records CASCADE")
    clerk = pg_db.server.role("genesis_clerk")
    with pg_db.admin() as conn:
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{clerk}"')
        conn.execute(f'GRANT INSERT ON genesis_records TO "{clerk}"')  # but not the seed's
    before = local_state(root, genesis_env)
    out = run(root, "ledger", "mirror", "--url", pg_db.url_as(clerk),
              env={"PGPASSWORD": pg_db.server.passwords[clerk]})
    assert_one_line(out, "the mirror's user lacks a permission", "permission denied for table")
    assert pg_db.count("genesis_records") == 0  # the batch's first statement was rolled back
    assert pg_db.server.passwords[clerk] not in everything_written(root, genesis_env, out)
    assert local_state(root, genesis_env) == before


def test_a_password_in_the_url_or_the_config_is_refused(tmp_path: Path, pg_db) -> None:
    secret = "s3cret-pw"
    root = ledger_repo(tmp_path, pg_db.url.replace("@", f":{secret}@", 1))
    out = run(root, "ledger", "mirror")
    assert out.returncode == 2
    assert "holds a password" in out.stderr and "PGPASSWORD or ~/.pgpass" in out.stderr
    assert secret not in out.stdout + out.stderr
    out = run(root, "ledger", "mirror", "--url",
              f"host=127.0.0.1 dbname=x user=u password='{secret}'")
    assert out.returncode == 2 and secret not in out.stderr
    assert "password=***" in out.stderr
    out = run(root, "story", "list", "--org")
    assert out.returncode == 2 and secret not in out.stderr


def test_pgpass_file_and_keyword_urls(tmp_path: Path, pg_db) -> None:
    root = ledger_repo(tmp_path)
    pgpass = Path(os.environ["HOME"]) / ".pgpass"
    pgpass.write_text(f"*:*:*:{pg_db.user}:{pg_db.password}\n")
    pgpass.chmod(0o600)
    out = run(root, "ledger", "mirror", "--url", pg_db.url, env={"PGPASSWORD": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("mirrored 2 new records of git.example.com/org/r to ")
    # a service file names the server; the password still comes from ~/.pgpass
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(pg_db.url)
    host = parse_qs(parts.query).get("host", [parts.hostname or ""])[0]
    service = tmp_path / "pg_service.conf"
    lines = ["[org]", f"host={host}", f"dbname={pg_db.name}", f"user={pg_db.user}"]
    if parts.port:
        lines.append(f"port={parts.port}")
    service.write_text("\n".join(lines) + "\n")
    (root / ".genesis.toml").write_text('[ledger]\nmirror = "postgresql://?service=org"\n')
    out = run(root, "story", "list", "--org", env={"PGPASSWORD": "",
                                                   "PGSERVICEFILE": str(service)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("STORY-1\t")


def test_without_a_mirror_org_says_how_to_configure_one(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a": "b"})
    for args in (("story", "list", "--org"), ("story", "context", "STORY-1", "--org"),
                 ("ledger", "mirror")):
        out = run(root, *args)
        assert out.returncode == 1
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "no PostgreSQL mirror is configured" in lines[0]
        assert "[ledger] in .genesis.toml" in lines[0] and "GENESIS_LEDGER_MIRROR" in lines[0]


def test_without_psycopg_mirror_commands_say_how_to_install_it(tmp_path: Path) -> None:
    root = ledger_repo(tmp_path, "postgresql://u@127.0.0.1/x")
    code = ("import sys; sys.modules['psycopg'] = None; sys.argv = ['genesis'] + sys.argv[1:]; "
            "from genesis_git.cli.main import run; run()")
    for args in (("ledger", "mirror"), ("story", "context", "STORY-1", "--org")):
        out = subprocess.run([sys.executable, "-c", code, *args], cwd=root, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 3, out.stderr
        assert out.stderr.startswith("genesis: error: the PostgreSQL mirror needs psycopg 3, an "
                                     "optional extra (install it with: ")
        assert "[postgres]'" in out.stderr.split("; once ")[0]  # a command that works today
        assert out.stderr.rstrip().endswith("once genesis-git is published: "
                                            "pip install 'genesis-git[postgres]')")
        assert len(out.stderr.strip().splitlines()) == 1


def test_unknown_story_and_empty_mirror(tmp_path: Path, pg_db) -> None:
    root = ledger_repo(tmp_path, pg_db.url)
    out = run(root, "story", "list", "--org")
    assert out.returncode == 1 and "holds no genesis ledger yet" in out.stderr
    assert run(root, "ledger", "mirror").returncode == 0
    out = run(root, "story", "context", "STORY-2", "--org")
    assert out.returncode == 1
    assert "unknown story 'STORY-2' in the mirror (closest known: STORY-1)" in out.stderr
    out = run(root, "story", "list", "--org", "--status", "wip")
    assert out.returncode == 2
    out = run(root, "story", "list", "--org", "--status", "done")
    assert out.returncode == 0 and out.stdout == "" and "no stories in the mirror" in out.stderr
    out = run(root, "story", "context", "STORY-1", "--org", "--with-code", "3")
    assert out.returncode == 2
    out = run(root, "story", "list", "--project", "x")
    assert out.returncode == 2 and "--project goes with --org" in out.stderr
    out = run(root, "ledger", "mirror", "--url", "host=127.0.0.1 dbname")
    assert out.returncode == 2 and "cannot read the mirror URL" in out.stderr
