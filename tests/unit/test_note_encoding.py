"""Text that is not UTF-8 (an argument Python kept as lone surrogates) is refused in one
line, and the log that records a failure still writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.kernel.errors import ExitCode, UsageError
from genesis_git.kernel.logfile import append_log
from genesis_git.stories.artifacts import check_text


def test_text_that_is_not_utf8_is_a_usage_error() -> None:
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")
    with pytest.raises(UsageError) as caught:
        check_text(bad, "note")
    assert str(caught.value).startswith("the note is not valid UTF-8 (at character 4)")
    assert caught.value.exit_code == ExitCode.USAGE
    check_text("café 订单", "note")
    check_text(None, "--path")


def test_a_log_entry_with_bytes_that_are_not_utf8_is_written(tmp_path: Path) -> None:
    entry = "argv: genesis session note " + b"\xff".decode("utf-8", "surrogateescape") + "\n"
    assert append_log([tmp_path / "genesis.log"], entry) == tmp_path / "genesis.log"
    assert (tmp_path / "genesis.log").read_bytes() == (
        b"argv: genesis session note \\udcff\n")
