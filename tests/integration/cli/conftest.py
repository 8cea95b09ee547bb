"""Fixtures of the command-line tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.running import sandbox_process


@pytest.fixture(scope="module")
def sandbox_upstream() -> Iterator[str]:
    """One sandbox a module's servers forward to, started once for the module: for tests that only
    read from it (it keeps no state a read changes)."""
    with sandbox_process() as url:
        yield url
