"""commerce-proxy as a real process, the way a user starts it: reaped whatever the test does."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import AsyncIterator


class Running:
    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process, self.url = process, url


@contextlib.asynccontextmanager
async def commerce_proxy(*arguments: str) -> AsyncIterator[Running]:
    """Start `python -m proxy ARGS --port 0`, wait for its ready line, and always reap it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "proxy",
        *arguments,
        "--port",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert "listening on http://" in line, line + (await process.stderr.read()).decode()  # type: ignore[union-attr]
        yield Running(process, line.split("listening on ", 1)[1].split()[0].rstrip(","))
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def stop_with(running: Running, signum: int) -> tuple[int, str]:
    running.process.send_signal(signum)
    _, err = await asyncio.wait_for(running.process.communicate(), 30)
    return running.process.returncode or 0, err.decode()


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago (for a server started later, or never)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_commerce_proxy(*arguments: str) -> subprocess.CompletedProcess[str]:
    """`python -m proxy ARGS` to its end, with no stdin (as CI runs it); output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "proxy", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
