"""The fold of the records that rewrites write: an artifact leaves one story, a story is
removed, its baseline moves; whatever the order in which the records arrive."""

from __future__ import annotations

import itertools
import random

from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger.records import Record, fold


def rec(kind: str, story: str | None = "STORY-12", *, t: str, email: str = "a@example.com",
        **payload: object) -> Record:
    return Record(id=R.new_id(), kind=kind, story_id=story, session_id=None,
                  author_name=email.split("@")[0], author_email=email, time=t,
                  payload=dict(payload))


def T(minute: int) -> str:
    return f"2026-12-01T03:{minute:02d}:00.000Z"


def every_order(records: list[Record], n: int = 60) -> list[dict[str, R.StoryState]]:
    """The fold of ``n`` orders of the records (all of them when there are few)."""
    if len(records) <= 5:
        orders = list(itertools.permutations(records))
    else:
        rng = random.Random(7)
        orders = [rng.sample(records, len(records)) for _ in range(n)]
    return [fold(o) for o in orders]


def test_a_moved_note_leaves_its_first_story_only_and_can_come_back() -> None:
    n1 = "01JNOTE0000000000000000001"
    created = rec("story.created", t=T(0), title="discount", status="in_progress")
    created13 = rec("story.created", "STORY-13", t=T(1), title="discount", status="in_progress")
    in12 = rec("artifact.added", t=T(0), role="decision", content="d", note_id=n1,
               source_ref="s-1")
    in13 = rec("artifact.added", "STORY-13", t=T(1), role="decision", content="d", note_id=n1,
               source_ref="s-1")
    out12 = rec("artifact.removed", t=T(1), note_id=n1, role="decision", record_id=in12.id)
    everything = [created, created13, in12, in13, out12]
    states = every_order(everything)
    assert all(s == states[0] for s in states)
    assert states[0]["STORY-12"].artifacts == []
    assert [a["record_id"] for a in states[0]["STORY-13"].artifacts] == [in13.id]
    # moved back later: the artifact added after the removal counts
    back = rec("artifact.added", t=T(2), role="decision", content="d", note_id=n1,
               source_ref="s-1")
    state = fold([back, *everything])["STORY-12"]
    assert [a["record_id"] for a in state.artifacts] == [back.id]
    assert state.updated_at == T(2)
    # a requirement (no note) leaves by its key
    req = rec("artifact.added", t=T(0), role="requirement", doc_id="docs/r.md",
              path="docs/r.md", change_type="linked", source_ref="s-1")
    gone = rec("artifact.removed", t=T(3), role="requirement", doc_id="docs/r.md",
               path="docs/r.md", change_type="linked", record_id=req.id)
    assert [a["role"] for a in fold([created, req])["STORY-12"].artifacts] == ["requirement"]
    assert fold([gone, created, req])["STORY-12"].artifacts == []


def test_a_removed_story_is_not_listed_until_something_holds_it_again() -> None:
    created = rec("story.created", t=T(0), title="first title", status="in_progress",
                  created_by="Ana <a@example.com>")
    link = rec("link.added", t=T(0), link_type="commit", target="c1", meta={"parents": ["p"]})
    unlink = rec("link.removed", t=T(5), link_type="commit", target="c1")
    titled = rec("story.title", t=T(1), title="by hand")
    base = rec("story.baseline", t=T(0), baseline_commit_sha="p")
    removed = rec("story.removed", t=T(6))
    history = [created, link, unlink, titled, base, removed]
    assert all(s == {} for s in every_order(history))
    # created again later: the fields start again, the old title and baseline are gone
    again = rec("story.created", t=T(9), title="second title", status="in_progress")
    link2 = rec("link.added", t=T(9), link_type="commit", target="c2")
    states = every_order([*history, again, link2])
    assert all(s == states[0] for s in states)
    s = states[0]["STORY-12"]
    assert (s.title, s.status, s.baseline_commit_sha) == ("second title", "in_progress", None)
    assert (s.created_at, s.created_by, s.removed) == (T(9), "a <a@example.com>", True)
    assert [lk["target"] for lk in s.links] == ["c2"]
    # a status set after the removal lists the story again, with its old fields
    later = rec("story.status", t=T(8), email="b@example.com", status="review")
    s = fold([*history, later])["STORY-12"]
    assert (s.title, s.status, s.created_at, s.removed) == ("by hand", "review", T(0), False)


def test_what_another_clone_added_meanwhile_keeps_the_removed_story() -> None:
    created = rec("story.created", t=T(0), title="discount", status="in_progress")
    mine = rec("link.added", t=T(0), link_type="commit", target="c1")
    theirs = rec("link.added", t=T(4), email="b@example.com", link_type="commit", target="c9")
    note = rec("artifact.added", t=T(4), email="b@example.com", role="risk", content="r",
               note_id="01JNOTE0000000000000000009", source_ref="s-9")
    unlink = rec("link.removed", t=T(5), link_type="commit", target="c1")
    removed = rec("story.removed", t=T(5))
    states = every_order([created, mine, theirs, note, unlink, removed])
    assert all(s == states[0] for s in states)
    s = states[0]["STORY-12"]
    assert (s.title, s.status, s.created_at) == ("discount", "in_progress", T(0))
    assert [lk["target"] for lk in s.links] == ["c9"]
    assert [a["content"] for a in s.artifacts] == ["r"]


def test_the_baseline_takes_the_last_writer_over_the_creation() -> None:
    created = rec("story.created", t=T(0), title="t", baseline_commit_sha="b0")
    assert fold([created])["STORY-12"].baseline_commit_sha == "b0"
    b1 = rec("story.baseline", t=T(1), baseline_commit_sha="b1")
    b2 = rec("story.baseline", t=T(1), email="z@example.com", baseline_commit_sha="b2")
    states = every_order([created, b1, b2])
    assert {s["STORY-12"].baseline_commit_sha for s in states} == {"b2"}  # same time: e-mail


def test_a_retraction_removes_the_note_for_good_and_counts_as_an_update() -> None:
    created = rec("story.created", t=T(0), title="t")
    note = rec("artifact.added", t=T(1), role="risk", content="wrong", note_id="N1",
               source_ref="s-1")
    back = rec("artifact.added", t=T(3), role="risk", content="wrong", note_id="N1",
               source_ref="s-1")
    gone = rec("note.retracted", t=T(2), note_id="N1")
    states = every_order([created, note, back, gone])
    assert all(s == states[0] for s in states)
    assert states[0]["STORY-12"].artifacts == []
    assert states[0]["STORY-12"].updated_at == T(2)  # the retraction counts, its note not
    # the old meaning stays: a retraction under one story takes the note out of every story
    other = rec("artifact.added", "STORY-13", t=T(1), role="risk", content="wrong",
                note_id="N1", source_ref="s-1")
    other_created = rec("story.created", "STORY-13", t=T(0), title="u")
    assert fold([created, note, gone, other, other_created])["STORY-13"].artifacts == []
