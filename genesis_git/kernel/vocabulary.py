"""The words genesis stores and checks: artifact types, roles, statuses, link types.

Standard library only and free of imports, so every layer (the hooks included) may use
it.  The SQL migrations of :mod:`genesis_git.store.migrations` and the mirror's schema
keep their own literal copies, as a migration must never change once released; a test
holds those copies equal to the tuples here.
"""

from __future__ import annotations

# what a file is, as classify.py decides and `genesis search --type` filters
ARTIFACT_TYPES = ("REQ", "ARCH", "API", "DB", "UI", "CODE", "OTHER")
TYPE_CODE = "CODE"
TYPE_OTHER = "OTHER"

# how a search ranks: both signals fused, or one of them
SEARCH_MODES = ("hybrid", "lexical", "vector")

# the role of a note in a session (`genesis session note --role`)
NOTE_ROLES = ("analysis", "doc_change", "note", "decision", "risk", "test_model")
ROLE_NOTE = "note"

# the role of an artifact of a story: a session's note roles plus the requirement document
STORY_ROLES = ("requirement", "analysis", "doc_change", "test_model", "note", "decision", "risk")
ROLE_REQUIREMENT = "requirement"
# the order in which a story's context shows its artifacts
ROLE_ORDER = ("requirement", "analysis", "decision", "risk", "test_model", "note", "doc_change")

# what happened to an artifact
CHANGE_TYPES = ("added", "updated", "removed", "linked")

# where a story stands
STORY_STATUSES = ("draft", "in_progress", "review", "done", "archived")
STATUS_DRAFT = "draft"
STATUS_IN_PROGRESS = "in_progress"

# a session is active until it is ended
SESSION_STATUSES = ("active", "ended")
SESSION_ACTIVE = "active"

# which commits get a Genesis-Session trailer (story.session_trailer): those that name a
# story, all, or none
TRAILER_MODES = ("story", "always", "never")

# what a story links to
LINK_TYPES = ("story", "adr", "ticket", "pr", "commit", "doc", "external")
LINK_COMMIT = "commit"
