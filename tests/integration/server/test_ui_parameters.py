"""Every parameter of the UI's API that is not a filter goes through one reader: a number an index
cannot hold, a number written any other way than digits, one given twice, a flag other than 1/0/true/
false, or a parameter the route does not take is a 400 naming it, on every route that takes one, never
a 500 and never an answer that looks right (an outsider found a 500 from an exchange id past SQLite's
INTEGER, `all=yes` read as false, `info?x=1` answered). A stream cursor past the server's last
exchange (a restart kept the token) is a 409, not a stream that skips rows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.server import test_ui_action_routes as actions
from tests.integration.server import test_ui_routes as routes

ID_MOST = 2**63 - 1  # SQLite's largest INTEGER
ui = routes.ui
folder, serve = actions.folder, actions.serve

NOT_NUMBERS = [
    "9223372036854775808",
    "1" * 30,
    "-1",
    "1.0",
    "1e3",
    "+5",
    " 5",
    "5 ",
    "0x10",
    "\u0663",
    "五",
    "",
]
# Where a number is read, as a request target: each spelling put in the place of N.
READ_NUMBERS = [
    ("exchanges?offset=N", "offset"),
    ("exchanges?limit=N", "limit"),
    ("events?cursor=N", "cursor"),
    ("exchanges/N", "exchange id"),
]
ACTION_NUMBERS = [
    ("GET", "exchanges/N/curl", "exchange id"),
    ("GET", "diff?a=N&b=1", "a="),
    ("GET", "diff?a=1&b=N", "b="),
    ("POST", "exchanges/N/delete", "exchange id"),
]
UNKNOWN = ["x", "offset", "cursor", "Limit", "a%00"]
READ_ROUTES = ["info", "exchanges/1", "events"]
ACTION_ROUTES = [
    ("GET", "sources"),
    ("GET", "exchanges/1/curl"),
    ("GET", "diff?a=1&b=2"),
    ("POST", "baseline"),
    ("POST", "exchanges/1/delete"),
]


def one_line(body: bytes) -> str:
    detail = str(json.loads(body)["errors"][0]["detail"])
    assert "\n" not in detail and "Traceback" not in detail
    return detail


def quoted(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


async def test_a_number_of_the_read_routes_past_an_index_or_not_digits_is_a_400_naming_it(
    ui: tuple[str, Any],
) -> None:
    url, _ = ui
    for target, name in READ_NUMBERS:
        for spelling in NOT_NUMBERS:
            if spelling == "" and "exchanges/" in target:
                continue  # `exchanges/` is another route
            status, _, body = await routes.fetch(
                url, "/_proxy/ui/api/" + target.replace("N", quoted(spelling)), routes.AUTH
            )
            assert status == 400, (target, spelling, status)
            assert name in one_line(body), (target, spelling)


async def test_numbers_with_leading_zeros_are_numbers_and_twice_is_said(ui: tuple[str, Any]) -> None:
    url, _ = ui
    status, _, body = await routes.fetch(url, "/_proxy/ui/api/exchanges?offset=0003&limit=0002", routes.AUTH)
    assert status == 200 and [row["id"] for row in json.loads(body)["exchanges"]] == [4, 5]
    for name in ("offset", "limit", "cursor"):
        target = "events" if name == "cursor" else "exchanges"
        status, _, body = await routes.fetch(url, f"/_proxy/ui/api/{target}?{name}=1&{name}=2", routes.AUTH)
        assert status == 400 and f"{name} given 2 times" in one_line(body)


@pytest.mark.parametrize("route", READ_ROUTES)
@pytest.mark.parametrize("name", UNKNOWN)
async def test_a_parameter_a_read_route_does_not_take_is_a_400_naming_it(
    ui: tuple[str, Any], route: str, name: str
) -> None:
    url, _ = ui
    if route == "events" and name == "cursor":
        return  # the one it takes
    status, _, body = await routes.fetch(url, f"/_proxy/ui/api/{route}?{name}=1", routes.AUTH)
    assert status == 400, (route, name, status)
    assert repr(name.replace("%00", "\0")) in one_line(body)


async def test_a_stream_cursor_past_the_servers_last_exchange_is_a_409(ui: tuple[str, Any]) -> None:
    url, view = ui
    last = len(view.rows)
    for spelling in (f"events?cursor={last + 1}", f"events?cursor={ID_MOST}"):
        status, _, body = await routes.fetch(url, "/_proxy/ui/api/" + spelling, routes.AUTH)
        assert status == 409 and "another run" in one_line(body)
    status, _, body = await routes.fetch(
        url, "/_proxy/ui/api/events", routes.AUTH, f"Last-Event-ID: {last + 50}"
    )
    assert status == 409 and f"cursor {last + 50}" in one_line(body)


async def test_the_action_routes_read_numbers_flags_and_parameters_the_same_way(serve: actions.Serve) -> None:
    url, _ = await serve()
    for method, target, name in ACTION_NUMBERS:
        for spelling in NOT_NUMBERS:
            if spelling == "" and target.startswith("exchanges/"):
                continue
            body = {} if method == "POST" else None
            status, _, answer = await actions.call(url, method, target.replace("N", quoted(spelling)), body)
            assert status == 400, (target, spelling, status, answer[:200])
            assert name in one_line(answer), (target, spelling)
    for exchange in (ID_MOST + 1, 2**70, 0, -1, True, "1", 1.0):
        status, _, answer = await actions.call(url, "POST", "baseline", {"exchange": exchange, "rule": "r"})
        assert status == 400 and "exchange" in one_line(answer), exchange
    for value in ("yes", "2", "no", "TRUE", ""):
        status, _, answer = await actions.call(url, "GET", f"diff?a=1&b=2&all={value}")
        assert status == 400 and "all=" in one_line(answer), value
    for value in ("1", "true", "0", "false"):
        status, _, _ = await actions.call(url, "GET", f"diff?a=1&b=2&all={value}")
        assert status == 200, value
    for method, route in ACTION_ROUTES:
        joiner = "&" if "?" in route else "?"
        body = {"exchange": 1, "rule": "r"} if route == "baseline" else ({} if method == "POST" else None)
        status, _, answer = await actions.call(url, method, f"{route}{joiner}zz=1", body)
        assert status == 400 and "'zz'" in one_line(answer), (route, status)


async def test_last_event_id_is_read_once_and_without_its_blanks(ui: tuple[str, Any]) -> None:
    url, view = ui
    past = len(view.rows) + 7
    status, _, body = await routes.fetch(
        url, "/_proxy/ui/api/events", routes.AUTH, "Last-Event-ID: 3", f"Last-Event-ID: {past}"
    )
    assert status == 400 and "Last-Event-ID given 2 times" in one_line(body)
    for spelled in (f"{past} ", f" {past}", f"\t{past}\t"):
        status, _, body = await routes.fetch(
            url, "/_proxy/ui/api/events", routes.AUTH, f"Last-Event-ID: {spelled}"
        )
        assert status == 409 and f"cursor {past}" in one_line(body), spelled  # read, then judged


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("baseline", {"exchange": 1, "rule": "r", "x": 1}),
        ("exchanges/1/delete", {"force": True}),
        ("exchanges/1/resend", {"x": 1}),
        ("exchanges/1/edit", {"field": "status", "value": 201, "vaule": 202}),
    ],
)
async def test_a_post_body_member_the_route_does_not_take_is_a_400_naming_it(
    serve: actions.Serve, route: str, body: dict[str, Any]
) -> None:
    url, _ = await serve("record" if route.endswith("resend") else "offline")
    status, _, answer = await actions.call(url, "POST", route, body)
    extra = sorted(set(body) - {"exchange", "rule", "field", "value"})[0]
    assert status == 400 and repr(extra) in one_line(answer), (route, status, answer[:200])
