"""Serving the wire server (record, spy, replay) or an aiohttp app (the sandbox) until SIGINT or SIGTERM.

In-flight requests finish before the app's cleanup runs, which is where `record` writes its cassette.
"""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from aiohttp import web

from proxy.server.wire import WireServer

SHUTDOWN_TIMEOUT = 30.0
# Each ends a server as Ctrl-C does: a job cancelled, a terminal closed, SIGQUIT.
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)
LOOPBACK_OF_WILDCARD = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}
T = TypeVar("T")


class Runner(Protocol):
    """What `start` returns: a running server that `cleanup` stops."""

    async def cleanup(self) -> None: ...


Servable = web.Application | WireServer


async def start(app: Servable, host: str, port: int) -> tuple[Runner, str]:
    """Start serving; returns the runner and the base URL actually bound (port 0 picks a free one)."""
    if isinstance(app, WireServer):
        try:
            bound = await app.start(host, port)
        except OSError as error:
            await app.cleanup()  # record releases its journal; nothing was served, so nothing is written
            raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
        return app, shown_url(host, bound)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        shutdown_timeout=SHUTDOWN_TIMEOUT,
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_address=True)
    try:
        await site.start()
    except OSError as error:
        await runner.cleanup()
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sockets = [address for address in runner.addresses if isinstance(address, tuple)]
    bound_port = sockets[0][1] if sockets else port
    return runner, shown_url(host, bound_port)


def shown_url(host: str, port: int) -> str:
    """The base URL a server bound to `host` prints: a wildcard bind (every address) as this machine's
    loopback, a URL a client here can open and the server answers to."""
    shown = LOOPBACK_OF_WILDCARD.get(host, host)
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"


def run_served(work: Coroutine[Any, Any, T]) -> T:
    """Run a serving coroutine to its end on uvloop where it is installed (about twice asyncio's speed)."""
    try:
        try:
            import uvloop
        except ImportError:
            return asyncio.run(work)
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(work)
    finally:
        work.close()  # stopped before it began (a signal as the loop was made): closed, not a warning at exit


async def serve_until_stopped(app: Servable, host: str, port: int, on_ready: Callable[[str], None]) -> None:
    """Serve until SIGINT, SIGTERM, SIGHUP or SIGQUIT, then stop accepting, finish in-flight requests
    and clean up."""
    runner, url = await start(app, host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    try:
        # What was made to start (modules, rules, specs) lives until exit: out of the cyclic
        # collector's full passes, which a page following the traffic made several a second (each
        # walked all of it, about 40 ms; frozen, about 3 ms).
        gc.freeze()
        on_ready(url)
        await stop.wait()
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
            # A second signal while stopping stops at once, either one (the command says what is kept).
            signal.signal(signum, signal.default_int_handler)
        await runner.cleanup()
