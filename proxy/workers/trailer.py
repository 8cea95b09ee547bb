"""The end of a child's output file: how many items it went through and how many batches it wrote,
packed after the batches, so the parent reads it first and knows whether the child finished (a child
killed mid-write leaves no whole trailer); the two-core `check` uses it. Or records, each with its length
before it (`write_record`), which the parent reads as each is whole (`Forked.records`): the UI's index."""

from __future__ import annotations

import struct
from typing import BinaryIO

TRAILER = struct.Struct("qq")  # (items gone through, batches written)
RECORD_HEAD = struct.Struct("q")  # a record's length, before it


def write_record(output: BinaryIO, record: bytes) -> None:
    """In the child: one record for the parent's `records`, readable as soon as it is written."""
    output.write(RECORD_HEAD.pack(len(record)))
    output.write(record)
    output.flush()


def write_trailer(output: BinaryIO, count: int, batches: int) -> None:
    """The child's last write."""
    output.write(TRAILER.pack(count, batches))


def trailer_of(output: BinaryIO | None) -> tuple[int, int] | None:
    """The child's (count, batches) from the end of the file it wrote, which is then read from its
    start; None when there is no whole trailer (a child that did not finish)."""
    if output is None:
        return None
    try:
        size = output.seek(0, 2)
        if size < TRAILER.size:
            return None
        output.seek(size - TRAILER.size)
        count, batches = TRAILER.unpack(output.read(TRAILER.size))
        output.seek(0)
    except (OSError, struct.error):
        return None
    return count, batches
