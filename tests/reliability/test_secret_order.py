"""A secret learned late is still kept out of every output written after it: the order of appearance
does not matter.

Each session shows every token first where nothing names it a secret (a path, a query, a header, a
body), and only later where redaction learns it (a bearer credential, a cookie, a form field of the
token request). Reports, the cassette and admin answers are made after that, so none may hold it:
through the real CLI (`spy` and `record` with `--format F -o FILE`, stopped by SIGINT or SIGTERM, and
their `/_proxy/` answers), and `check` of a hand-written cassette that still holds its credentials.
"""

from __future__ import annotations

import itertools
import json
import signal
from pathlib import Path
from urllib.parse import urlencode
from xml.etree import ElementTree

import aiohttp
import pytest
from aiohttp import web

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from tests.conftest import Serve
from tests.running import commerce_proxy, run_commerce_proxy, stop_with

FORMATS = ("text", "json", "markdown", "junit", "html")
ENDINGS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
FIRST = ("path", "query", "header", "body")  # where a token is seen before anything names it
LATER = ("bearer", "cookie", "form")  # where redaction learns it
JSON, FORM = "application/json", "application/x-www-form-urlencoded"


def token(first: str, later: str) -> str:
    """One token per order of appearance, none a part of another."""
    return f"later{first.capitalize()}{later.capitalize()}TOKEN9876543210zyxwvu"


ORDERS = list(itertools.product(FIRST, LATER))
TOKENS = {order: token(*order) for order in ORDERS}


def first_sight(first: str, value: str) -> tuple[str, str, dict[str, str], dict[str, str] | None]:
    """(method, target, headers, JSON body) of a request that shows `value` in `first`, unnamed."""
    if first == "path":
        return "GET", f"/v2/extensions/wishlists/{value}", {}, None
    if first == "query":
        return "GET", f"/v2/settings?sig={value}", {}, None  # answered 500
    if first == "header":
        return "GET", "/v2/products", {"X-Note": value}, None
    return "POST", "/v2/carts/1/items", {}, {"note": value}


def learning(later: str, value: str) -> tuple[str, str, dict[str, str], dict[str, str] | None]:
    """(method, target, headers, form) of a request that names `value` a secret."""
    if later == "bearer":
        return "GET", "/v2/products", {"Authorization": f"Bearer {value}"}, None
    if later == "cookie":
        return "GET", "/v2/products", {"Cookie": f"session={value}"}, None
    form = {"grant_type": "client_credentials", "client_id": "someone", "client_secret": value}
    return "POST", "/oauth/access_token", {}, form


async def answer(request: web.Request) -> web.Response:
    """A tiny upstream: a token for the token request, a 500 for settings, an empty list otherwise."""
    await request.read()
    if request.path == "/oauth/access_token":
        return web.json_response({"access_token": "issuedAccessValue1234567890", "token_type": "bearer"})
    if request.path == "/v2/settings":
        return web.json_response({"errors": [{"status": 500, "title": "Internal"}]}, status=500)
    return web.json_response({"data": [], "meta": {}})


async def upstream(serve: Serve) -> str:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    return await serve(app)


async def traffic(url: str) -> list[str]:
    """Every token first where it is not named, then every one where it is; then the admin answers."""
    async with aiohttp.ClientSession() as session:
        for (first, _), value in TOKENS.items():
            method, target, headers, body = first_sight(first, value)
            async with session.request(method, url + target, headers=headers, json=body) as reply:
                await reply.read()
        for (_, later), value in TOKENS.items():
            method, target, headers, form = learning(later, value)
            async with session.request(method, url + target, headers=headers, data=form) as reply:
                await reply.read()
        admin = []
        for route in ("/_proxy/findings", "/_proxy/health"):
            async with session.get(url + route) as reply:
                admin.append(await reply.text())
        return admin


def read_back(form: str, text: str) -> str:
    """The report as its format's reader sees it (the placeholder must keep it well formed): the text
    of every JSON string or XML text and attribute, the HTML page's embedded data."""
    if form == "json":
        return json.dumps(json.loads(text), ensure_ascii=False)
    if form == "junit":
        root = ElementTree.fromstring(text)
        return "\n".join([*root.itertext(), *(str(node.attrib) for node in root.iter())])
    if form == "html":
        data = text.split('id="report-data">', 1)[1].split("</script>", 1)[0]
        return json.dumps(json.loads(data), ensure_ascii=False)
    return text


