"""The trailer a child writes last (`proxy/workers/trailer.py`), read back by the two-core `check` and
the two-core UI index: what was written is read, and a child cut short anywhere leaves none."""

from __future__ import annotations

import io
import random

from proxy.workers.trailer import TRAILER, trailer_of, write_trailer


def test_what_a_child_wrote_last_is_read_back_and_the_file_rewound() -> None:
    draw = random.Random(38)
    for _ in range(200):
        body = bytes(draw.randrange(256) for _ in range(draw.randrange(0, 64)))
        count, batches = draw.randrange(0, 2**40), draw.randrange(0, 2**20)
        output = io.BytesIO()
        output.write(body)
        write_trailer(output, count, batches)
        assert trailer_of(output) == (count, batches)
        assert output.read(len(body)) == body  # read from its start next


def test_a_child_cut_before_its_trailer_leaves_none() -> None:
    assert trailer_of(None) is None
    for size in range(TRAILER.size):
        output = io.BytesIO()
        write_trailer(output, 7, 3)
        assert trailer_of(io.BytesIO(output.getvalue()[:size])) is None
