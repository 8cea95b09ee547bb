"""A forked child's output read as it writes it: each line as soon as it is complete, and a child that
fails or hangs is an error, never a short result taken for a whole one."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from proxy.workers import forked
from proxy.workers.base import ChildFailed
from proxy.workers.forked import Forked
from proxy.workers.trailer import RECORD_HEAD, write_record


def started(work: object) -> Forked:
    child = Forked.start(work)  # type: ignore[arg-type]
    assert child is not None
    return child


def wait_for(path: Path, seconds: float = 10.0) -> None:
    """In the child: wait (bounded) until the parent has made `path`."""
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_line_is_read_while_the_child_still_runs(tmp_path: Path) -> None:
    """The child writes its second line only once the parent has read the first: the lines come as
    they are written, not when the child is done."""
    go_on = tmp_path / "go-on"

    def work(output: BinaryIO) -> None:
        output.write(b"first\n")
        output.flush()
        wait_for(go_on)
        output.write(b"second\nthe rest wit")
        output.flush()
        output.write(b"hout an end")

    child = started(work)
    try:
        lines = child.lines(patience=20)
        assert next(lines) == b"first\n"
        assert child.pid is not None, "the child was still waiting"
        go_on.touch()
        assert list(lines) == [b"second\n", b"the rest without an end"]
        assert child.pid is None
    finally:
        child.stop()


def test_a_child_that_fails_after_some_lines_is_an_error(tmp_path: Path) -> None:
    def work(output: BinaryIO) -> None:
        output.write(b"one\n")
        output.flush()
        raise RuntimeError("the second half is broken")

    child = started(work)
    try:
        lines = child.lines(patience=20)
        assert next(lines) == b"one\n"
        with pytest.raises(ChildFailed):
            next(lines)
    finally:
        child.stop()


def test_a_child_that_hangs_is_given_up_killed_and_reaped() -> None:
    child = started(lambda output: time.sleep(120))
    pid = child.pid
    assert pid is not None
    began = time.monotonic()
    with pytest.raises(ChildFailed):
        list(child.lines(patience=0.3))
    assert time.monotonic() - began < 10
    child.stop()
    with pytest.raises(ChildProcessError):  # no zombie left
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("read_bytes", [7, 1 << 20])
def test_reading_does_not_move_where_the_child_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_bytes: int
) -> None:
    """pread leaves the shared file position to the child: everything it writes is there, in order,
    whether a read holds many lines or a piece of one."""
    monkeypatch.setattr(forked, "READ_BYTES", read_bytes)
    go_on = tmp_path / "go-on"

    def work(output: BinaryIO) -> None:
        for number in range(200):
            output.write(b"%d %s\n" % (number, b"x" * 5000))
            if number == 100:
                output.flush()
                wait_for(go_on)

    child = started(work)
    try:
        read = []
        for line in child.lines(patience=20):
            read.append(line)
            if len(read) == 50:
                go_on.touch()
        assert [int(line.split()[0]) for line in read] == list(range(200))
        assert all(len(line) == len(b"%d " % number) + 5001 for number, line in enumerate(read))
    finally:
        child.stop()


@pytest.mark.parametrize("read_bytes", [7, 1 << 20])
def test_a_record_is_read_as_soon_as_it_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_bytes: int
) -> None:
    """The child writes its next records only once the parent has read the first: each comes whole as
    it is written, whether a read holds many records or a piece of one."""
    monkeypatch.setattr(forked, "READ_BYTES", read_bytes)
    go_on = tmp_path / "go-on"
    later = [b"", b"x" * 5000, b"\n" * 9]

    def work(output: BinaryIO) -> None:
        write_record(output, b"first")
        wait_for(go_on)
        for record in later:
            write_record(output, record)

    child = started(work)
    try:
        records = child.records(patience=20)
        assert next(records) == b"first"
        assert child.pid is not None, "the child was still waiting"
        go_on.touch()
        assert list(records) == later
    finally:
        child.stop()


@pytest.mark.parametrize("cut", [3, 12])
def test_a_record_cut_short_is_an_error_even_from_a_clean_child(cut: int) -> None:
    def work(output: BinaryIO) -> None:
        write_record(output, b"whole")
        output.write((RECORD_HEAD.pack(10) + b"cut short")[:cut])

    child = started(work)
    try:
        records = child.records(patience=20)
        assert next(records) == b"whole"
        with pytest.raises(ChildFailed):
            next(records)
    finally:
        child.stop()
