"""The ``users`` table: accounts that can sign in and place orders."""

from __future__ import annotations

from app.models.base import Column, Model


class User(Model):
    __tablename__ = "users"

    id = Column("INTEGER", primary_key=True)
    email = Column("VARCHAR(254)", nullable=False)
    display_name = Column("VARCHAR(80)")
    password_hash = Column("VARCHAR(128)", nullable=False)
    password_salt = Column("VARCHAR(32)", nullable=False)
    failed_logins = Column("INTEGER", nullable=False, default=0)
    locked = Column("BOOLEAN", nullable=False, default=False)
