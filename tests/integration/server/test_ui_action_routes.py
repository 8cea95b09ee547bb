"""The UI's action routes on a real server over a real offline view (the shipped pagination walk, a HAR,
a journal): curl, diff, sources, cassette diff, export re-imported with `import-har`, baseline accept,
delete and edit re-checked, saved and re-indexed, resend through a real upstream client; and each
refusal (no token header, wrong mode, bad body, bad id, a journal or HAR source) as one JSON line."""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from proxy.app.importing import ImportRequest, import_har
from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import TrafficView, offline_view
from proxy.app.ui_action_cases import ActionSetting, UiActions
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.access import TOKEN_HEADER
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.ui.query import parse_query
from proxy.errors import StillIndexing
from proxy.server.serving import start
from proxy.server.ui_action_routes import ActionRoutes, pool_sender
from proxy.server.ui_routes import UiRoutes, create_ui_app
from proxy.server.upstream import UpstreamPool
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir

TOKEN = "actions-test-token-0123456789abcdef"
WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
JSON = {TOKEN_HEADER: TOKEN, "Content-Type": "application/json"}
API = "/_proxy/ui/api/"

Serve = Callable[..., Any]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a baseline, the walk's cassette, a journal and a HAR export of nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    shutil.copyfile(WALK, tmp_path / "walk.yaml")
    recorded = Exchange(Request("GET", "/v2/hello"), Response(200, (), Body("text", "hello journal")))
    header = json.dumps({"commerce_proxy_journal": 1, "mode": "replace"}).encode()
    (tmp_path / "rec.yaml.journal").write_bytes(header + b"\n" + journal_line(0, recorded))
    return tmp_path


@pytest.fixture
async def serve(folder: Path) -> AsyncIterator[Serve]:
    """Start the UI's server over the folder's files with the actions of `mode`."""
    runners = []

    async def started(mode: str = "offline", **given: Any) -> tuple[str, TrafficView]:
        in_force = project_rules(folder)
        view = offline_view([folder / "walk.yaml", folder / "rec.yaml.journal"], in_force, cache=False)
        setting = ActionSetting(mode, in_force, policy=in_force.project.redaction, **given)
        actions = ActionRoutes(UiActions(view, setting), parse_query)
        server = create_ui_app(UiRoutes(view, parse_query, {}, actions=actions), TOKEN)
        runner, url = await start(server, "127.0.0.1", 0)
        runners.append(runner)
        return url, view

    yield started
    for runner in runners:
        await runner.cleanup()


async def call(
    url: str, method: str, route: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    sent = JSON if headers is None else headers
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, url + API + route, data=data, headers=sent) as answer,
    ):
        return answer.status, dict(answer.headers), await answer.read()


def error_line(status: int, body: bytes) -> str:
    document = json.loads(body)["errors"][0]
    assert document["status"] == str(status)
    assert "\n" not in document["detail"] and "Traceback" not in document["detail"]
    return str(document["detail"])


async def test_curl_diff_and_sources(serve: Serve, folder: Path) -> None:
    url, _ = await serve()
    status, headers, body = await call(url, "GET", "exchanges/2/curl")
    assert status == 200 and headers["Content-Security-Policy"]
    words = shlex.split(json.loads(body)["command"])
    upstream = read_cassette_file(folder / "walk.yaml").upstream
    assert words[0] == "curl" and any(word.startswith(f"{upstream}/v2/") for word in words)
    status, _, body = await call(url, "GET", "diff?a=1&b=2")
    document = json.loads(body)
    assert status == 200 and {"a", "b", "request", "changes", "counts", "drifted"} <= set(document)
    status, _, body = await call(url, "GET", "diff?a=1&b=1&all=1")
    assert status == 200 and json.loads(body)["changes"] == []
    status, _, body = await call(url, "GET", "sources")
    kinds = {Path(source["name"]).name: source["kind"] for source in json.loads(body)["sources"]}
    assert kinds == {"walk.yaml": "cassette", "rec.yaml.journal": "journal"}
    status, _, body = await call(
        url, "GET", f"cassette-diff?a={folder / 'walk.yaml'}&b={folder / 'walk.yaml'}"
    )
    assert status == 200 and isinstance(json.loads(body), dict)
    for route, expected in [
        ("exchanges/999/curl", 404),
        ("exchanges/x1/curl", 400),
        ("diff?a=1", 400),
        ("diff?a=1&b=999", 404),
        ("cassette-diff?a=/etc/passwd&b=/etc/passwd", 404),
        ("export?format=zip", 400),
        ("export?status=abc", 400),
    ]:
        status, _, body = await call(url, "GET", route)
        assert status == expected, route
        error_line(expected, body)


