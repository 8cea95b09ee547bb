"""The command line's first step: a Ctrl-C that Python hands on as another exception (a RuntimeError
from a dataclass's `__set_name__` as a module is imported) is still one line and exit 130."""

from __future__ import annotations

import pytest

import proxy.cli.main as command_line
from proxy.cli import start


def _wrapped(outer: type[Exception], depth: int) -> None:
    """Raise a KeyboardInterrupt under `depth` layers of `outer` (as cause, then as context)."""
    if depth == 0:
        raise KeyboardInterrupt
    try:
        _wrapped(outer, depth - 1)
    except BaseException as inner:
        if depth % 2:
            raise outer("while importing") from inner
        raise outer("while importing")  # noqa: B904 - the context, as an implicit chain carries it


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("outer", [RuntimeError, ImportError, TypeError])
def test_an_interrupt_handed_on_as_another_exception_is_still_an_interrupt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], outer: type[Exception], depth: int
) -> None:
    monkeypatch.setattr(command_line, "main", lambda: _wrapped(outer, depth))
    monkeypatch.setattr(start, "stops_as_ctrl_c", lambda: None)  # the test run's own handlers stay
    assert start.run() == 130
    assert capsys.readouterr().err == "commerce-proxy: interrupted\n"


def test_any_other_error_is_not_taken_for_an_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing() -> int:
        raise ValueError("a bug")

    monkeypatch.setattr(command_line, "main", failing)
    monkeypatch.setattr(start, "stops_as_ctrl_c", lambda: None)
    with pytest.raises(ValueError, match="a bug"):
        start.run()
