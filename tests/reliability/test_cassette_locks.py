"""The pytest plugin's per-cassette lock (proxy/store/locks.py), taken by threads and processes at once:
never two holders at a time, and no lock file left behind in the temporary folder afterwards, whatever
the sequence of takes and releases. The security properties stay: per user, mode 0600, no link followed.
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.process
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from proxy.errors import UsageError
from proxy.store.locks import SWEPT_PER_TAKE, cassette_lock, lock_path

KINDS = ("threads", "processes", "both")
HOLDERS = (2, 4)  # takers at once
ROUNDS = (1, 4)  # takes and releases each
CASSETTES = (1, 2)  # the takers share one cassette, or alternate between two
DEADLINE = 60.0  # seconds the whole table row may take under a loaded machine


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder of this test's own, so other runs' lock files are not counted."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _take(cassettes: list[Path], rounds: int, start: int, marks: Path, temporary: Path) -> None:
    """Take and release the locks `rounds` times; inside, a marker made exclusively proves no other
    holder is inside too (a second one is written down as an overlap)."""
    tempfile.tempdir = str(temporary)  # a spawned process's own
    for turn in range(rounds):
        cassette = cassettes[(start + turn) % len(cassettes)]
        with cassette_lock(cassette):
            marker = marks / f"inside-{cassette.name}"
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                (marks / f"overlap-{os.getpid()}-{threading.get_ident()}-{turn}").touch()
                continue
            time.sleep(0.002)  # widen the window a second holder would have to get in
            marker.unlink()


@pytest.mark.parametrize(
    ("kind", "holders", "rounds", "count"), list(itertools.product(KINDS, HOLDERS, ROUNDS, CASSETTES))
)
def test_locks_exclude_each_other_and_leave_no_file(
    temporary: Path, tmp_path: Path, kind: str, holders: int, rounds: int, count: int
) -> None:
    cassettes = [tmp_path / f"cassette-{index}.yaml" for index in range(count)]
    marks = tmp_path / "marks"
    marks.mkdir()
    # Processes are spawned, as pytest-xdist's workers are: a forked child would inherit a lock held
    # by a thread at the time of the fork, which no real taker does.
    spawn = multiprocessing.get_context("spawn")
    workers: list[threading.Thread | multiprocessing.process.BaseProcess] = []
    for index in range(holders):
        as_process = kind == "processes" or (kind == "both" and index % 2 == 1)
        factory = spawn.Process if as_process else threading.Thread
        workers.append(factory(target=_take, args=(cassettes, rounds, index, marks, temporary), daemon=True))
    for worker in workers:
        worker.start()
    ends = time.monotonic() + DEADLINE
    for worker in workers:
        worker.join(max(0.0, ends - time.monotonic()))
    stuck = [worker for worker in workers if worker.is_alive()]
    for worker in stuck:
        if isinstance(worker, multiprocessing.process.BaseProcess):
            worker.kill()  # only the processes this test started
            worker.join(10)
    assert not stuck, "a taker never got the lock"
    assert all(getattr(worker, "exitcode", 0) == 0 for worker in workers)
    assert sorted(path.name for path in marks.iterdir()) == []  # no overlap, every marker removed
    assert sorted(path.name for path in temporary.iterdir()) == []  # no lock file left behind


def test_a_lock_is_removed_when_its_block_raises(temporary: Path, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), cassette_lock(tmp_path / "c.yaml"):
        raise RuntimeError("the recording failed")
    assert list(temporary.iterdir()) == []


def test_while_held_the_lock_file_is_the_users_own_with_mode_0600(temporary: Path, tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    with cassette_lock(cassette):
        state = os.lstat(lock_path(cassette))
        assert stat.S_ISREG(state.st_mode)
        assert state.st_uid == os.geteuid()
        assert stat.S_IMODE(state.st_mode) & 0o077 == 0
        assert lock_path(cassette).name.startswith(f"commerce-proxy-{os.geteuid()}-")


def test_a_lock_file_left_by_an_older_version_is_taken_and_removed(temporary: Path, tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    lock_path(cassette).touch(mode=0o600)
    with cassette_lock(cassette):
        pass
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("planted", ["link", "folder"])
def test_a_planted_link_or_folder_is_refused_and_left_alone(
    temporary: Path, tmp_path: Path, planted: str
) -> None:
    cassette = tmp_path / "c.yaml"
    target = tmp_path / "target"
    target.write_text("theirs")
    path = lock_path(cassette)
    if planted == "link":
        path.symlink_to(target)
    else:
        path.mkdir()
    with pytest.raises(UsageError, match="cannot take the lock"), cassette_lock(cassette):
        pass
    assert path.is_symlink() if planted == "link" else path.is_dir()
    assert target.read_text() == "theirs"


def _holding(cassette: Path, temporary: Path) -> subprocess.Popen[str]:
    """Another process holding `cassette`'s lock until it is ended."""
    code = (
        "import sys, tempfile, time; from pathlib import Path; tempfile.tempdir = sys.argv[2]\n"
        "from proxy.store.locks import cassette_lock\n"
        "with cassette_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(120)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(cassette), str(temporary)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def test_a_taker_sweeps_what_killed_holders_left_and_nothing_held(temporary: Path, tmp_path: Path) -> None:
    """A SIGKILLed holder leaves its lock file; the next take of ANY cassette removes it, never one a
    live holder has, nor another user's kind of file; at most SWEPT_PER_TAKE a take, so a pile drains."""
    live = _holding(tmp_path / "live.yaml", temporary)
    killed = _holding(tmp_path / "killed.yaml", temporary)
    killed.kill()
    killed.communicate()
    planted = [lock_path(tmp_path / f"left-{index}.yaml") for index in range(2 * SWEPT_PER_TAKE)]
    for path in planted:
        path.touch(mode=0o600)
    others = [temporary / "commerce-proxy-fuzz-x", temporary / "unrelated.lock"]
    for path in others:
        path.touch()
    try:
        left = {lock_path(tmp_path / "killed.yaml"), *planted}
        with cassette_lock(tmp_path / "next.yaml"):
            pass
        assert len(left - set(temporary.iterdir())) == SWEPT_PER_TAKE  # bounded per take
        for _ in range(3):
            with cassette_lock(tmp_path / "next.yaml"):
                pass
        assert sorted(temporary.iterdir()) == sorted([lock_path(tmp_path / "live.yaml"), *others])
    finally:
        live.kill()
        live.communicate()
