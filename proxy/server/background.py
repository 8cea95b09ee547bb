"""A server (the record or replay wire server, or the sandbox's aiohttp app) served from a thread of its
own, for callers that are not async (the pytest plugin).

The server gets its own event loop, so a synchronous test (requests, urllib) and an async test (whose
loop is pytest-asyncio's) reach it alike, and neither test's loop has to run it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from proxy.server.serving import SHUTDOWN_TIMEOUT, Runner, Servable, start

STARTUP_TIMEOUT = 30.0
T = TypeVar("T")


class BackgroundServer:
    """Serves the app `build` makes on 127.0.0.1 and a free port (or `port`) until `stop`."""

    def __init__(self, build: Callable[[], Servable], host: str = "127.0.0.1", port: int = 0) -> None:
        self._build = build
        self._host = host
        self._port = port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="commerce-proxy", daemon=True)
        self._runner: Runner | None = None
        self.url = ""

    def start(self) -> str:
        """Bind and start serving; returns the base URL. Raises what building or binding raised."""
        self._thread.start()
        try:
            self._runner, self.url = self._run(self._start(), STARTUP_TIMEOUT)
        except BaseException:
            self._halt()
            raise
        return self.url

    async def _start(self) -> tuple[Runner, str]:
        return await start(self._build(), self._host, self._port)

    def stop(self) -> None:
        """Finish in-flight requests and run the app's cleanup (record writes its cassette there).

        Raises what the cleanup raised, after the thread is gone, so a failed write is not lost.
        """
        runner, self._runner = self._runner, None
        try:
            if runner is not None:
                self._run(runner.cleanup(), SHUTDOWN_TIMEOUT + 5)
        finally:
            self._halt()

    def _run(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout)

    def _halt(self) -> None:
        if self._thread.is_alive():
            # the threads `asyncio.to_thread` started (the UI's reads and its first call's wait) end
            # with the server, not at the interpreter's exit
            with contextlib.suppress(Exception):
                self._run(self._loop.shutdown_default_executor(), SHUTDOWN_TIMEOUT)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(SHUTDOWN_TIMEOUT)
        if not self._thread.is_alive():
            self._loop.close()
