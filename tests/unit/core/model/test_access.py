"""The one access decision of every `/_proxy/` route, over a generated table: methods x paths x ways of
sending the token x Host values x browser marks, each compared with the rules as docs/security.md says
them, written here apart from the code. The UI's data and actions need the header; the cookie (named
after the port, its value not the token) opens the page and its files alone."""

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
    cookie_name,
    decide_access,
    page_pass,
    ui_address,
)
from proxy.core.model.hosts import HostPolicy

TOKEN = "s3cr3t-TOKEN_abcdefghijklmnopqrstuvwxyz012345"
PORT = 8080
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]
PATHS = {  # path: kind
    "/_proxy/ui/": "page",
    "/_proxy/ui/?rule=x": "page",
    "/_proxy/ui/assets/app.js": "page",
    "/_proxy/ui/api/info": "data",
    "/_proxy/ui/api/exchanges?method=GET&offset=0": "data",
    "/_proxy/ui/api/exchanges/1": "data",
    "/_proxy/ui/api/events?cursor=3": "data",
    "/_proxy/ui/api/export?format=har": "data",
    "/_proxy/ui/api/exchanges/1/delete": "data",
    "/_proxy/health": "admin",
    "/_proxy/findings": "admin",
    "/_proxy/usage": "admin",
    "/_proxy/reset": "admin",
    "/_proxy/nothing-here": "admin",
}
COOKIE = f"{TOKEN_COOKIE}_{PORT}={page_pass(TOKEN)}"
TOKENS = {  # name: header lines
    "none": [],
    "cookie": [("Cookie", COOKIE)],
    "cookie among others": [("Cookie", f"a=1; {COOKIE}; b=2")],
    "header": [(TOKEN_HEADER, TOKEN)],
    "both": [("Cookie", COOKIE), (TOKEN_HEADER, TOKEN)],
    "wrong cookie": [("Cookie", f"{TOKEN_COOKIE}_{PORT}={page_pass(TOKEN)[:-1]}")],
    "the token as cookie": [("Cookie", f"{TOKEN_COOKIE}_{PORT}={TOKEN}")],
    "unported cookie": [("Cookie", f"{TOKEN_COOKIE}={page_pass(TOKEN)}")],
    "another port's cookie": [("Cookie", f"{TOKEN_COOKIE}_{PORT + 1}={page_pass(TOKEN)}")],
    "wrong header": [(TOKEN_HEADER, TOKEN + "x")],
    "empty header": [(TOKEN_HEADER, "")],
    "cookie value as header": [(TOKEN_HEADER, page_pass(TOKEN))],
    "other cookie name": [("Cookie", f"{TOKEN_COOKIE}_{PORT}x={page_pass(TOKEN)}")],
    "two headers": [(TOKEN_HEADER, TOKEN), (TOKEN_HEADER, "guess")],
    "wrong header, right cookie": [(TOKEN_HEADER, "guess"), ("Cookie", COOKIE)],
}
HOSTS = {  # Host value: this machine's?
    None: True,
    f"127.0.0.1:{PORT}": True,
    f"localhost:{PORT}": True,
    f"localhost.:{PORT}": False,
    f"127.0.0.1.:{PORT}": False,
    "[::1]:8080": True,
    "attacker.example": False,
    "attacker.example.": False,
    "localhost..": False,
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
    "two origins": (
        [("Origin", f"http://127.0.0.1:{PORT}"), ("Origin", "http://attacker.example")],
        True,
        True,
    ),
    "two sites": ([("Sec-Fetch-Site", "same-origin"), ("Sec-Fetch-Site", "cross-site")], True, True),
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
    if kind == "admin" or token in ("header", "both"):
        return "allow"
    if kind == "page" and token in ("cookie", "cookie among others", "wrong header, right cookie"):
        return "allow"
    return "refuse"


def table() -> Iterator[tuple[str, str, str, str | None, str]]:
    yield from itertools.product(METHODS, PATHS, TOKENS, HOSTS, MARKS)


def test_every_route_method_token_host_and_mark_is_decided_as_documented() -> None:
    """Over 100,000 requests: the UI's data and every change need the header (a change, no cross-site
    mark too), this port's cookie opens the page and its files alone, a foreign Host or page (or a mark
    given twice) is refused everywhere, the scripts' reads need nothing."""
    policy = HostPolicy.of((), "127.0.0.1")
    rows = list(table())
    assert len(rows) > 100_000
    seen = set()
    for method, path, token, host, marks in rows:
        headers = [*TOKENS[token], *MARKS[marks][0]]
        if host is not None:
            headers.append(("Host", host))
        decision = decide_access(method, path, tuple(headers), TOKEN, policy, "127.0.0.1", PORT)
        want = expected(method, path, token, HOSTS[host], marks)
        got = {Allow: "allow", Refuse: "refuse", SetCookie: "cookie"}[type(decision)]
        assert got == want, (method, path, token, host, marks, decision)
        if isinstance(decision, Refuse):
            assert decision.status == 403 and "\n" not in decision.detail and TOKEN not in decision.detail
        seen.add(got)
    assert seen == {"allow", "refuse"}


@pytest.mark.parametrize("path", ["/_proxy/ui/", "/_proxy/ui/api/info", "/_proxy/ui/assets/style.css"])
@pytest.mark.parametrize("rest", ["", "rule=pagination.next&text=a%20b", "token=TWICE"])
@pytest.mark.parametrize("port", [8080, 8081, None])
def test_the_token_in_the_address_moves_to_the_fragment_and_sets_the_page_cookie(
    path: str, rest: str, port: int | None
) -> None:
    """?token=T (right) answers a redirect to the same address with the token in the fragment (which the
    browser never sends on), setting a cookie HttpOnly, SameSite=Strict, Path=/_proxy/ui/, named after
    the port, whose value is not the token; a wrong one, or a right one beside a wrong one, is a 403."""
    policy = HostPolicy.of()
    query = f"token={TOKEN}" + (f"&{rest}" if rest else "")
    decision = decide_access("GET", f"{path}?{query}", (), TOKEN, policy, None, port)
    if "TWICE" in rest:
        assert isinstance(decision, Refuse)
        return
    assert isinstance(decision, SetCookie)
    assert decision.location == path + (f"?{rest}" if rest else "") + f"#token={TOKEN}"
    name = f"{TOKEN_COOKIE}_{port}" if port else TOKEN_COOKIE
    assert cookie_name(port) == name
    assert decision.cookie == f"{name}={page_pass(TOKEN)}; HttpOnly; SameSite=Strict; Path=/_proxy/ui/"
    assert TOKEN not in decision.cookie
    wrong = decide_access("GET", f"{path}?token=nope", (), TOKEN, policy, None, port)
    assert isinstance(wrong, Refuse) and "nope" not in wrong.detail


def test_the_page_cookie_is_worth_nothing_for_data_or_actions() -> None:
    """Whatever cookie another server on this machine receives (ours, any port's, the token itself as a
    cookie), it opens no API route and no change; the header alone does."""
    cookies = [
        f"{cookie_name(port)}={value}" for port in (None, 1, PORT) for value in (TOKEN, page_pass(TOKEN))
    ]
    for cookie in cookies:
        for method, path in [
            ("GET", "/_proxy/ui/api/exchanges"),
            ("GET", "/_proxy/ui/api/info"),
            ("GET", "/_proxy/ui/api/events"),
            ("POST", "/_proxy/ui/api/exchanges/1/delete"),
            ("POST", "/_proxy/reset"),
        ]:
            headers = (("Cookie", cookie), ("Content-Type", "application/json"))
            assert isinstance(
                decide_access(method, path, headers, TOKEN, HostPolicy.of(), None, PORT), Refuse
            )
    assert page_pass(TOKEN) != page_pass(TOKEN + "x") and len(page_pass(TOKEN)) == 64


HOST_NAMES = ["localhost", "127.0.0.1", "127.0.0.2", "[::1]", "allowed.test", "attacker.example"]


@pytest.mark.parametrize("port", ["", ":8080"])
def test_a_name_with_a_trailing_dot_never_names_this_machine(port: str) -> None:
    """`localhost.`, `127.0.0.1.`, the bound address's and an allowed name's dotted forms are refused
    alike, in Host and in Origin, while each name without the dot is answered (before, `127.0.0.1.` and
    an allowed name's dotted form passed, `localhost.` did not)."""
    policy = HostPolicy.of(("allowed.test.",), "127.0.0.2")
    for name in HOST_NAMES:
        for header, form in (("Host", "{}"), ("Origin", "http://{}")):
            plain = (header, form.format(f"{name}{port}"))
            dotted = (header, form.format(f"{name}.{port}"))
            answered = decide_access("GET", "/_proxy/health", (plain,), TOKEN, policy, "127.0.0.1", PORT)
            refused = decide_access("GET", "/_proxy/health", (dotted,), TOKEN, policy, "127.0.0.1", PORT)
            assert isinstance(answered, Allow) == (name != "attacker.example"), (plain, answered)
            assert isinstance(refused, Refuse), (dotted, refused)


def test_an_empty_server_token_lets_nothing_through() -> None:
    """A server with no token (never made) refuses every token, the empty one included."""
    for headers in [
        ((TOKEN_HEADER, ""),),
        (("Cookie", f"{TOKEN_COOKIE}="),),
        (("Cookie", f"{cookie_name(1)}={page_pass('')}"),),
    ]:
        for path in ("/_proxy/ui/", "/_proxy/ui/api/info"):
            assert isinstance(decide_access("GET", path, headers, "", HostPolicy.of(), None, 1), Refuse)
        assert isinstance(
            decide_access("POST", "/_proxy/reset", headers, "", HostPolicy.of(), None, 1), Refuse
        )


def test_the_printed_address_carries_the_token() -> None:
    assert ui_address("http://127.0.0.1:8080", "a-b_c") == "http://127.0.0.1:8080/_proxy/ui/?token=a-b_c"
