"""Secrets in text that is about to be shared: tokens, keys and passwords a note may hold.

A note goes to the shared ledger, and from there to every clone of the remote.  Before
that, :func:`find_secrets` looks for what must not travel: provider tokens by their
documented shapes (GitHub, GitLab, AWS, Slack, Stripe, Google, npm, OpenAI), a private
key block, a password in a URL (``scheme://user:pass@host``) and a long, random-looking
value assigned to a name that says it is a secret (``api_key = …``, ``password: …``).

The rules follow the plugins of detect-secrets (one rule per kind of secret, a keyword
rule gated by the value's entropy), written afresh as one table.  A match is reported by
its rule and place, never by its value: what is printed about a secret must not hold it.
Ordinary hashes, commit SHAs and UUIDs are not secrets on their own; they count only when
a secret-sounding name is assigned them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    """One match: the rule that found it (``github-token``), what it is in words, and
    where it is in the text (``start``, ``end``)."""

    rule: str
    what: str
    start: int
    end: int


# (rule, what it is, pattern): a match of the pattern is a secret.  Every repetition is
# bounded, so that no text (a megabyte of ``a.a.a.``) makes a pattern scan it again from
# each of its places: the time stays linear in the length of the note.
_SHAPES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (rule, what, re.compile(pattern)) for rule, what, pattern in (
        ("github-token", "a GitHub token",
         r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
        ("github-token", "a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b"),
        ("gitlab-token", "a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,64}"),
        ("aws-access-key", "an AWS access key",
         r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
        ("slack-token", "a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,255}"),
        ("slack-webhook", "a Slack webhook",
         r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]{1,64}/B[A-Za-z0-9_]{1,64}/"
         r"[A-Za-z0-9_]{8,64}"),
        ("stripe-key", "a Stripe key", r"\b[rs]k_live_[A-Za-z0-9]{20,255}"),
        ("google-api-key", "a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("npm-token", "an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("openai-key", "an OpenAI key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{32,255}"),
        ("jwt", "a JSON Web Token",
         r"\beyJ[A-Za-z0-9_-]{8,1024}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8}"),
        ("private-key", "a private key",
         r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
    ))

# scheme://user:password@host; the password group is checked against placeholders
_URL_AUTH = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@\"'<>]{1,256}:"
                       r"([^\s/?#@\"'<>]{1,256})@[^\s/?#@\"'<>]")

# a word that says "secret" ending a name, an assignment (= : :=, =>), an optional quote,
# the value; the rest of the name is read backwards from the word (:func:`_name_before`)
_KEYWORD = re.compile(
    r"(?i)(?:api[_.-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_.-]?key|"
    r"auth[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?)"
    r"[\"']?[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8}([\"']?)([^\s\"',;]{1,256})\1")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")

# a value that only stands for a secret: $VAR, ${VAR}, <password>, {{ x }}, ***, xxx, %s
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{?.*\}\}?|%\(?\w*\)?s|"
    r"\*+|x+|X+|\.+|_+|-+|(?i:none|null|nil|true|false|changeme|password|secret|token|"
    r"redacted|example|placeholder|dummy|test|env|os\.environ.*|getenv.*))$")

#: the least entropy (bits per character) of a value assigned to a secret's name
MIN_ENTROPY = 3.0
#: the least length of that value (a password may be shorter than a key)
MIN_LENGTH = 12
MIN_PASSWORD_LENGTH = 8


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value))


def _random_enough(name: str, value: str) -> bool:
    """A value that looks drawn at random rather than written: long enough, mixed, high
    entropy.  A password needs less length but still letters and digits or symbols."""
    if _is_placeholder(value):
        return False
    password = bool(re.search(r"(?i)passw(?:or)?d|pwd", name))
    if len(value) < (MIN_PASSWORD_LENGTH if password else MIN_LENGTH):
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]",
                                                       r"[^A-Za-z0-9]"))
    if classes < 2:
        return False
    return password or entropy(value) >= MIN_ENTROPY


def _name_before(text: str, end: int, limit: int = 64) -> str:
    """The name characters just before ``end`` (``DB_`` of ``DB_PASSWORD``), at most
    ``limit`` of them."""
    start = end
    while start > 0 and end - start < limit and text[start - 1] in _NAME_CHARS:
        start -= 1
    return text[start:end]


def find_secrets(text: str) -> list[Secret]:
    """Every secret found in ``text``, in the order of their places (one per place)."""
    found: list[Secret] = []
    for rule, what, pattern in _SHAPES:
        found += [Secret(rule, what, m.start(), m.end()) for m in pattern.finditer(text)]
    for m in _URL_AUTH.finditer(text):
        if not _is_placeholder(m[1]):
            found.append(Secret("url-password", "a password in a URL", m.start(1), m.end(1)))
    for m in _KEYWORD.finditer(text):
        name = _name_before(text, m.start()) + text[m.start():m.start(2)].rstrip("\"' \t:=>")
        if _random_enough(name, m[2]):
            found.append(Secret("assigned-secret", f"a value assigned to {name!r}",
                                m.start(2), m.end(2)))
    found.sort(key=lambda s: (s.start, -s.end))
    out: list[Secret] = []
    for s in found:  # a token inside an assignment is one secret, named by its shape
        if out and s.start < out[-1].end:
            if out[-1].rule == "assigned-secret" and s.rule != "assigned-secret":
                out[-1] = s
            continue
        out.append(s)
    return out


def first_secret(*texts: str | None) -> Secret | None:
    """The first secret in any of ``texts`` (``None`` ones are skipped), or ``None``."""
    for text in texts:
        if text:
            hits = find_secrets(text)
            if hits:
                return hits[0]
    return None
