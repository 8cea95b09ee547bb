"""The UI's offline index build (`offline_view`, on one core and on two) against the plain path it
shortcuts: each exchange redacted (`redact_exchange`), checked, made an `Entry` and added to an index,
one at a time. Row by row the same rows, detail documents, findings, body text and secret book, for
drawn cassettes holding every kind of thing redaction changes (credentials in headers, queries, forms
and JSON, values already redacted, a secret echoed after it was learned, bodies in another charset)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from proxy.app import traffic_view, two_core_index
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import Endpoints, _entry, offline_view
from proxy.core.cassette.document import Cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import EMPTY_BODY, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.redact import redact_exchange
from proxy.core.rules.engine import Checker
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.streaming import stream_cassette
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette
from proxy.store.traffic_entries import unpacked
from proxy.store.traffic_index import TrafficIndex, temporary_index

JSON = (("Content-Type", "application/json"),)
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
LATIN = (("Content-Type", "text/plain; charset=iso-8859-1"),)
WORDS = ("alpha", "Bearer", "redacted", "sk_live", "café", "n4")


@pytest.fixture
def in_force() -> RulesInForce:
    return shipped_rules_in_force()


@pytest.fixture(autouse=True)
def cached(private_parse_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    KNOWN.forget()


def drawn(chance: random.Random, count: int) -> list[Exchange]:
    """Exchanges with, each by chance, a credential (real or already `<redacted>`) in a header, the
    query, a form or JSON body, a secret of an earlier exchange echoed, a body in Latin-1, or nothing."""
    secrets = [f"sk_live_{chance.getrandbits(64):016x}" for _ in range(3)]
    exchanges = []
    for number in range(count):
        item = f"00000000-0000-4000-8000-{chance.randrange(30):012d}"
        secret = chance.choice(secrets)
        headers: list[tuple[str, str]] = [("Accept", "application/json")]
        query, body, path, method = "", EMPTY_BODY, f"/v2/products/{item}", "GET"
        kind = chance.randrange(9)
        if kind == 0:
            headers.append(("Authorization", f"Bearer {secret}"))
        elif kind == 1:
            headers.append(("Authorization", "Bearer <redacted>"))
        elif kind == 2:
            headers.append(("Cookie", f"session={secret}; theme=dark"))
        elif kind == 3:
            query = f"api_key={chance.choice((secret, '<redacted>'))}&page[limit]=10"
            path = "/v2/products"
        elif kind == 4:
            method, path = "POST", "/oauth/access_token"
            sent = f"grant_type=client_credentials&client_secret={secret}".encode()
            body = body_from_bytes(sent, FORM)
            headers.extend(FORM)
        elif kind == 5:
            method, path = "POST", "/v2/products"
            document = {"data": {"type": "product", "name": f"n{number}", "password": secret}}
            body = body_from_bytes(json.dumps(document).encode(), JSON)
            headers.extend(JSON)
        request = Request(method, path, query, tuple(headers), body)
        status = chance.choice((200, 200, 201, 404, 422))
        answer: dict[str, Any] = {"data": {"id": item, "type": "product", "name": f"alpha {number}"}}
        if kind == 6:  # echoes a secret: redacted once the book has it
            answer["data"]["note"] = f"echo {secret}"
        if kind == 4:
            answer = {"access_token": secret, "token_type": "bearer"}
        response_headers: tuple[tuple[str, str], ...] = JSON
        if kind == 7:
            response_headers = (("Set-Cookie", f"session={secret}; Path=/"), *JSON)
        if kind == 8:
            response_headers = LATIN
            answered = body_from_bytes(f"café {number} {secret}".encode("latin-1"), LATIN)
        else:
            answered = body_from_bytes(json.dumps(answer).encode(), JSON) if status != 404 else EMPTY_BODY
        response = Response(status, response_headers, answered)
        exchanges.append(Exchange(request, response, f"2026-01-01T00:00:{number % 60:02d}Z", 1.0))
    return exchanges


def plainly(paths: list[Path], in_force: RulesInForce) -> TrafficIndex:
    """The index built the plain way: one exchange at a time, redacted, checked, an `Entry`, added."""
    KNOWN.forget()
    index = temporary_index()
    endpoints = Endpoints(in_force.ruleset)
    policy = in_force.project.redaction
    for path in paths:
        checker = Checker(in_force.ruleset, in_force.project.config, cassette=str(path))
        for number, exchange in enumerate(stream_cassette(path).exchanges):
            shown = redact_exchange(exchange, policy)
            found = checker.check(shown, number)
            index.add([_entry(shown, found, None, endpoints, str(path), number)])
    return index


def dumped(index: TrafficIndex) -> tuple[Any, ...]:
    database = index._db
    assert index.text_wait(60)
    rows = database.execute("SELECT * FROM exchanges ORDER BY id").fetchall()
    details = [unpacked(blob) for (blob,) in database.execute("SELECT document FROM details ORDER BY id")]
    findings = database.execute("SELECT * FROM findings ORDER BY exchange, rule").fetchall()
    texts = [
        database.execute(
            "SELECT rowid FROM bodies WHERE bodies MATCH ? ORDER BY rowid", (f'"{word}"',)
        ).fetchall()
        for word in WORDS
    ]
    return rows, details, findings, texts, sorted(KNOWN.values)


@pytest.mark.parametrize("seed", range(4))
def test_the_build_indexes_what_the_plain_path_does(
    seed: int, tmp_path: Path, in_force: RulesInForce, monkeypatch: pytest.MonkeyPatch
) -> None:
    chance = random.Random(seed)
    paths = []
    for number in range(2):
        path = tmp_path / f"c{number}.yaml"
        save_cassette(path, Cassette(tuple(drawn(chance, 60)), upstream="http://127.0.0.1:9"))
        list(stream_cassette(path).exchanges)  # cached: the two-core build knows how many there are
        paths.append(path)
    reference = plainly(paths, in_force)
    try:
        expected = dumped(reference)
    finally:
        reference.close()
    assert len(expected[0]) == 120 and expected[2] and expected[4]  # rows, findings, secrets learned
    assert all(hits for hits in expected[3][:4])
    monkeypatch.setattr(traffic_view, "TEXT_LATER_FROM", 0)
    for smallest in (10**9, 10):  # one core, then two (the child takes each cassette's last part)
        monkeypatch.setattr(two_core_index, "SMALLEST_SPLIT", smallest)
        for text_later in (False, True):
            KNOWN.forget()
            view = offline_view(paths, in_force, cache=False, text_later=text_later)
            try:
                assert dumped(view._index) == expected, (smallest, text_later)
            finally:
                view.close()
