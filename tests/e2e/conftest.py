"""Fixtures of the end-to-end tests that install real tools from a package registry once, into
a cache outside the repository (``GENESIS_TEST_CACHE``, default: the temp folder)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("GENESIS_TEST_CACHE")
             or Path(tempfile.gettempdir()) / "genesis-test-cache")


@pytest.fixture(scope="session")
def pre_commit_bin() -> Path:
    """pre-commit from PyPI, in its own virtual environment in the cache."""
    venv = CACHE / "pre-commit-venv"
    exe = venv / "bin" / "pre-commit"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True,
                       capture_output=True)
        proc = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "pre-commit"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.skip(f"pre-commit could not be installed from PyPI: {proc.stderr[-300:]}")
    return exe