async def test_export_of_the_filtered_view_reimported_with_import_har_is_the_same(
    serve: Serve, folder: Path
) -> None:
    url, _ = await serve()
    cassette = folder / "walk.yaml"
    status, headers, body = await call(url, "GET", f"export?format=har&cassette={cassette}")
    assert status == 200
    assert headers["Content-Disposition"] == 'attachment; filename="commerce-proxy-export.har"'
    har = folder / "view.har"
    har.write_bytes(body)
    imported = import_har(ImportRequest(har, folder / "back.yaml")).cassette
    recorded = read_cassette_file(cassette)
    assert [e.request for e in imported.exchanges] == [e.request for e in recorded.exchanges]
    assert [e.response for e in imported.exchanges] == [e.response for e in recorded.exchanges]
    status, headers, body = await call(url, "GET", "export?format=cassette&method=GET")
    assert status == 200 and headers["Content-Disposition"].endswith('.yaml"') and b"exchanges" in body


async def test_export_over_the_limit_is_413(serve: Serve, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("proxy.app.ui_action_cases.EXPORT_MOST", 2)
    url, _ = await serve()
    status, _, body = await call(url, "GET", "export?format=har")
    assert status == 413 and "narrow the filter" in error_line(413, body)


async def test_export_with_a_text_filter_before_the_text_is_in_is_a_503_as_the_reads(
    serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live server's first text filter past a few hundred exchanges, or a large offline set's while
    its text is indexed, refuses an export the way the list's reads refuse it (it was a 409)."""

    def still(index: object) -> None:
        raise StillIndexing("the bodies' text is still being indexed (0 of 2 exchanges): text search ...")

    url, _ = await serve()
    monkeypatch.setattr("proxy.store.traffic_index.TrafficIndex._text_searchable", still)
    status, _, body = await call(url, "GET", "export?format=har&text=hello")
    assert status == 503 and "still being indexed" in error_line(503, body)
    assert (await call(url, "GET", "export?format=har&method=GET"))[0] == 200  # other filters export


async def test_baseline_accept_keeps_the_file_and_counts(serve: Serve, folder: Path) -> None:
    url, view = await serve()
    edited = folder / "walk.yaml"
    # a finding to accept: an edit that breaks the next link
    wrong = "http://127.0.0.1:1/v2/products?page[limit]=10&page[offset]=60&page[total_method]=exact"
    status, _, body = await call(
        url, "POST", "exchanges/2/edit", {"field": "resp.json.links.next", "value": wrong}
    )
    assert status == 200, body
    rows = view.window(parse_query([("cassette", str(edited)), ("severity", "error")]), 0, 10)["exchanges"]
    rule = view.exchange(rows[0]["id"])["findings"][0]["rule"]  # type: ignore[index]
    status, _, body = await call(url, "POST", "baseline", {"exchange": rows[0]["id"], "rule": rule})
    assert status == 200, body
    accepted = json.loads(body)
    assert accepted["added"] >= 1 and accepted["total"] == accepted["added"]
    assert Path(accepted["path"]) == folder / "accepted.json" and (folder / "accepted.json").exists()
    written = (folder / "accepted.json").read_bytes()
    shown = view.exchange(rows[0]["id"])["findings"]  # type: ignore[index]
    assert rule not in [finding["rule"] for finding in shown]  # accepted: no longer listed, as in `check`
    status, _, body = await call(url, "POST", "baseline", {"exchange": rows[0]["id"], "rule": rule})
    assert status == 404 and (folder / "accepted.json").read_bytes() == written
    status, _, body = await call(url, "POST", "baseline", {"exchange": 1, "rule": "no.such.rule"})
    assert status == 404
    (folder / "commerce-proxy.yaml").write_text("{}\n")
    url2, _ = await serve()
    status, _, body = await call(url2, "POST", "baseline", {"exchange": rows[0]["id"], "rule": rule})
    assert status == 409 and "baseline" in error_line(409, body)


async def test_an_offline_edit_is_rechecked_saved_and_reindexed(serve: Serve, folder: Path) -> None:
    url, view = await serve()
    cassette = folder / "walk.yaml"
    before = cassette.read_bytes()
    wrong = "http://127.0.0.1:1/v2/products?page[limit]=10&page[offset]=60&page[total_method]=exact"
    status, _, body = await call(
        url, "POST", "exchanges/2/edit", {"field": "resp.json.links.next", "value": wrong}
    )
    assert status == 200, body
    answer = json.loads(body)
    assert answer["summary"] and [f["severity"] for f in answer["added"]] == ["error"]
    assert cassette.read_bytes() != before
    saved = read_cassette_file(cassette).exchanges[1].response.body.value
    assert isinstance(saved, dict) and saved["links"]["next"] == wrong
    shown = view.exchange(2)
    assert shown is not None and wrong in shown["response"]["body"]["text"]
    assert any(f["rule"] == answer["added"][0]["rule"] for f in shown["findings"])
    status, _, body = await call(
        url, "POST", "exchanges/2/edit", {"field": "resp.json.links.next", "unset": True}
    )
    assert status == 200 and json.loads(body)["removed"]
    total = view.info()["exchanges"]
    status, _, body = await call(url, "POST", "exchanges/1/delete", {})
    assert status == 200 and view.info()["exchanges"] == total - 1
    assert len(read_cassette_file(cassette).exchanges) == total - 2  # the journal's one is the last


async def test_edit_refusals(serve: Serve, folder: Path) -> None:
    url, view = await serve()
    journal_row = view.window(parse_query([("method", "GET"), ("path", "/v2/hello")]), 0, 1)["exchanges"][0]
    before = (folder / "walk.yaml").read_bytes()
    good = {"field": "resp.status", "value": 201}
    for route, body, headers, expected in [
        ("exchanges/1/edit", good, {"Content-Type": "application/json"}, 403),  # no token header
        ("exchanges/1/edit", good, {TOKEN_HEADER: TOKEN, "Content-Type": "application/xml"}, 415),
        ("exchanges/1/edit", b"{not json", None, 400),
        ("exchanges/1/edit", [1, 2], None, 400),
        ("exchanges/1/edit", {"value": 1}, None, 400),
        ("exchanges/1/edit", {"field": "resp.status"}, None, 400),
        ("exchanges/1/edit", b"{" + b" " * (64 * 1024) + b"}", None, 413),
        ("exchanges/999/edit", good, None, 404),
        ("exchanges/abc/delete", {}, None, 400),
        (f"exchanges/{journal_row['id']}/edit", good, None, 409),
        (f"exchanges/{journal_row['id']}/delete", {}, None, 409),
        ("exchanges/1/edit", {"field": "no.such.field", "value": 1}, None, 400),
        ("baseline", {"exchange": "1", "rule": "x"}, None, 400),
        ("exchanges/1/resend", {}, None, 405),
    ]:
        status, _, answer = await call(url, "POST", route, body, headers)
        assert status == expected, (route, body, answer)
        assert "detail" in json.loads(answer)["errors"][0]
    status, headers_got, _ = await call(url, "GET", "exchanges/1/edit")
    assert status == 405 and headers_got["Allow"] == "POST"
    assert (folder / "walk.yaml").read_bytes() == before
    for mode in ("record", "spy", "replay"):
        other, _ = await serve(mode)
        status, _, answer = await call(other, "POST", "exchanges/1/delete", {})
        assert status == 405 and "offline only" in error_line(405, answer)
    assert (folder / "walk.yaml").read_bytes() == before


async def test_resend_goes_to_the_upstream_and_diffs_with_the_recording(serve: Serve) -> None:
    seen: list[str] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(request.path_qs)
        return web.json_response({"data": [], "changed": True})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    upstream = f"http://127.0.0.1:{port}"
    pool = UpstreamPool(upstream, 5.0, 1 << 20)
    try:
        url, view = await serve("spy", upstream=upstream, send=pool_sender(pool))
        status, _, body = await call(url, "POST", "exchanges/2/resend", {})
        assert status == 409 and "redacted value" in error_line(409, body) and not seen  # as verify
        url, view = await serve("spy", upstream=upstream, send=pool_sender(pool), sends_authorization=True)
        before = view.info()["exchanges"]
        status, _, body = await call(url, "POST", "exchanges/2/resend", {})
        assert status == 200, body
        document = json.loads(body)
        assert document["status"] == 200 and document["diff"]["changes"] and seen
        assert view.info()["exchanges"] == before  # never recorded
        status, _, body = await call(url, "GET", "exchanges/2/curl")
        assert upstream in json.loads(body)["command"]
    finally:
        pool.close()
        await runner.cleanup()


ACTIONS = [
    ("GET", "exchanges/1/curl", None, "curl"),
    ("GET", "diff?a=1&b=2", None, "diff"),
    ("GET", "sources", None, "sources"),
    ("GET", "cassette-diff?a=walk.yaml&b=walk.yaml", None, "cassette_diff"),
    ("GET", "export?format=har", None, "export"),
    ("GET", "export?format=cassette&path=/v2/*", None, "export"),
    ("POST", "baseline", {"exchange": 1, "rule": "r"}, "accept"),
    ("POST", "exchanges/1/delete", {}, "delete"),
    ("POST", "exchanges/1/edit", {"field": "response.status", "value": 201}, "edit"),
]


@pytest.mark.parametrize(("method", "route", "body", "name"), ACTIONS)
async def test_every_action_but_resend_runs_off_the_servers_loop(
    serve: Serve, monkeypatch: pytest.MonkeyPatch, method: str, route: str, body: Any, name: str
) -> None:
    """An export of a large view took 22 s on the loop, and every exchange the server proxied waited
    that long: each action's work runs in a worker thread (a resend awaits its upstream on the loop)."""
    import threading

    from proxy.errors import UsageError

    ran_on: list[int] = []

    def probe(*_: Any, **__: Any) -> Any:
        ran_on.append(threading.get_ident())
        raise UsageError("probe: refused here")

    monkeypatch.setattr(UiActions, name, probe)
    url, _ = await serve()
    status, _, answer = await call(url, method, route, body)
    assert (status, error_line(400, answer)) == (400, "probe: refused here")
    assert ran_on and threading.get_ident() not in ran_on


BREAKS = ["\n", "\r", "\r\n", "\u2028", "\x1b[31m", "\t", "\x00"]


async def test_a_refusal_quoting_a_value_with_a_line_break_keeps_the_whole_reason(
    serve: Serve, folder: Path
) -> None:
    """Every route that quotes what it was given in its refusal (an edit's field and value, a rule, a
    cassette, a filter), given a value holding a line break or another control character: the answer's
    one line is the whole reason, the character shown escaped, as the command line prints it."""
    url, _ = await serve()
    before = (folder / "walk.yaml").read_bytes()
    for mark in BREAKS:
        asked = [  # (method, route, body, a word of the reason after the break)
            ("POST", "exchanges/2/edit", {"field": f"resp.header.X-Bad{mark}Header", "value": "x"}, "Header"),
            ("POST", "exchanges/2/edit", {"field": f"nosuch{mark}field", "value": "x"}, "field"),
            ("POST", "baseline", {"exchange": 2, "rule": f"no.such{mark}rule"}, "rule"),
            ("GET", f"exchanges?rule=no.such{mark}rule", None, "rule"),
            ("GET", f"exchanges?cassette=nothing{mark}here", None, "here"),
            ("GET", f"cassette-diff?a=nothing{mark}here&b=walk.yaml", None, "here"),
        ]
        for method, route, body, word in asked:
            status, _, answer = await call(url, method, route.replace(mark, _percent(mark)), body)
            assert 400 <= status < 500, (route, answer)
            line = error_line(status, answer)
            assert not any(char in line for char in "\r\u2028\x1b\x00"), (route, line)
            # the reason after the break is kept (a NUL in a filter is refused without quoting it)
            assert word in line or (mark == "\x00" and "NUL" in line), (route, mark, line)
    assert (folder / "walk.yaml").read_bytes() == before


def _percent(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")
