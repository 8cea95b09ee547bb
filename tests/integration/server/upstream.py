"""A small upstream for recording tests: echoes, compressed and chunked answers, redirects, slowness."""

from __future__ import annotations

import asyncio
import gzip
import json

from aiohttp import web

HITS = web.AppKey("hits", dict)
SLOW_STARTED = web.AppKey("slow_started", asyncio.Event)  # set when /slow has a request in hand
ISSUED = ("issued-ACCESS-5150", "issued-REFRESH-6160", "issued-PIN-7170")  # secrets /issue answers with


def create_upstream_app() -> web.Application:
    """An app whose answers exercise what a proxy must pass through unchanged."""
    app = web.Application()
    app[HITS] = {}
    app[SLOW_STARTED] = asyncio.Event()

    def origin(request: web.Request) -> str:
        return f"{request.scheme}://{request.host}"

    async def echo(request: web.Request) -> web.Response:
        app[HITS][request.raw_path] = app[HITS].get(request.raw_path, 0) + 1
        body = await request.read()
        document = {
            "method": request.method,
            "raw_path": request.raw_path,
            "headers": {name: value for name, value in request.headers.items() if name.lower() != "host"},
            "body": body.decode("utf-8", "replace"),
            "hits": app[HITS][request.raw_path],
            "links": {
                "self": f"{origin(request)}{request.path}",
                "next": f"{origin(request)}/echo?page[offset]=1",
            },
        }
        return web.json_response(document, headers={"Set-Cookie": "session=upstream-cookie; Path=/"})

    async def compressed(request: web.Request) -> web.Response:
        document: dict[str, object] = {"data": [{"id": 1}]}
        if request.path == "/gzip":
            document["links"] = {"next": f"{origin(request)}/gzip?page[offset]=25"}
        return web.Response(
            body=gzip.compress(json.dumps(document).encode()),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )

    async def chunked(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for piece in (b'{"data": [', b'{"id": 1}, ', b'{"id": 2}', b"]}"):
            await response.write(piece)
        await response.write_eof()
        return response

    async def created(request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": True}, status=201, headers={"Location": f"{origin(request)}/things/1"}
        )

    async def slow(request: web.Request) -> web.Response:
        app[SLOW_STARTED].set()
        await asyncio.sleep(3)
        return web.json_response({"slow": True})

    async def issue(request: web.Request) -> web.Response:
        """Secrets that start in a response body: the default token fields and one a config names."""
        document = {"access_token": ISSUED[0], "refresh_token": ISSUED[1], "data": {"pin": ISSUED[2]}}
        return web.json_response(document)

    async def binary(request: web.Request) -> web.Response:
        return web.Response(body=bytes(range(256)), content_type="application/octet-stream")

    app.router.add_get("/gzip", compressed)
    app.router.add_get("/gzip-without-links", compressed)
    app.router.add_get("/chunked", chunked)
    app.router.add_post("/created", created)
    app.router.add_get("/slow", slow)
    app.router.add_get("/binary", binary)
    app.router.add_post("/issue", issue)
    app.router.add_route("*", "/{tail:.*}", echo)
    return app
