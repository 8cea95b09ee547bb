"""Through the real processes: `record` relays, journals and saves bodies whose numbers are spelled in
every way a parser may change (a table over spellings, nestings, a secret to redact and links to move),
and `replay` serves them from the saved cassette: every number is on disk and on the wire as sent."""

from __future__ import annotations

import signal
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, free_port, stop_with
from tests.unit.core.model.test_number_spelling import NOTED, Number, links_moved, written

SHAPES = ("flat", "in arrays", "in objects in arrays")


def documents(upstream: str) -> list[list[Any]]:
    """One object per shape, secret and link: every noted spelling in it, keys in no sorted order."""
    numbers = [Number(text) for text in NOTED]
    made = []
    for shape in SHAPES:
        for secret in (False, True):
            for link in (False, True):
                if shape == "flat":
                    pairs: list[Any] = [
                        (f"n{len(NOTED) - index}", number) for index, number in enumerate(numbers)
                    ]
                elif shape == "in arrays":
                    pairs = [("zeta", [numbers, [numbers[::-1]]])]
                else:
                    pairs = [("data", [[("b", number), ("a", [number])] for number in numbers])]
                if secret:
                    pairs.insert(0, ("access_token", "t0ken-1E2-value"))
                if link:
                    pairs.append(("links", [("next", f"{upstream}/n/0?page[offset]=-0")]))
                made.append(pairs)
    return made


@asynccontextmanager
async def spelled_upstream(port: int) -> AsyncIterator[list[list[Any]]]:
    made = documents(f"http://127.0.0.1:{port}")

    async def serve(request: web.Request) -> web.Response:
        body = written(made[int(request.match_info["index"])], indent=2).replace("\n", " ")
        return web.Response(body=body.encode(), content_type="application/json")

    app = web.Application()
    app.router.add_get("/n/{index}", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield made
    finally:
        await runner.cleanup()


def stored(document: list[Any]) -> list[Any]:
    return [(key, "<redacted>") if key == "access_token" else (key, value) for key, value in document]


async def served(url: str, count: int) -> list[bytes]:
    async with aiohttp.ClientSession() as session:
        answers = []
        for index in range(count):
            async with session.get(f"{url}/n/{index}") as answer:
                assert answer.status == 200, index
                answers.append(await answer.read())
        return answers


async def test_recorded_and_replayed_numbers_are_spelled_as_sent(tmp_path: Path) -> None:
    port = free_port()
    upstream = f"http://127.0.0.1:{port}"
    cassette = tmp_path / "spelled.yaml"
    async with spelled_upstream(port) as made:
        async with commerce_proxy("record", "--upstream", upstream, "--cassette", str(cassette)) as proxy:
            relayed = await served(proxy.url, len(made))
            code, err = await stop_with(proxy, signal.SIGTERM)
        assert code == 0, err
    for document, answer in zip(made, relayed, strict=True):
        moved = written(links_moved(document, upstream, proxy.url), indent=2).replace("\n", " ")
        assert answer.decode() == moved
    text = cassette.read_text(encoding="utf-8")
    for document in made:
        assert textwrap.indent(written(stored(document), indent=2), " " * 6) in text
    async with commerce_proxy("replay", "--cassette", str(cassette)) as replay:
        replayed = await served(replay.url, len(made))
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err
    for document, answer in zip(made, replayed, strict=True):
        assert answer.decode() == written(links_moved(stored(document), upstream, replay.url))
    write_figure(
        "number_spellings",
        len(NOTED) * len(made),
        "numbers in unusual spellings recorded, saved and replayed, each byte for byte",
    )
