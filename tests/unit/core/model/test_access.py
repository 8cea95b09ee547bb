"""The one access decision of every `/_proxy/` route, over a generated table: methods x paths x ways of
sending the token x Host values x browser marks, each compared with the rules as docs/security.md says
them, written here apart from the code."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from proxy.core.model.access import (
    TOKEN_COOKIE,
    TOKEN_HEADER,
    Allow,
    Refuse,
    SetCookie,
    decide_access,
    ui_address,
)
from proxy.core.model.hosts import HostPolicy

TOKEN = "s3cr3t-TOKEN_abcdefghijklmnopqrstuvwxyz012345"
PORT = 8080
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]
PATHS = {  # path: kind
    "/_proxy/ui/": "ui",
    "/_proxy/ui/?rule=x": "ui",
    "/_proxy/ui/api/exchanges?method=GET&offset=0": "ui",
    "/_proxy/ui/api/events?cursor=3": "ui",
    "/_proxy/ui/assets/app.js": "ui",
    "/_proxy/health": "admin",
    "/_proxy/findings": "admin",
    "/_proxy/usage": "admin",
    "/_proxy/reset": "admin",
    "/_proxy/nothing-here": "admin",
}
TOKENS = {  # name: header lines
    "none": [],
    "cookie": [("Cookie", f"{TOKEN_COOKIE}={TOKEN}")],
    "cookie among others": [("Cookie", f"a=1; {TOKEN_COOKIE}={TOKEN}; b=2")],
    "header": [(TOKEN_HEADER, TOKEN)],
    "both": [("Cookie", f"{TOKEN_COOKIE}={TOKEN}"), (TOKEN_HEADER, TOKEN)],
    "wrong cookie": [("Cookie", f"{TOKEN_COOKIE}={TOKEN[:-1]}")],
    "wrong header": [(TOKEN_HEADER, TOKEN + "x")],
    "empty header": [(TOKEN_HEADER, "")],
    "other cookie name": [("Cookie", f"commerce_proxy_tokenx={TOKEN}")],
    "two headers": [(TOKEN_HEADER, TOKEN), (TOKEN_HEADER, "guess")],
    "wrong header, right cookie": [(TOKEN_HEADER, "guess"), ("Cookie", f"{TOKEN_COOKIE}={TOKEN}")],
}
HOSTS = {  # Host value: this machine's?
    None: True,
    f"127.0.0.1:{PORT}": True,
    f"localhost:{PORT}": True,
    "[::1]:8080": True,
    "attacker.example": False,
    f"localhost.attacker.example:{PORT}": False,
    "127.0.0.1.nip.io": False,
    "127.1": False,
    "2130706433": False,
    "0x7f000001": False,
    "[::ffff:127.0.0.2]": False,
    "bad host!": False,
}
MARKS = {  # name: (header lines, a browser page of another origin?, a change a form could make?)
    "none": ([], False, False),
    "same-origin": (
        [("Sec-Fetch-Site", "same-origin"), ("Origin", f"http://127.0.0.1:{PORT}")],
        False,
        False,
    ),
    "typed": ([("Sec-Fetch-Site", "none")], False, False),
    "json": ([("Content-Type", "application/json")], False, False),
    "foreign origin": ([("Origin", "http://attacker.example")], True, True),
    "null origin": ([("Origin", "null")], True, True),
    "cross-site": ([("Sec-Fetch-Site", "cross-site")], True, True),
    "same-site": ([("Sec-Fetch-Site", "same-site")], False, True),
    "form": ([("Content-Type", "application/x-www-form-urlencoded")], False, True),
    "text/plain": ([("Content-Type", "text/plain;charset=utf-8")], False, True),
}


def expected(method: str, path: str, token: str, host: bool, marks: str) -> str:
    """The rules as written: 'allow', 'refuse' or 'cookie'."""
    _, foreign_page, cross_change = MARKS[marks]
    if not host or foreign_page:
        return "refuse"
    kind = PATHS[path]
    if method not in ("GET", "HEAD"):
        if cross_change:
            return "refuse"
        return "allow" if token in ("header", "both") else "refuse"
    if kind == "admin":
        return "allow"
    readers = ("cookie", "cookie among others", "header", "both", "wrong header, right cookie")
    return "allow" if token in readers else "refuse"


def table() -> Iterator[tuple[str, str, str, str | None, str]]:
    yield from itertools.product(METHODS, PATHS, TOKENS, HOSTS, MARKS)


def test_every_route_method_token_host_and_mark_is_decided_as_documented() -> None:
    """Over 70,000 requests: the UI needs the token (cookie or header), a change needs the header and
    no cross-site mark, a foreign Host or page is refused everywhere, the scripts' reads need nothing."""
    policy = HostPolicy.of((), "127.0.0.1")
    rows = list(table())
    assert len(rows) > 70_000
    seen = set()
    for method, path, token, host, marks in rows:
        headers = [*TOKENS[token], *MARKS[marks][0]]
        if host is not None:
            headers.append(("Host", host))
        decision = decide_access(method, path, tuple(headers), TOKEN, policy, "127.0.0.1")
        want = expected(method, path, token, HOSTS[host], marks)
        got = {Allow: "allow", Refuse: "refuse", SetCookie: "cookie"}[type(decision)]
        assert got == want, (method, path, token, host, marks, decision)
        if isinstance(decision, Refuse):
            assert decision.status == 403 and "\n" not in decision.detail and TOKEN not in decision.detail
        seen.add(got)
    assert seen == {"allow", "refuse"}


@pytest.mark.parametrize("path", ["/_proxy/ui/", "/_proxy/ui/api/info", "/_proxy/ui/assets/style.css"])
@pytest.mark.parametrize("rest", ["", "rule=pagination.next&text=a%20b", "token=TWICE"])
def test_the_token_in_the_address_sets_the_cookie_and_leaves_the_address(path: str, rest: str) -> None:
    """?token=T (right) answers a redirect to the same address without it, setting the cookie HttpOnly,
    SameSite=Strict, Path=/_proxy/; a wrong one, or a right one beside a wrong one, is a 403."""
    policy = HostPolicy.of()
    query = f"token={TOKEN}" + (f"&{rest}" if rest else "")
    decision = decide_access("GET", f"{path}?{query}", (), TOKEN, policy, None)
    if "TWICE" in rest:
        assert isinstance(decision, Refuse)
        return
    assert isinstance(decision, SetCookie)
    assert decision.location == path + (f"?{rest}" if rest else "")
    assert decision.cookie == f"{TOKEN_COOKIE}={TOKEN}; HttpOnly; SameSite=Strict; Path=/_proxy/"
    wrong = decide_access("GET", f"{path}?token=nope", (), TOKEN, policy, None)
    assert isinstance(wrong, Refuse) and "nope" not in wrong.detail


def test_an_empty_server_token_lets_nothing_through() -> None:
    """A server with no token (never made) refuses every token, the empty one included."""
    for headers in [((TOKEN_HEADER, ""),), (("Cookie", f"{TOKEN_COOKIE}="),)]:
        assert isinstance(decide_access("GET", "/_proxy/ui/", headers, "", HostPolicy.of(), None), Refuse)
        assert isinstance(decide_access("POST", "/_proxy/reset", headers, "", HostPolicy.of(), None), Refuse)


def test_the_printed_address_carries_the_token() -> None:
    assert ui_address("http://127.0.0.1:8080", "a-b_c") == "http://127.0.0.1:8080/_proxy/ui/?token=a-b_c"
