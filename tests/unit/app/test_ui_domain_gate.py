"""Every way an exchange reaches the UI (a cassette, a folder of them, a journal, a HAR file, the live
servers) passes the cassette-domain gate: each field set outside its domain, built by loops over the
fields, is refused by every offline reader with the one error line `import-har` gives (file and entry),
and is left out of a live view; a `verify` report holds no exchange. Copy-as-curl refuses a request line
or header line it could not write as one line."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.app.importing import ImportRequest, import_har
from proxy.app.live_traffic import live_view
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import Answered, offline_view
from proxy.core.cassette.document import Cassette, dump_cassette, exchange_to_document
from proxy.core.cassette.journal_line import journal_line, json_line
from proxy.core.interchange.curl import NotSendable, curl_command
from proxy.core.interchange.har import cassette_to_har
from proxy.core.model.domain import exchange_problem
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.engine import Checked
from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError, NotRecordable
from proxy.store import clock
from proxy.store.rule_files import RulesInForce

GOOD = Exchange(
    Request("GET", "/v2/brands", "page=1", (("Accept", "application/json"), ("X-C", "a"))),
    Response(200, (("Content-Type", "application/json"),), Body("json", {"data": []}), reason="Fine"),
    "2026-01-02T03:04:05Z",
    12.5,
)
CONTROLS = ["\r\nInjected: 1", "\n", "\r", "\x00", "\x1b[2J", "\x7f", "\x0b"]


def _request(exchange: Exchange, **changes: object) -> Exchange:
    return replace(exchange, request=replace(exchange.request, **changes))


def _response(exchange: Exchange, **changes: object) -> Exchange:
    return replace(exchange, response=replace(exchange.response, **changes))


def _outside() -> Iterator[tuple[str, Exchange]]:
    """(the field, GOOD with that field outside its domain), each domain of docs/cassette-format.md."""
    for method in ("GE T", "G\tET", "GET\r\n", "G(E)T", "GET/1", "G:T", "<B>"):
        yield "method", _request(GOOD, method=method)
    names = ("X:C", "<b>X</b>", "X C", "X\r\nY", "(X)", "X/Y", "X@Y", "X-Gööd")
    for name in names:
        yield "request header name", _request(GOOD, headers=((name, "a"),))
        yield "response header name", _response(GOOD, headers=((name, "a"),))
    for control in (*CONTROLS, "\u0100", "\u2028"):
        yield "request header value", _request(GOOD, headers=(("X-C", f"a{control}"),))
        yield "response header value", _response(GOOD, headers=(("X-C", f"a{control}"),))
        yield "reason", _response(GOOD, reason=f"OK{control}")
    for control in (*CONTROLS, " ", "\u00a0", "\u2028"):
        yield "path", _request(GOOD, path=f"/v2/{control}x")
        yield "query", _request(GOOD, query=f"a=1{control}")
    for duration in (math.nan, math.inf, -math.inf, -1.0, -0.001, 1e300):
        yield "duration_ms", replace(GOOD, duration_ms=duration)
    for stamp in ("2999-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "garbage", "2026-13-01T00:00:00Z"):
        yield "recorded_at", replace(GOOD, recorded_at=stamp)
    for status in (100, 101, 199):  # a HAR status below 100 or past 599 is refused by its reader
        yield "status", _response(GOOD, status=status)


CASES = list(_outside())


def test_every_case_is_outside_the_domain_and_good_is_inside() -> None:
    assert exchange_problem(GOOD) is None
    assert all(exchange_problem(bad, time.time()) is not None for _, bad in CASES), "a case inside"


def _har(path: Path, exchange: Exchange) -> Path:
    """As `export-har` writes it (method, heads, time and recording time in its fields), and as other
    tools do (time and startedDateTime in the standard fields only)."""
    document = cassette_to_har(Cassette((exchange,), "https://api.example.com"), "t")
    path.write_text(json.dumps(document))
    return path


def _plain_har(path: Path, exchange: Exchange) -> Path:
    document = cassette_to_har(Cassette((exchange,), "https://api.example.com"), "t")
    for entry in document["log"]["entries"]:
        del entry["_commerce_proxy"]
        entry["time"] = exchange.duration_ms
    del document["log"]["_commerce_proxy"]
    path.write_text(json.dumps(document))  # NaN and Infinity as JSON readers of HAR files take them
    return path


def _journal(path: Path, exchange: Exchange) -> Path:
    header = {"commerce_proxy_journal": 2, "mode": "replace"}
    line = json_line({"seq": 0, "exchange": exchange_to_document(exchange)})  # past journal_line's check
    path.write_bytes(json.dumps(header).encode() + b"\n" + line)
    return path


def _cassette(path: Path, exchange: Exchange) -> Path:
    path.write_text(dump_cassette(Cassette((exchange,), "https://api.example.com")))
    return path


def _folder(path: Path, exchange: Exchange) -> Path:
    path.mkdir()
    _cassette(path / "a.yaml", exchange)
    return path


READERS = {
    "har": (_har, "x.har"),
    "other tool's har": (_plain_har, "o.har"),
    "journal": (_journal, "r.yaml.journal"),
    "cassette": (_cassette, "c.yaml"),
    "folder": (_folder, "cassettes"),
}


def _expressible(reader: str, exchange: Exchange) -> bool:
    """Whether the reader's file can say it at all: a URL parser drops tabs and line breaks from a HAR
    URL (as browsers do), a HAR time below 0 means "unknown" (none), and JSON has no NaN or infinity
    (the journal's writer writes null: no duration)."""
    duration = exchange.duration_ms
    if "har" in reader and (
        any(c in exchange.request.path for c in "\t\r\n") or (duration is not None and duration < 0)
    ):
        return False
    return not (reader == "journal" and duration is not None and not math.isfinite(duration))


@pytest.fixture
def in_force(shipped_rules: RulesInForce) -> RulesInForce:
    return shipped_rules


pytestmark = pytest.mark.usefixtures("own_cache")


def _refusal(path: Path, in_force: RulesInForce) -> str | None:
    try:
        offline_view([path], in_force, cache=False).close()
    except CommerceProxyError as error:
        return str(error)
    return None


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_opens_the_good_exchange(tmp_path: Path, reader: str, in_force: RulesInForce) -> None:
    write, name = READERS[reader]
    view = offline_view([write(tmp_path / name, GOOD)], in_force, cache=False)
    try:
        assert view.window(Query(), 0, 5)["total"] == 1
    finally:
        view.close()


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_every_field_outside_its_domain_in_one_line(
    tmp_path: Path, reader: str, in_force: RulesInForce
) -> None:
    write, name = READERS[reader]
    opened = []
    cases = [(field, bad) for field, bad in CASES if _expressible(reader, bad)]
    for number, (field, bad) in enumerate(cases):
        place = tmp_path / str(number)
        place.mkdir()
        path = write(place / name, bad)
        refusal = _refusal(path, in_force)
        if refusal is None or "\n" in refusal or str(path) not in refusal:
            opened.append((field, bad, refusal))
    assert len(cases) > 70 and not opened, (
        f"{len(opened)} of {len(cases)} opened or not refused in one line: {opened[:3]}"
    )


@pytest.mark.parametrize("plain", [False, True])
def test_the_ui_and_import_har_refuse_a_har_entry_with_the_same_line(tmp_path: Path, plain: bool) -> None:
    differing = []
    for number, (field, bad) in enumerate(c for c in CASES if _expressible("har", c[1])):
        path = (_plain_har if plain else _har)(tmp_path / f"{number}.har", bad)
        try:
            import_har(ImportRequest(path, tmp_path / f"{number}.yaml"))
            imported = None
        except CommerceProxyError as error:
            imported = str(error)
        shown = _refusal(path, shipped_rules_in_force())
        if imported is None or shown != imported or not shown.startswith(f"{path}: exchange 0 of the file: "):
            differing.append((field, imported, shown))
    assert not differing, differing[:3]


def test_a_live_view_leaves_out_every_exchange_outside_the_domain(in_force: RulesInForce) -> None:
    view = live_view("replay", None, in_force)
    try:
        for _, bad in CASES:
            view.add_answered(bad, [], Answered("miss"))
        view.add_answered(GOOD, [], Answered("miss"))
        view.flush()
        rows = view.window(Query(), 0, 500)
        assert rows["total"] == 1 and rows["exchanges"][0]["path"] == "/v2/brands?page=1"
    finally:
        view.close()


def test_curl_refuses_what_cannot_be_one_line_of_a_request() -> None:
    """Defence in depth: even handed one, copy-as-curl writes no request line or header line of a
    recorded value's making."""
    unsendable = [
        bad
        for field, bad in CASES
        if field in ("method", "request header name", "path", "query")
        or (field == "request header value" and any(c in bad.request.headers[0][1] for c in "\r\n\x00"))
    ]
    written = []
    for bad in unsendable:
        try:
            written.append(curl_command(bad, "https://api.example.com"))
        except NotSendable as error:
            assert "\n" not in str(error) and "\r" not in str(error)
    assert written == [] and len(unsendable) > 30
    assert curl_command(GOOD, "https://api.example.com").startswith("curl ")


def test_a_live_view_trusts_the_gate_a_journal_line_passed_and_gates_the_rest(in_force: RulesInForce) -> None:
    """A recorded exchange comes with its journal line, and no line is made of an exchange outside the
    domain (`journal_line` refuses it) but one recorded later than now, which a recorder stamping the
    time of its own clock never makes: the view does not judge it again. One without a line is."""
    for field, bad in CASES:
        try:
            journal_line(0, bad)
        except NotRecordable:
            continue
        assert field == "recorded_at" and exchange_problem(bad) is None
        assert bad.recorded_at is not None and bad.recorded_at > clock.now_stamp()
    view = live_view("record", None, in_force)
    try:
        for number, (_, bad) in enumerate(CASES):
            view.add_checked(Checked(number, bad, []))
        view.add_checked(Checked(len(CASES), GOOD, [], journal_line(len(CASES), GOOD)))
        view.flush()
        rows = view.window(Query(), 0, 500)
        assert rows["total"] == 1 and rows["exchanges"][0]["path"] == "/v2/brands?page=1"
    finally:
        view.close()
