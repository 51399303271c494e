"""UserService: login, authentication and the lock after repeated failures."""

from __future__ import annotations

import pytest

from app.services.user_service import MAX_FAILED_LOGINS, AuthError, UserService


def test_login_then_authenticate() -> None:
    users = UserService()
    user = users.register("Ada@Example.com", "correct horse")
    token = users.login("ada@example.com", "correct horse")
    assert users.authenticate(token) == user.id
    users.logout(token)
    with pytest.raises(AuthError, match="not signed in"):
        users.authenticate(token)


def test_repeated_failures_lock_the_account() -> None:
    users = UserService()
    users.register("bob@example.com", "s3cret-pass")
    for _ in range(MAX_FAILED_LOGINS):
        with pytest.raises(AuthError, match="wrong password"):
            users.login("bob@example.com", "nope")
    with pytest.raises(AuthError, match="locked"):
        users.login("bob@example.com", "s3cret-pass")
