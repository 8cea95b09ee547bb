"""Decode each bomb in a fresh process and report its peak RSS: run as
`python -m tests.reliability.bomb_runner DIR LIMIT`, one JSON line per `DIR/N.body` (its header lines in
`DIR/N.json`). The parent only imports the decoder; each bomb is read and decoded in a child forked from
it, and the child's own peak (wait4's ru_maxrss) is what is reported."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from proxy.core.model.bodies import body_from_bytes
from proxy.errors import BodyTooLarge

REFUSED, DECODED, FAILED = 10, 11, 12


def decode_in_child(body: Path, limit: int) -> int:
    lines = json.loads(body.with_suffix(".json").read_text())
    headers = tuple(("Content-Encoding", line) for line in lines)
    try:
        body_from_bytes(body.read_bytes(), headers, limit)
    except BodyTooLarge:
        return REFUSED
    return DECODED


def main(folder: Path, limit: int) -> None:
    for body in sorted(folder.glob("*.body"), key=lambda path: int(path.stem)):
        pid = os.fork()
        if pid == 0:
            code = FAILED
            try:
                code = decode_in_child(body, limit)
            finally:
                os._exit(code)
        _, status, usage = os.wait4(pid, 0)
        print(
            json.dumps(
                {"body": body.stem, "exit": os.waitstatus_to_exitcode(status), "peak_kb": usage.ru_maxrss}
            )
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
