"""Test-wide settings."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_under_pytests_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A model's `learn` without a log folder makes an empty `SB3-<date>` folder in the system's temporary
    folder (stable-baselines3's `configure`), one a test, left behind: the tests' go under pytest's own."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
