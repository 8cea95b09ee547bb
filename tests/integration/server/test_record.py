"""The recording proxy on real sockets: pass-through, link rewriting, journal, modes, failures."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from yarl import URL

from proxy.app.recording import RecordSettings
from proxy.cli.options import FLAGS
from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import CassetteFormatError, UsageError
from proxy.server.record import create_record_app
from proxy.server.replay import create_replay_app
from proxy.server.serving import start
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.journal import journal_path
from proxy.store.saving import save_cassette
from tests.conftest import Serve, make_exchange, sandbox_token
from tests.integration.server.upstream import HITS, create_upstream_app

Recorder = Callable[..., Awaitable[tuple[str, Callable[[], Awaitable[None]]]]]


@pytest.fixture
async def upstream(serve: Serve) -> tuple[str, web.Application]:
    app = create_upstream_app()
    return await serve(app), app


@pytest.fixture
async def recorder(tmp_path: Path) -> AsyncIterator[Recorder]:
    """Start `record` apps; `stop()` writes the cassette (and is done at the end if the test did not)."""
    running: list[web.AppRunner] = []

    async def start_recording(
        upstream_url: str, cassette: Path | None = None, **options: Any
    ) -> tuple[str, Callable[[], Awaitable[None]]]:
        cassette = cassette or tmp_path / "c.yaml"
        settings = RecordSettings(upstream=upstream_url, cassette=cassette, spellings=FLAGS, **options)
        runner, url = await start(create_record_app(settings), "127.0.0.1", 0)
        running.append(runner)

        async def stop() -> None:
            running.remove(runner)
            await runner.cleanup()

        return url, stop

    yield start_recording
    for runner in running:
        await runner.cleanup()


async def test_raw_path_query_headers_and_body_reach_the_upstream_unchanged(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """Brackets and percent-escapes stay as the client sent them; the cassette has the raw query."""
    upstream_url, _ = upstream
    url, stop = await recorder(upstream_url)
    target = "/v2/products?page[limit]=2&filter=eq(name,a%20b)&page%5Boffset%5D=4"
    async with (
        aiohttp.ClientSession() as session,
        session.put(
            URL(url + target, encoded=True),
            data=b'{"b":1,"a":2}',
            headers={"Content-Type": "application/json", "X-Custom": "1"},
        ) as answer,
    ):
        echoed = await answer.json()
    assert echoed["raw_path"] == target
    assert echoed["headers"]["X-Custom"] == "1" and echoed["body"] == '{"b":1,"a":2}'
    await stop()
    exchange = load_cassette(tmp_path / "c.yaml").cassette.exchanges[0]
    assert exchange.request.target == target
    assert list(exchange.request.body.value) == ["b", "a"]  # type: ignore[arg-type]
    assert exchange.response.status == 200 and exchange.duration_ms is not None


async def test_a_base_path_in_upstream_is_kept_when_forwarding_and_dropped_from_links(
    upstream: Any, recorder: Recorder
) -> None:
    """--upstream http://host/gateway: /v2/x goes to /gateway/v2/x, and links come back at the root."""
    upstream_url, _ = upstream
    url, _ = await recorder(f"{upstream_url}/gateway/")
    async with (
        aiohttp.ClientSession() as session,
        session.get(URL(f"{url}/v2/x?page[limit]=1", encoded=True)) as answer,
    ):
        echoed = await answer.json()
    assert echoed["raw_path"] == "/gateway/v2/x?page[limit]=1"
    assert echoed["links"]["self"] == f"{url}/v2/x"


