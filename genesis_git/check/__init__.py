"""``genesis check``: what did this change forget?  See :mod:`genesis_git.check.engine`."""

from genesis_git.check.engine import SCHEMA, SOURCES, CheckOptions, CheckResult, Missing, check

__all__ = ["SCHEMA", "SOURCES", "CheckOptions", "CheckResult", "Missing", "check"]
