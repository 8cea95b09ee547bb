"""One place chooses how helpers run: forked where the system can fork, else in this process."""

from __future__ import annotations

import os

import pytest

from proxy.workers import choice
from proxy.workers.forked import Forked
from proxy.workers.in_process import InProcess


def test_where_the_system_forks_helpers_are_forked_children() -> None:
    assert choice.runner() is Forked


def test_without_fork_no_child_is_started_and_the_caller_does_the_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(os, "fork")
    chosen = choice.runner()
    assert isinstance(chosen, InProcess)
    ran: list[bool] = []
    assert chosen.start(lambda output: ran.append(True)) is None
    assert ran == []
