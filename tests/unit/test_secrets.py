"""The secret rules a note is checked against before it may be shared: one test per rule,
and the ordinary text (hashes, commit SHAs, UUIDs, placeholders) that must not trip them.
Token-shaped values are assembled here so that this file holds none whole."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from genesis_git.stories.ledger.secrets import entropy, find_secrets, first_secret

GH = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"
PAT = "github_pat_" + "11ABCDEFG0" * 2 + "_" + "aZ3kL9qW2e" * 6
AWS = "AKIA" + "IOSFODNN7EXAMPLQ"
SLACK = "xox" + "b-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
KEY_BLOCK = ("-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyu\n"
             "-----END RSA PRIVATE KEY-----")


def rules(text: str) -> list[str]:
    return [s.rule for s in find_secrets(text)]


@pytest.mark.parametrize(("text", "rule"), [
    (f"use {GH} for the CI", "github-token"),
    (f"fine-grained: {PAT}", "github-token"),
    ("glpat-" + "x9Y8z7W6v5U4t3S2r1Q0", "gitlab-token"),
    (f"key {AWS} in eu-west-1", "aws-access-key"),
    ("ASIA" + "Y34FZKBOKMUTVV7A", "aws-access-key"),
    (f"bot token {SLACK}", "slack-token"),
    ("xox" + "p-2a9c8b7d6e5f4a3b", "slack-token"),
    ("https://hooks.slack.com/services/" + "T0ABCDEF1/B0ABCDEF2/aBcDeFgHiJkLmNoPqRsTuVwX",
     "slack-webhook"),
    ("sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "google-api-key"),
    ("npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm-token"),
    ("OPENAI=" + "sk-" + "proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56", "openai-key"),
    ("eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
     "jwt"),
    (f"the deploy key:\n{KEY_BLOCK}", "private-key"),
    ("-----BEGIN " + "OPENSSH PRIVATE KEY-----", "private-key"),
    ("-----BEGIN " + "PGP PRIVATE KEY BLOCK-----", "private-key"),
    ("-----BEGIN " + "ENCRYPTED PRIVATE KEY-----", "private-key"),
    ("db is postgres://admin:" + "s3cr3tPw@db.internal:5432/orders", "url-password"),
    ("clone https://bob:" + "hunter2x@git.example.com/x.git", "url-password"),
    ("api_key = " + "'9fQ2xZr7LkP0vBn4WmT8'", "assigned-secret"),
    ('"client_secret": "' + 'Zx8-Qw7_Er6.Ty5Ui4Op3"', "assigned-secret"),
    ("export DB_PASSWORD=" + "Tr0ub4dor&3", "assigned-secret"),
    ("aws_secret_access_key: " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "assigned-secret"),
    ("token := " + "3f786850e387550fdab836ed7e6dc881de23001b", "assigned-secret"),
])
def test_each_rule_finds_its_secret(text: str, rule: str) -> None:
    assert rules(text) == [rule]


def test_a_token_assigned_to_a_name_is_one_secret_named_by_its_shape() -> None:
    assert rules(f"GITHUB_TOKEN={GH}") == ["github-token"]


def test_the_match_says_where_but_the_description_never_holds_the_secret() -> None:
    text = f"note: {AWS} end"
    [s] = find_secrets(text)
    assert text[s.start:s.end] == AWS
    assert AWS not in s.what and s.what == "an AWS access key"


def test_several_secrets_are_reported_in_order() -> None:
    assert rules(f"{AWS} then {GH}") == ["aws-access-key", "github-token"]


SHA1 = hashlib.sha1(b"x").hexdigest()
SHA256 = hashlib.sha256(b"x").hexdigest()


@pytest.mark.parametrize("text", [
    f"fixed in {SHA1}",
    f"commit {SHA1[:12]} reverted by {SHA1}",
    f"commit = {SHA1}",
    f"sha256: {SHA256}",
    f"checksum={SHA256}",
    f"request id {uuid.uuid4()}",
    f"id = {uuid.uuid4()}",
    "订单表新增字段 discount_code；token 的有效期为 30 分钟",
    "the token expires after 30 minutes; password rules: 12 characters",
    "password = required",
    "api_key = ${OPENAI_API_KEY}",
    "password: <password>",
    "secret = {{ vault.secret }}",
    "token: os.environ['TOKEN']",
    "postgres://user:${PGPASSWORD}@db/orders",
    "https://user:***@example.com/",
    "see https://example.com/a:b@c and http://localhost:8080/x",
    "email me at ana@example.com: the api is at https://api.example.com",
    "ghp_short and AKIA-not-a-key and xoxb-",
    "sk-learn is a library; AIzaShort",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "the token_type: bearer",
    "password_min_length = 12",
])
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_entropy() -> None:
    assert entropy("") == 0.0
    assert entropy("aaaa") == 0.0
    assert entropy("abcd") == pytest.approx(2.0)


def test_first_secret_over_several_texts() -> None:
    assert first_secret(None, "plain", f"section {GH}") is not None
    assert first_secret(None, "plain", "") is None


@pytest.mark.parametrize("unit", ["a.", "a-", "a:", "a://b:", "eyJ-", "eyJa.", "glpat-", "xoxb-",
                                  "sk-", "-----BEGIN ", "token=", "api_key: ", "https://u:",
                                  "x@", "'", "ghp_"])
def test_a_long_adversarial_note_is_checked_in_linear_time(unit: str) -> None:
    """50 KB made of one repeated piece: a pattern that rescans from every place would take
    minutes (``a.`` repeated took 500 s before every repetition was bounded)."""
    import time

    text = unit * (50_000 // len(unit))
    start = time.perf_counter()
    find_secrets(text)
    assert time.perf_counter() - start < 2.0


def test_a_secret_after_a_long_note_is_still_found() -> None:
    assert rules("x " * 100_000 + f"finally {AWS}") == ["aws-access-key"]
    assert rules("prefix_" * 20 + "API_KEY=" + "9fQ2xZr7LkP0vBn4WmT8") == ["assigned-secret"]
