"""A signal that comes while the tool cleans up (removes its scratch folder, puts a written file in
place, lets one go, removes the folders it made) waits until the cleanup is done, then acts as it
would have: nothing is left behind, and the process still stops.

Drawn as a table: every stop signal, every kind of handler a process has for it (Python's SIGINT
handler, a handler that raises as the pytest plugin's does, an event loop's handler that only notes it),
at every cleanup step, the signal raised in the middle of the step's system call.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from proxy.store.scratch_folders import scratch_folder
from proxy.store.writing import NewFile, open_folder, remove_made_folders

STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT]


class Stopped(Exception):
    pass


def _raising(number: int, frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(number).name)


class Noting:
    """An event loop's kind of handler: it notes the signal and acts later, never raising."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, number: int, frame: FrameType | None) -> None:
        self.calls.append(number)


@pytest.fixture
def own_handlers() -> Iterator[None]:
    before = {number: signal.getsignal(number) for number in STOPS}
    yield
    for number, handler in before.items():
        signal.signal(number, handler)


def _raising_once(real: Callable[..., Any], number: int) -> tuple[Callable[..., Any], list[int]]:
    """`real`, whose first call raises `number` to this process before it does its work; and the list
    of the signals it raised."""
    fired: list[int] = []

    def wrapped(*arguments: Any, **options: Any) -> Any:
        if not fired:
            fired.append(number)
            signal.raise_signal(number)
        return real(*arguments, **options)

    return wrapped, fired


def _signal_inside(monkeypatch: pytest.MonkeyPatch, call: str, number: int) -> None:
    """The first `os.<call>` raises `number` to this process before it does its work."""
    monkeypatch.setattr(os, call, _raising_once(getattr(os, call), number)[0])


def _scratch_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int) -> Callable[[], list[str]]:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with scratch_folder("commerce-proxy-probe-") as (folder, _):
        for index in range(5):
            (folder / f"file-{index}").write_text("x")
        _signal_inside(monkeypatch, "unlink", number)
    return lambda: sorted(path.name for path in tmp_path.iterdir())


def _committed(named: bool) -> Callable[[Path, pytest.MonkeyPatch, int], Callable[[], list[str]]]:
    def step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int) -> Callable[[], list[str]]:
        target = tmp_path / "out.yaml"
        new = NewFile(target, "the probe", named=named)
        new.handle.write(b"written: yes\n")
        _signal_inside(monkeypatch, "replace", number)
        new.commit()
        return lambda: sorted(path.name for path in tmp_path.iterdir() if path.name != "out.yaml")

    return step


def _abandoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int) -> Callable[[], list[str]]:
    new = NewFile(tmp_path / "out.yaml", "the probe", named=True)
    new.handle.write(b"half")
    _signal_inside(monkeypatch, "unlink", number)
    new.abandon()
    return lambda: sorted(path.name for path in tmp_path.iterdir())


def _made_folders_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> Callable[[], list[str]]:
    made: list[Path] = []
    os.close(open_folder(tmp_path / "a" / "b" / "c", "the probe", create=True, made=made))
    _signal_inside(monkeypatch, "rmdir", number)
    remove_made_folders(made)
    return lambda: sorted(path.name for path in tmp_path.iterdir())


STEPS = {
    "scratch folder removed": _scratch_removed,
    "unnamed file put in place": _committed(named=False),
    "named file put in place": _committed(named=True),
    "named file let go": _abandoned,
    "made folders removed": _made_folders_removed,
}


@pytest.mark.usefixtures("own_handlers")
@pytest.mark.parametrize("handler_kind", ["python SIGINT", "raising", "noting"])
@pytest.mark.parametrize("number", STOPS, ids=lambda number: signal.Signals(number).name)
@pytest.mark.parametrize("step", list(STEPS))
def test_a_signal_during_cleanup_waits_for_it_then_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, number: int, handler_kind: str
) -> None:
    noting = Noting()
    handler = {"python SIGINT": signal.default_int_handler, "raising": _raising, "noting": noting}[
        handler_kind
    ]
    signal.signal(number, handler)
    expected: type[BaseException] | None = {"python SIGINT": KeyboardInterrupt, "raising": Stopped}.get(
        handler_kind
    )
    left: Callable[[], list[str]] | None = None
    if expected is None:
        left = STEPS[step](tmp_path, monkeypatch, number)
    else:
        with pytest.raises(expected):
            STEPS[step](tmp_path, monkeypatch, number)
    monkeypatch.undo()
    remaining = sorted(path.name for path in tmp_path.iterdir() if path.name != "out.yaml")
    assert remaining == [], f"{step}: left {remaining}"
    if left is not None:
        assert left() == []
    if step.endswith("put in place"):
        assert (tmp_path / "out.yaml").read_bytes() == b"written: yes\n"
    assert noting.calls == ([number] if handler_kind == "noting" else [])


DEFAULT_ACTION = """
import os, signal, sys, tempfile
from pathlib import Path
from proxy.store.scratch_folders import scratch_folder
from proxy.store.writing import NewFile
number, step, where = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
signal.signal(number, signal.SIG_DFL)
real = {"scratch": os.unlink, "commit": os.replace}[step]
def wrapped(*arguments, **options):
    signal.raise_signal(number)
    return real(*arguments, **options)
if step == "scratch":
    tempfile.tempdir = str(where)
    with scratch_folder("commerce-proxy-probe-") as (folder, _):
        (folder / "file").write_text("x")
        os.unlink = wrapped
else:
    new = NewFile(where / "out.yaml", "the probe", named=True)
    new.handle.write(b"written: yes\\n")
    os.replace = wrapped
    new.commit()
print("not ended")
"""


@pytest.mark.parametrize("number", STOPS, ids=lambda number: signal.Signals(number).name)
@pytest.mark.parametrize("step", ["scratch", "commit"])
def test_a_signal_left_to_its_default_action_ends_the_process_after_the_cleanup(
    tmp_path: Path, step: str, number: int
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DEFAULT_ACTION, str(int(number)), step, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -number, done.stderr
    assert "not ended" not in done.stdout
    left = sorted(path.name for path in tmp_path.iterdir() if path.name != "out.yaml")
    assert left == []
    if step == "commit":
        assert (tmp_path / "out.yaml").read_bytes() == b"written: yes\n"


# Each system call of taking a cassette's lock (the pytest plugin's, while a test records) and of
# letting it go, by the module it is called through.
LOCK_STEPS = [("os", "fstat"), ("fcntl", "flock"), ("os", "stat"), ("os", "scandir"), ("os", "unlink")]


@pytest.mark.usefixtures("own_handlers")
@pytest.mark.parametrize("number", STOPS, ids=lambda number: signal.Signals(number).name)
@pytest.mark.parametrize(("module", "call"), LOCK_STEPS, ids=[call for _, call in LOCK_STEPS])
def test_a_signal_while_a_lock_is_taken_or_let_go_leaves_no_lock_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, call: str, number: int
) -> None:
    import fcntl

    from proxy.store.locks import cassette_lock

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    signal.signal(number, signal.default_int_handler)
    owner = {"os": os, "fcntl": fcntl}[module]
    wrapped, fired = _raising_once(getattr(owner, call), number)
    letting_go = call == "unlink"
    with pytest.raises(KeyboardInterrupt):
        if not letting_go:
            monkeypatch.setattr(owner, call, wrapped)
        with cassette_lock(tmp_path / "shop.yaml"):
            monkeypatch.setattr(owner, call, wrapped)  # taken: the signal comes as it is let go
    monkeypatch.undo()
    assert fired == [number]
    assert sorted(path.name for path in tmp_path.iterdir()) == []
