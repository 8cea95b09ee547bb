"""The named baseline: a minimal aiohttp pass-through proxy (aiohttp.web, one pooled ClientSession, uvloop).

What a team would write in an afternoon instead of adopting a tool; `record` is measured against it.
Usage: python baseline.py UPSTREAM_URL PORT
"""

import sys

import aiohttp
import uvloop
from aiohttp import web

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "content-encoding"}


def main() -> None:
    upstream, port = sys.argv[1].rstrip("/"), int(sys.argv[2])

    async def client(app: web.Application):  # one pooled session for the app's life
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256)) as session:
            app["session"] = session
            yield

    async def forward(request: web.Request) -> web.Response:
        headers = {name: value for name, value in request.headers.items() if name.lower() not in HOP_BY_HOP}
        body = await request.read()
        async with request.app["session"].request(
            request.method, upstream + request.path_qs, headers=headers, data=body or None
        ) as answer:
            payload = await answer.read()
            kept = {name: value for name, value in answer.headers.items() if name.lower() not in HOP_BY_HOP}
            return web.Response(status=answer.status, headers=kept, body=payload)

    app = web.Application()
    app.cleanup_ctx.append(client)
    app.router.add_route("*", "/{tail:.*}", forward)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, loop=uvloop.new_event_loop())


if __name__ == "__main__":
    main()