async def test_links_and_location_point_back_at_the_proxy_but_the_cassette_keeps_the_truth(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """The client sees the proxy's origin in links and Location; the cassette what the upstream sent."""
    upstream_url, _ = upstream
    url, stop = await recorder(upstream_url)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{url}/echo") as answer:
            links = (await answer.json())["links"]
        async with session.post(f"{url}/created", allow_redirects=False) as answer:
            location = answer.headers["Location"]
    assert links == {"self": f"{url}/echo", "next": f"{url}/echo?page[offset]=1"}
    assert location == f"{url}/things/1"
    await stop()
    recorded = load_cassette(tmp_path / "c.yaml").cassette.exchanges
    assert recorded[0].response.body.value["links"]["next"] == f"{upstream_url}/echo?page[offset]=1"  # type: ignore[index,call-overload]
    assert dict(recorded[1].response.headers)["Location"] == f"{upstream_url}/things/1"


async def test_gzip_answer_with_links_is_decoded_rewritten_and_stored_decoded(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """A gzip JSON answer reaches the client readable with proxy links; the cassette stores it decoded."""
    upstream_url, _ = upstream
    url, stop = await recorder(upstream_url)
    async with aiohttp.ClientSession() as session, session.get(f"{url}/gzip") as answer:
        assert (await answer.json())["links"]["next"] == f"{url}/gzip?page[offset]=25"
    await stop()
    body = load_cassette(tmp_path / "c.yaml").cassette.exchanges[0].response.body
    assert (body.kind, body.decoded_from) == ("json", "gzip")


async def test_compressed_answer_without_links_passes_byte_for_byte(
    upstream: Any, recorder: Recorder
) -> None:
    """Nothing to rewrite: the client gets the upstream's compressed bytes and Content-Encoding."""
    upstream_url, _ = upstream
    url, _ = await recorder(upstream_url)
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        async with session.get(f"{url}/gzip-without-links") as answer:
            raw = await answer.read()
            assert answer.headers["Content-Encoding"] == "gzip"
        async with session.get(f"{upstream_url}/gzip-without-links") as answer:
            assert raw == await answer.read()
    assert json.loads(gzip.decompress(raw)) == {"data": [{"id": 1}]}


async def test_chunked_and_binary_answers(upstream: Any, recorder: Recorder, tmp_path: Path) -> None:
    """A chunked answer arrives whole; binary bytes arrive unchanged and are stored as base64."""
    upstream_url, _ = upstream
    url, stop = await recorder(upstream_url)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{url}/chunked") as answer:
            assert await answer.json() == {"data": [{"id": 1}, {"id": 2}]}
        async with session.get(f"{url}/binary") as answer:
            assert await answer.read() == bytes(range(256))
    await stop()
    chunked, binary = load_cassette(tmp_path / "c.yaml").cassette.exchanges
    assert chunked.response.body.value == {"data": [{"id": 1}, {"id": 2}]}
    assert binary.response.body.kind == "base64"


async def test_gzip_and_chunked_request_bodies(upstream: Any, recorder: Recorder, tmp_path: Path) -> None:
    """A gzip request body is forwarded as sent and recorded decoded; a chunked one arrives whole."""
    upstream_url, _ = upstream
    url, stop = await recorder(upstream_url)

    async def pieces() -> Any:
        for piece in (b'{"data": ', b'{"name": "chunked"}}'):
            yield piece

    compressed = gzip.compress(b'{"data": {"name": "zipped"}}')
    async with aiohttp.ClientSession() as session:
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        async with session.put(f"{url}/zipped", data=compressed, headers=headers) as answer:
            assert answer.status == 200
        async with session.put(
            f"{url}/chunked", data=pieces(), headers={"Content-Type": "application/json"}
        ) as answer:
            assert (await answer.json())["body"] == '{"data": {"name": "chunked"}}'
    await stop()
    zipped, chunked = load_cassette(tmp_path / "c.yaml").cassette.exchanges
    assert (zipped.request.body.value, zipped.request.body.decoded_from) == (
        {"data": {"name": "zipped"}},
        "gzip",
    )
    assert chunked.request.body.value == {"data": {"name": "chunked"}}


async def test_unreachable_upstream_gets_502_and_the_proxy_keeps_serving(
    recorder: Recorder, unused_tcp_port: int
) -> None:
    """A dead upstream: 502 with an errors body saying so; health still answers."""
    url, _ = await recorder(f"http://127.0.0.1:{unused_tcp_port}")
    async with aiohttp.ClientSession() as session:
        for _ in range(2):
            async with session.get(f"{url}/v2/products") as answer:
                assert answer.status == 502
                error = (await answer.json())["errors"][0]
                assert error["title"] == "Bad Gateway" and "cannot connect to upstream" in error["detail"]
        async with session.get(f"{url}/_proxy/health") as answer:
            assert answer.status == 200


async def test_upstream_timeout_gets_504(upstream: Any, recorder: Recorder) -> None:
    """An upstream slower than --upstream-timeout: 504 with an errors body."""
    upstream_url, _ = upstream
    url, _ = await recorder(upstream_url, upstream_timeout=0.3)
    async with aiohttp.ClientSession() as session, session.get(f"{url}/slow") as answer:
        assert answer.status == 504
        assert "did not answer within 0.3 s" in (await answer.json())["errors"][0]["detail"]


async def test_admin_endpoints_are_never_forwarded_or_recorded(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """/_proxy/health answers locally; other /_proxy/ paths are 404; none is recorded."""
    upstream_url, app = upstream
    url, stop = await recorder(upstream_url)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{url}/_proxy/health") as answer:
            assert answer.status == 200 and (await answer.json())["mode"] == "once"
        async with session.get(f"{url}/_proxy/anything") as answer:
            assert answer.status == 404
    await stop()
    assert app[HITS] == {}
    assert not (tmp_path / "c.yaml").exists()  # nothing was recorded, so nothing was written


async def test_secrets_never_reach_the_journal_or_the_cassette(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """Bearer token, cookies, API keys, form secrets, configured query/JSON fields: all redacted on disk."""
    upstream_url, _ = upstream
    policy = RedactionPolicy().extended(query=["email"], json_paths=["data.pin"])
    url, stop = await recorder(upstream_url, redaction=policy)
    secrets = ["tok-AAAA1111", "cookie-BBBB", "key-CCCC", "secret-DDDD", "pw-EEEE", "mail-FFFF", "pin-GGGG"]
    async with aiohttp.ClientSession() as session:
        headers = {
            "Authorization": f"Bearer {secrets[0]}",
            "Cookie": f"sid={secrets[1]}",
            "X-API-Key": secrets[2],
        }
        form = {"grant_type": "client_credentials", "client_secret": secrets[3], "password": secrets[4]}
        async with session.post(f"{url}/oauth/access_token", data=form, headers=headers) as answer:
            assert answer.status == 200
        async with session.put(
            URL(f"{url}/v2/x?email={secrets[5]}", encoded=True),
            json={"data": {"pin": secrets[6]}},
            headers=headers,
        ) as answer:
            assert answer.status == 200
        journal = journal_path(tmp_path / "c.yaml").read_text()
    await stop()
    cassette = (tmp_path / "c.yaml").read_text()
    for secret in [*secrets, "upstream-cookie"]:
        assert secret not in journal and secret not in cassette, secret
    assert "Bearer <redacted>" in cassette and "client_secret=<redacted>" in cassette


async def test_mode_once_refuses_an_existing_cassette(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """--mode once never touches a cassette that exists; the message suggests the other modes."""
    save_cassette(tmp_path / "c.yaml", Cassette())
    with pytest.raises(UsageError, match="--mode new_episodes"):
        await recorder(upstream[0])


async def test_mode_once_recovers_a_crashed_first_recording_before_refusing(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """Only a journal left by a killed first recording: it becomes the cassette, then once refuses."""
    import os

    from proxy.store.journal import JournalWriter

    writer = JournalWriter(journal_path(tmp_path / "c.yaml"), "replace", upstream[0])
    writer.append(1, make_exchange())
    os.close(writer._fd)
    with pytest.raises(UsageError, match="exists"):
        await recorder(upstream[0])
    assert len(load_cassette(tmp_path / "c.yaml").cassette.exchanges) == 1
    assert not journal_path(tmp_path / "c.yaml").exists()


async def test_new_episodes_replays_what_it_has_and_appends_what_it_lacks(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """Known requests come from the cassette; new ones are forwarded once each, even when repeated."""
    upstream_url, app = upstream
    url, stop = await recorder(upstream_url)
    async with aiohttp.ClientSession() as session, session.get(f"{url}/a") as answer:
        assert (await answer.json())["hits"] == 1
    await stop()
    url, stop = await recorder(upstream_url, mode="new_episodes")
    async with aiohttp.ClientSession() as session:
        for path, expected_hits in (("/a", 1), ("/b", 1), ("/b", 2), ("/a", 1)):
            async with session.get(f"{url}{path}") as answer:
                assert (await answer.json())["hits"] == expected_hits, path
    await stop()
    assert app[HITS] == {"/a": 1, "/b": 2}
    paths = [e.request.path for e in load_cassette(tmp_path / "c.yaml").cassette.exchanges]
    assert paths == ["/a", "/b", "/b"]


async def test_mode_all_replaces_the_cassette(upstream: Any, recorder: Recorder, tmp_path: Path) -> None:
    """--mode all forwards everything and writes only this run's exchanges."""
    upstream_url, _ = upstream
    for path in ("/first", "/second"):
        url, stop = await recorder(upstream_url, mode="all")
        async with aiohttp.ClientSession() as session, session.get(f"{url}{path}") as answer:
            assert answer.status == 200
        await stop()
    assert [e.request.path for e in load_cassette(tmp_path / "c.yaml").cassette.exchanges] == ["/second"]


async def test_mode_all_re_records_over_a_broken_cassette(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """A hand-broken cassette does not stop --mode all from replacing it."""
    (tmp_path / "c.yaml").write_text("cassette_format: 1\nexchanges: [\n")
    url, stop = await recorder(upstream[0], mode="all")
    async with aiohttp.ClientSession() as session, session.get(f"{url}/fresh") as answer:
        assert answer.status == 200
    await stop()
    assert [e.request.path for e in load_cassette(tmp_path / "c.yaml").cassette.exchanges] == ["/fresh"]


async def test_new_episodes_refuses_a_broken_cassette(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """new_episodes must not treat a broken cassette as empty (that would re-record and overwrite it)."""
    (tmp_path / "c.yaml").write_text("cassette_format: 1\nexchanges: [\n")
    with pytest.raises(CassetteFormatError, match=r"c\.yaml:3"):
        await recorder(upstream[0], mode="new_episodes")
    assert (tmp_path / "c.yaml").read_text() == "cassette_format: 1\nexchanges: [\n"


async def test_record_from_sandbox_then_replay_gives_the_same_answers(
    sandbox_url: str, recorder: Recorder, serve: Serve, tmp_path: Path
) -> None:
    """Status and body of every request equal between recording and replay (links as path plus query set)."""
    url, stop = await recorder(sandbox_url)
    targets = [
        "/v2/products?page[limit]=3",
        "/v2/orders?page[offset]=10001",
        "/v2/brands?page[limit]=5&page[offset]=10",
    ]

    async def session_through(base: str) -> list[tuple[int, Any]]:
        results = []
        async with aiohttp.ClientSession() as session:
            token = await sandbox_token(session, base)
            for target in targets:
                async with session.get(
                    URL(base + target, encoded=True), headers={"Authorization": f"Bearer {token}"}
                ) as answer:
                    results.append((answer.status, normalise_links(await answer.json(), base)))
        return results

    live = await session_through(url)
    await stop()
    book = ReplayBook.build(
        [("c", load_cassette(tmp_path / "c.yaml").cassette)], MatchPolicy(), RedactionPolicy()
    )
    replayed = await session_through(await serve(create_replay_app(book)))
    assert [status for status, _ in live] == [200, 400, 200]
    assert replayed == live


def normalise_links(document: Any, base: str) -> Any:
    """Links compared as path plus the set of query parameters, whatever the origin."""
    from urllib.parse import parse_qsl, urlsplit

    if isinstance(document, dict):
        return {key: normalise_links(value, base) for key, value in document.items()}
    if isinstance(document, list):
        return [normalise_links(item, base) for item in document]
    if isinstance(document, str) and document.startswith(base):
        parts = urlsplit(document)
        return (parts.path, frozenset(parse_qsl(parts.query)))
    return document


async def test_a_run_that_records_nothing_leaves_the_cassette_as_it_was(
    upstream: Any, recorder: Recorder, tmp_path: Path
) -> None:
    """No traffic: once creates no cassette, all and new_episodes leave the old file byte for byte."""
    _, stop = await recorder(upstream[0])
    await stop()
    assert not (tmp_path / "c.yaml").exists() and not journal_path(tmp_path / "c.yaml").exists()
    save_cassette(tmp_path / "c.yaml", Cassette((make_exchange(),), upstream[0]))
    before = (tmp_path / "c.yaml").read_bytes()
    for mode in ("all", "new_episodes"):
        _, stop = await recorder(upstream[0], mode=mode)
        await stop()
        assert (tmp_path / "c.yaml").read_bytes() == before, mode


async def test_new_episodes_from_another_address_of_the_service_keeps_the_cassettes_origin(
    serve: Serve, recorder: Recorder, tmp_path: Path
) -> None:
    """The same service at another address (a new sandbox port) is the same service: what is recorded
    replays, a new request is forwarded there, and its links are written at the cassette's origin, which
    the cassette keeps; replay then rewrites them all alike."""
    first, second = create_upstream_app(), create_upstream_app()
    first_url, second_url = await serve(first), await serve(second)
    url, stop = await recorder(first_url)
    async with aiohttp.ClientSession() as session, session.get(f"{url}/a") as answer:
        assert answer.status == 200
    await stop()
    url, stop = await recorder(second_url, mode="new_episodes")
    async with aiohttp.ClientSession() as session:
        for path in ("/a", "/b"):
            async with session.get(f"{url}{path}") as answer:
                assert (await answer.json())["links"]["self"] == f"{url}{path}"  # the client's view
    await stop()
    assert first[HITS] == {"/a": 1} and second[HITS] == {"/b": 1}
    cassette = load_cassette(tmp_path / "c.yaml").cassette
    assert cassette.upstream == first_url
    links = [exchange.response.body.value["links"] for exchange in cassette.exchanges]  # type: ignore[index]
    assert links == [
        {"self": f"{first_url}{path}", "next": f"{first_url}/echo?page[offset]=1"} for path in ("/a", "/b")
    ]


async def test_mode_all_says_how_many_were_kept_unchanged_changed_and_new(
    upstream: Any, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    """Re-recording's stop line tells an unchanged service (all kept byte for byte) from a changed one:
    /gzip answers the same, /a counts its hits (a changed answer), /b was not recorded before."""
    caplog.set_level("INFO", logger="proxy")

    async def session(paths: tuple[str, ...]) -> None:
        url, stop = await recorder(upstream[0], mode="all")
        async with aiohttp.ClientSession() as client:
            for path in paths:
                async with client.get(f"{url}{path}") as answer:
                    assert answer.status == 200
        await stop()

    await session(("/gzip", "/a"))
    caplog.clear()
    await session(("/gzip", "/a", "/b"))
    assert "3 exchanges (1 kept unchanged, 1 changed, 1 new; 0 answered from the cassette)" in caplog.text
    caplog.clear()
    await session(("/gzip",))
    assert "1 exchanges (1 kept unchanged, 0 changed, 0 new;" in caplog.text
