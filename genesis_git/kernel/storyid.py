"""The story id pattern used when the configuration sets none (``story.pattern``).

It lives in the kernel because both the hooks' light settings reader and the full
configuration need it, and the hooks load nothing heavier."""

from __future__ import annotations

DEFAULT_STORY_PATTERN = r"[A-Z][A-Z0-9]+-\d+"
