"""commerce-proxy as a real process, the way a user starts it: reaped whatever the test does."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any


class Running:
    def __init__(
        self, process: asyncio.subprocess.Process, url: str, ui: str | None = None, ready: str = ""
    ) -> None:
        self.process, self.url, self.ui, self.ready = process, url, ui, ready  # ready: its first line


SERVES_A_UI = {"record", "spy", "replay", "ui"}  # they print the UI's address after the ready line


@contextlib.asynccontextmanager
async def commerce_proxy(
    *arguments: str, file_size_limit: int | None = None, environment: Mapping[str, str] | None = None
) -> AsyncIterator[Running]:
    """Start `python -m proxy ARGS --port 0`, wait for its ready line, and always reap it.

    `file_size_limit` (bytes) makes every file write past it fail, as on a full disk (RLIMIT_FSIZE);
    `environment`: variables set for it on top of this process's.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "proxy",
        *arguments,
        "--port",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_file_size_limited(file_size_limit),
        env=None if environment is None else {**os.environ, **environment},
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert "listening on http://" in line, line + (await process.stderr.read()).decode()  # type: ignore[union-attr]
        ui = None
        if arguments and arguments[0] in SERVES_A_UI and "--no-ui" not in arguments:
            ui = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().rstrip("\n")
            assert ui.startswith("ui: http://"), ui
        yield Running(process, line.split("listening on ", 1)[1].split()[0].rstrip(","), ui, line)
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


def run_commerce_proxy(
    *arguments: str, prefix: Sequence[str] = (), file_size_limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m proxy ARGS` to its end, with no stdin (as CI runs it); output captured as text.

    `prefix` runs it through another command (`unshare ...`); `file_size_limit` as `commerce_proxy`'s."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "proxy", *arguments],
        preexec_fn=_file_size_limited(file_size_limit),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _file_size_limited(limit: int | None) -> Callable[[], None]:
    """A child's setup that makes its writes past `limit` bytes fail (Python ignores SIGXFSZ)."""

    def setup() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return setup


def refusal_lines(*arguments: str) -> tuple[int, list[str], str]:
    """Run `python -m proxy ARGS` to its end (no stdin, no parse cache): (exit code, stderr lines, stderr),
    for a command that must refuse its input in one line."""
    done = subprocess.run(
        [sys.executable, "-m", "proxy", *arguments],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={**os.environ, "COMMERCE_PROXY_CACHE": "off"},
        check=False,
    )
    return done.returncode, done.stderr.splitlines(), done.stderr


@contextlib.contextmanager
def sandbox_process(*arguments: str) -> Iterator[str]:
    """`commerce-proxy sandbox ARGS` on an ephemeral port of 127.0.0.1, for a module's tests: its URL."""
    with subprocess.Popen(
        [sys.executable, "-m", "proxy", "sandbox", "--port", "0", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert "listening on http://127.0.0.1:" in line, line
            yield line.split("listening on ", 1)[1].split()[0]
        finally:
            process.terminate()
            process.wait(timeout=30)


@contextlib.asynccontextmanager
async def app_served(app: Any) -> AsyncIterator[str]:
    """An aiohttp application served on 127.0.0.1 (a free port) for the block: its base URL."""
    from aiohttp import web

    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()
