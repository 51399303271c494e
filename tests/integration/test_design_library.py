"""The library folder: init, ids, RAG-A (byte-identical re-ingest), RAG-C (paths), stats, doctor."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from genesis_git.app.doctor import run_checks
from genesis_git.config.settings import load_config
from genesis_git.design.ingest import ingest_docs, ingest_rules, rule_files
from genesis_git.design.library import (
    Library,
    LibraryUnavailable,
    PathEscape,
    engine_sha256,
    inside,
    open_library,
)
from genesis_git.design.manage import doctor_findings, init_library, stats
from genesis_git.git.repo import find_repo

from helpers import LIB, design, ok, snapshot, write


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_init_creates_the_layout_and_is_idempotent(repo: Path) -> None:
    res = ok("init")
    assert res.stdout.splitlines()[0] == "library: .shared/design-library (created, 0 card(s))"
    lib = repo / LIB
    for name in ("manifest.json", "chunks.jsonl", "index.json", "query.mjs", ".gitignore"):
        assert (lib / name).is_file(), name
    assert (lib / "refs").is_dir() and (lib / "inbox").is_dir()
    manifest = json.loads((lib / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["cards"] == [] and manifest["nextId"] == 1
    assert manifest["engineSha256"] == _sha(lib / "query.mjs") == engine_sha256()
    before = snapshot(lib)
    again = ok("init", "--json")
    assert json.loads(again.stdout)["created"] is False
    assert json.loads(again.stdout)["filesWritten"] == []
    assert snapshot(lib) == before


def test_init_restores_a_changed_reader_and_rebuilds_a_missing_index(repo: Path) -> None:
    ok("init")
    lib = repo / LIB
    (lib / "query.mjs").write_text("// broken\n", encoding="utf-8")
    (lib / "index.json").unlink()
    res = ok("init", "--json")
    data = json.loads(res.stdout)
    assert data["readerWritten"] is True and data["filesWritten"] == ["index.json"]
    assert _sha(lib / "query.mjs") == engine_sha256()


def test_rag_a_repeated_ingest_leaves_the_manifest_byte_identical(repo: Path) -> None:
    first = ok("ingest", "rules", "--json")
    report = json.loads(first.stdout)
    n = len(rule_files())
    assert n >= 24
    assert report["added"] == [f"DSG-{i:04d}" for i in range(1, n + 1)]
    manifest = repo / LIB / "manifest.json"
    digest = _sha(manifest)
    files = snapshot(repo / LIB)
    second = ok("ingest", "rules", "--json")
    again = json.loads(second.stdout)
    assert again["added"] == [] and len(again["unchanged"]) == n and again["written"] == []
    assert _sha(manifest) == digest
    assert snapshot(repo / LIB) == files
    data = json.loads(manifest.read_text(encoding="utf-8"))
    ids = [c["id"] for c in data["cards"]]
    assert len(ids) == len(set(ids)) == n
    chunks = [json.loads(x) for x in (repo / LIB / "chunks.jsonl").read_text("utf-8").splitlines()]
    assert len({c["chunkId"] for c in chunks}) == len(chunks) == data["counts"]["chunks"]
    assert all(len(c["text"]) <= 400 for c in chunks)


def test_rag_a_holds_for_every_source(repo: Path) -> None:
    from helpers import ROOT, copy_inbox, write_manifest

    write(repo, "ux/a.md", "# Cards\n\nCard radius is 16vp.\n")
    copy_inbox(repo, unknown_license_for_empty=True)
    write_manifest(repo / "other" / "manifest.json", [{
        "id": "X-1", "title": "Imported", "tags": ["x"],
        "source": {"kind": "official", "ref": "r", "license": "CC0-1.0"}}])
    (repo / "baseline.json").write_bytes((ROOT / "examples" / "baseline.json").read_bytes())
    steps = [("ingest", "docs", "ux"), ("ingest", "inbox"),
             ("ingest", "manifest", "other/manifest.json"),
             ("capture", "--baseline", "baseline.json", "--confirmed")]
    for step in steps:
        ok(*step)
    files = snapshot(repo / LIB)
    for step in steps:
        ok(*step)
    assert snapshot(repo / LIB) == files
    ids = [c["id"] for c in json.loads((repo / LIB / "manifest.json").read_text("utf-8"))["cards"]]
    assert ids == ["DSG-0001", "DSG-0002", "DSG-0003", "DSG-0004", "DSG-0005", "DSG-0006"]


def test_every_rule_card_cites_a_public_guideline_with_thresholds(repo: Path) -> None:
    ok("ingest", "rules")
    cards = json.loads((repo / LIB / "manifest.json").read_text("utf-8"))["cards"]
    guidelines = set()
    for c in cards:
        assert c["source"]["kind"] == "rule"
        assert c["source"]["license"] == "MIT"
        assert c["source"]["url"].startswith("https://")
        assert c["tokens"], c["id"]
        assert c["citation"]["section"]
        guidelines.add(c["citation"]["guideline"])
    assert {"WCAG 2.2", "Material Design 3", "Apple Human Interface Guidelines",
            "HarmonyOS Design"} <= guidelines
    sections = " ".join(c["citation"]["section"] for c in cards)
    for sc in ("1.4.3", "1.4.11", "2.5.8", "2.4.7", "1.4.12"):
        assert f"SC {sc}" in sections
    areas = {cat for c in cards for cat in c["tokens"]}
    assert {"spacing", "type", "contrast", "target", "radius", "motion", "palette",
            "focus"} <= areas


def test_ids_increase_and_an_updated_source_keeps_its_id(repo: Path) -> None:
    write(repo, "ux/a.md", "# Cards\n\nCard radius is 16vp.\n")
    ok("ingest", "docs", "ux")
    write(repo, "ux/b.md", "# Lists\n\nRow height 64vp.\n")
    write(repo, "ux/a.md", "# Cards\n\nCard radius is 20vp.\n")
    report = json.loads(ok("ingest", "docs", "ux", "--json").stdout)
    assert report["updated"] == ["DSG-0001"] and report["added"] == ["DSG-0002"]
    manifest = json.loads((repo / LIB / "manifest.json").read_text("utf-8"))
    assert manifest["nextId"] == 3
    first = manifest["cards"][0]
    assert first["tokens"]["radius"] == [{"name": "radius", "value": 20, "unit": "vp"}]
    write(repo, "ux/c.md", "# Grid\n\nGutter 4vp.\n")
    report = json.loads(ok("ingest", "docs", "ux", "--json").stdout)
    assert report["added"] == ["DSG-0003"]


def test_same_bytes_under_another_name_are_skipped(repo: Path) -> None:
    write(repo, "ux/a.md", "# Cards\n\nCard radius is 16vp.\n")
    write(repo, "ux/copy.md", "# Cards\n\nCard radius is 16vp.\n")
    report = json.loads(ok("ingest", "docs", "ux", "--json").stdout)
    assert report["added"] == ["DSG-0001"]
    assert report["skipped"] == [{"name": "ux/copy.md",
                                  "reason": "already in the library as DSG-0001"}]


# -- RAG-C -------------------------------------------------------------------------

def test_inside_refuses_traversal_absolute_and_symlink_escapes(tmp_path: Path) -> None:
    base = tmp_path / "lib"
    base.mkdir()
    (tmp_path / "secret.txt").write_text("x", encoding="utf-8")
    assert inside(base, "refs/a.png") == (base / "refs" / "a.png").resolve()
    with pytest.raises(PathEscape, match=r"leaves"):
        inside(base, "../secret.txt")
    with pytest.raises(PathEscape, match=r"is absolute"):
        inside(base, str(tmp_path / "secret.txt"))
    os.symlink(tmp_path / "secret.txt", base / "link.txt")
    with pytest.raises(PathEscape, match=r"link.txt leaves"):
        inside(base, "link.txt")
    with pytest.raises(PathEscape, match=r"not a valid path"):
        inside(base, "")


def test_rag_c_ingest_refuses_paths_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("# X\n", encoding="utf-8")
    res = design("ingest", "docs", str(outside))
    assert res.exit_code == 1
    assert res.stderr.strip() == (f"genesis: error: docs folder {outside} is outside the "
                                  f"repository {repo.resolve()} (copy it into the working "
                                  "tree first)")
    res = design("ingest", "docs", "../outside")
    assert res.exit_code == 1 and "is outside the repository" in res.stderr
    res = design("ingest", "manifest", "../outside/manifest.json")
    assert res.exit_code == 1 and "manifest ../outside/manifest.json is outside" in res.stderr
    assert not (repo / LIB).exists()


def test_rag_c_symlinks_that_leave_are_rejected(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nradius 4vp\n", encoding="utf-8")
    write(repo, "ux/ok.md", "# Fine\n\nradius 8vp\n")
    os.symlink(secret, repo / "ux" / "leak.md")
    res = design("ingest", "docs", "ux", "--json")
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    assert report["added"] == ["DSG-0001"]
    assert report["rejected"][0]["name"].endswith("ux/leak.md")
    assert "leak.md leaves" in report["rejected"][0]["reason"]
    # an inbox image that is a symlink to a file outside the library
    inbox = repo / LIB / "inbox"
    (inbox / "x.meta.json").write_text(json.dumps(
        {"title": "x", "tags": ["x"], "source": "me", "license": "CC0-1.0"}), encoding="utf-8")
    os.symlink(secret, inbox / "x.png")
    res = design("ingest", "inbox", "--json")
    assert res.exit_code == 1
    assert "x.png leaves" in json.loads(res.stdout)["rejected"][0]["reason"]
    # the refs folder replaced by a symlink to the outside
    (repo / LIB / "refs").rmdir()
    os.symlink(tmp_path, repo / LIB / "refs")
    lib = open_library(repo)
    with pytest.raises(PathEscape):
        lib.write_bytes("refs/a.png", b"x")
    assert not (tmp_path / "a.png").exists()


def test_rag_c_manifest_image_paths_cannot_traverse(repo: Path) -> None:
    write(repo, "other/lib/manifest.json", json.dumps({"cards": [{
        "id": "X-1", "title": "x", "tags": ["x"],
        "source": {"kind": "user", "ref": "r", "license": "CC0-1.0"},
        "images": [{"path": "../../../../etc/passwd"}]}]}))
    res = design("ingest", "manifest", "other/lib/manifest.json", "--json")
    assert res.exit_code == 1
    rejected = json.loads(res.stdout)["rejected"]
    assert rejected[0]["name"] == "other/lib/manifest.json#X-1"
    assert "leaves" in rejected[0]["reason"]


def test_library_dir_comes_from_config(repo: Path) -> None:
    write(repo, ".genesis.toml", '[design]\nlibrary_dir = "design/refs-lib"\n')
    ok("init")
    assert (repo / "design" / "refs-lib" / "manifest.json").is_file()
    lib = open_library(repo)
    assert lib.shared_dir == (repo / "design").resolve()


# -- stats, doctor, degradation --------------------------------------------------------

def test_stats_counts_kinds_statuses_chunks_and_feedback(repo: Path) -> None:
    ok("ingest", "rules")
    ok("feedback", "DSG-0001", "useful")
    ok("feedback", "DSG-0002", "block")
    data = json.loads(ok("stats", "--json").stdout)
    n = len(rule_files())
    assert data["cards"] == {"total": n, "byKind": {"rule": n},
                             "byStatus": {"active": n - 1, "blocked": 1}, "unknownLicense": 0}
    assert data["chunks"] > n and data["index"]["available"] is True
    assert data["index"]["chunks"] == data["chunks"] and data["index"]["bytes"] > 1000
    assert data["feedback"] == {"block": 1, "useful": 1}
    assert data["reader"]["matches"] is True
    text = ok("stats").stdout
    assert f"cards:   {n} rule={n} | active={n - 1} blocked=1" in text
    assert "feedback: block=1 useful=1" in text


def _findings(repo: Path) -> list[tuple[str, str]]:
    return [(f.status, f.message) for f in
            doctor_findings(find_repo(repo), load_config(repo))]


def test_doctor_reports_absent_ok_and_unavailable(repo: Path) -> None:
    assert _findings(repo) == [("ok", "no design library at .shared/design-library (optional; "
                                      "`genesis design init` creates it)")]
    ok("ingest", "rules")
    n = len(rule_files())
    assert _findings(repo) == [("ok", f".shared/design-library: {n} card(s)")]
    (repo / LIB / "query.mjs").write_text("// edited\n", encoding="utf-8")
    status, message = _findings(repo)[0]
    assert status == "warn" and "differs from the recorded engineSha256" in message
    ok("init")
    (repo / LIB / "index.json").write_text("{not json", encoding="utf-8")
    status, message = _findings(repo)[0]
    assert status == "warn"
    assert message.startswith("unavailable: .shared/design-library/index.json is corrupt")
    checks = {f.name: f for f in run_checks(repo)}
    assert checks["design library"].status == "warn"
    assert "genesis design init" in checks["design library"].fix


def test_corrupt_manifest_is_one_clear_error(repo: Path) -> None:
    ok("init")
    (repo / LIB / "manifest.json").write_text("[]", encoding="utf-8")
    res = design("stats")
    assert res.exit_code == 1
    assert res.stderr.strip() == ("genesis: error: .shared/design-library/manifest.json is not a "
                                  "design library manifest (restore it from git (git checkout "
                                  "-- the file))")
    (repo / LIB / "manifest.json").write_text("{", encoding="utf-8")
    res = design("ingest", "rules")
    assert res.exit_code == 1 and "manifest.json cannot be read" in res.stderr
    status, message = _findings(repo)[0]
    assert status == "warn" and "cannot be read" in message


def test_a_newer_manifest_is_refused(repo: Path) -> None:
    ok("init")
    path = repo / LIB / "manifest.json"
    data = json.loads(path.read_text("utf-8"))
    data["schemaVersion"] = 99
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LibraryUnavailable, match="written by a newer genesis"):
        open_library(repo).load_manifest()


def test_the_lock_refuses_a_second_writer(repo: Path) -> None:
    from genesis_git.design.library import file_lock
    from genesis_git.kernel.errors import GenesisError

    lib = open_library(repo)
    init_library(lib)
    with lib.locked(), pytest.raises(GenesisError, match="design library is busy"), \
            file_lock(lib.path(".lock"), timeout=0.1):
        pass  # pragma: no cover - never reached
    assert not lib.path(".lock").exists()
    stale = lib.path(".lock")
    stale.write_text("1", encoding="utf-8")
    os.utime(stale, (1, 1))
    with lib.locked():
        assert stale.exists()
    assert not stale.exists()


def test_library_api_without_the_cli(repo: Path) -> None:
    lib = open_library(repo)
    assert isinstance(lib, Library)
    report = ingest_rules(lib)
    assert report.added[0] == "DSG-0001"
    assert stats(lib)["cards"]["total"] == len(report.added)
    write(repo, "ux/a.md", "---\ntitle: Spacing\nlicense: CC-BY-4.0\n---\nGap 8vp.\n")
    assert ingest_docs(lib, repo / "ux").added == [f"DSG-{len(report.added) + 1:04d}"]