def leaks(where: str, text: str) -> list[str]:
    """Each order of appearance whose token `text` still holds, named with `where`."""
    return [f"{where}: {first} then {later}" for (first, later), value in TOKENS.items() if value in text]


@pytest.mark.parametrize(("form", "ending"), list(itertools.product(FORMATS, ENDINGS)))
async def test_spy_writes_no_secret_learned_after_it_was_first_seen(
    serve: Serve, tmp_path: Path, form: str, ending: str
) -> None:
    url = await upstream(serve)
    report = tmp_path / f"report.{form}"
    arguments = ["spy", "--upstream", url, "--format", form, "-o", str(report)]
    async with commerce_proxy(*arguments) as proxy:
        admin = await traffic(proxy.url)
        code, err = await stop_with(proxy, ENDINGS[ending])
    assert code == 0, err
    raw = report.read_text()
    written = read_back(form, raw)
    assert "<redacted>" in written, written[:2000]  # what was rendered before is scrubbed, as it reads
    found = leaks(f"{form} report", raw + written) + leaks("/_proxy/ answers", "\n".join(admin))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("form", FORMATS)
async def test_record_writes_no_secret_learned_after_it_was_first_seen(
    serve: Serve, tmp_path: Path, form: str
) -> None:
    url = await upstream(serve)
    report, cassette = tmp_path / f"report.{form}", tmp_path / "session.yaml"
    arguments = [
        "record",
        "--upstream",
        url,
        "--cassette",
        str(cassette),
        "--format",
        form,
        "-o",
        str(report),
    ]
    async with commerce_proxy(*arguments) as proxy:
        admin = await traffic(proxy.url)
        code, err = await stop_with(proxy, signal.SIGINT)
    assert code == 0, err
    raw = report.read_text()
    found = leaks(f"{form} report", raw + read_back(form, raw)) + leaks("the cassette", cassette.read_text())
    found += leaks("/_proxy/ answers", "\n".join(admin))
    for left in sorted(tmp_path.rglob("*")):  # no journal or temporary file left holding one either
        if left.is_file():
            found += leaks(left.name, left.read_text(errors="replace"))
    assert not found, "\n".join(found)


def hand_written_cassette() -> str:
    """Every token first unnamed, then as a plain credential, as a person might write them by hand."""
    exchanges = []
    for (first, _), value in TOKENS.items():
        method, target, headers, body = first_sight(first, value)
        exchanges.append(_exchange(method, target, headers, json.dumps(body) if body else "", JSON))
    for (_, later), value in TOKENS.items():
        method, target, headers, form = learning(later, value)
        exchanges.append(_exchange(method, target, headers, urlencode(form) if form else "", FORM))
    return dump_cassette(Cassette(tuple(exchanges)))


def _exchange(method: str, target: str, headers: dict[str, str], body: str, kind: str) -> Exchange:
    path, _, query = target.partition("?")
    sent = tuple(headers.items()) + ((("Content-Type", kind),) if body else ())
    typed = (("Content-Type", JSON),)
    status = 500 if path == "/v2/settings" else 200
    return Exchange(
        Request(method, path, query, sent, body_from_bytes(body.encode(), sent)),
        Response(status, typed, body_from_bytes(b'{"data": []}', typed)),
    )


@pytest.mark.parametrize("form", FORMATS)
def test_check_writes_no_secret_its_cassettes_hold(tmp_path: Path, form: str) -> None:
    cassette = tmp_path / "by-hand.yaml"
    cassette.write_text(hand_written_cassette())
    report = tmp_path / f"report.{form}"
    done = run_commerce_proxy("check", "--format", form, "-o", str(report), "--", str(cassette))
    assert done.returncode in (0, 1), done.stderr
    raw = report.read_text()
    written = read_back(form, raw)
    assert "<redacted>" in written, written[:2000]
    found = leaks(f"{form} report", raw + written) + leaks("stderr", done.stderr)
    assert not found, "\n".join(found)
