"""User accounts: registration, login and authentication of session tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from app.models.user import User

MAX_FAILED_LOGINS = 5


class AuthError(Exception):
    pass


def hash_password(password: str, salt: str) -> str:
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 100_000)
    return digest.hex()


class UserService:
    def __init__(self) -> None:
        self._users: dict[str, User] = {}
        self._sessions: dict[str, int] = {}

    def register(self, email: str, password: str, display_name: str | None = None) -> User:
        email = email.strip().lower()
        if email in self._users:
            raise AuthError(f"{email} is already registered")
        if len(password) < 8:
            raise AuthError("a password needs at least 8 characters")
        salt = secrets.token_hex(16)
        user = User(id=len(self._users) + 1, email=email, display_name=display_name,
                    password_hash=hash_password(password, salt), password_salt=salt)
        self._users[email] = user
        return user

    def login(self, email: str, password: str) -> str:
        """Check the password and return a new session token; lock after repeated failures."""
        user = self._users.get(email.strip().lower())
        if user is None:
            raise AuthError("unknown email or wrong password")
        if user.locked:
            raise AuthError("this account is locked; reset the password to sign in")
        expected = hash_password(password, user.password_salt)
        if not hmac.compare_digest(expected, user.password_hash):
            user.failed_logins += 1
            user.locked = user.failed_logins >= MAX_FAILED_LOGINS
            raise AuthError("unknown email or wrong password")
        user.failed_logins = 0
        token = secrets.token_urlsafe(24)
        self._sessions[token] = user.id
        return token

    def authenticate(self, token: str) -> int:
        """The user id behind a session token."""
        try:
            return self._sessions[token]
        except KeyError:
            raise AuthError("not signed in") from None

    def logout(self, token: str) -> None:
        self._sessions.pop(token, None)
