"""Serving an aiohttp app until SIGINT or SIGTERM, then shutting down gracefully.

In-flight requests finish before the app's cleanup runs, which is where `record` writes its cassette.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from aiohttp import web

SHUTDOWN_TIMEOUT = 30.0
# Set on apps that must see request bodies as sent: a proxy forwards gzip bytes as gzip bytes.
REQUEST_BODIES_AS_SENT = web.AppKey("request_bodies_as_sent", bool)


class Listening:
    """Set once the app's port is bound: cleanup then knows whether the server ever served."""

    bound = False


LISTENING = web.AppKey("listening", Listening)


async def start(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, str]:
    """Start serving; returns the runner and the base URL actually bound (port 0 picks a free one)."""
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        shutdown_timeout=SHUTDOWN_TIMEOUT,
        auto_decompress=not app.get(REQUEST_BODIES_AS_SENT, False),
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_address=True)
    try:
        await site.start()
    except OSError as error:
        await runner.cleanup()
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    if LISTENING in app:
        app[LISTENING].bound = True
    sockets = [address for address in runner.addresses if isinstance(address, tuple)]
    bound_port = sockets[0][1] if sockets else port
    shown_host = f"[{host}]" if ":" in host else host
    return runner, f"http://{shown_host}:{bound_port}"


async def serve_until_stopped(
    app: web.Application, host: str, port: int, on_ready: Callable[[str], None]
) -> None:
    """Serve until SIGINT/SIGTERM, then stop accepting, finish in-flight requests and clean up."""
    runner, url = await start(app, host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        on_ready(url)
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await runner.cleanup()
