"""The UI's index entries made in the checker's process are the entries the proxy would make: for every
body shape, with and without findings, naming a cassette or none (spy), through the child's own loop
(`serve_checks`, in this process) from the frames the proxy writes. The proxy keeps one only while its
book of secrets is the one the exchange was handed over with; else it makes the entry itself, with the
findings scrubbed by what it learned since."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.app.checker_entries import CheckerEntry, entries_frame, exchange_frame
from proxy.app.live_check_worker import FRAME, read_answer, serve_checks
from proxy.app.live_traffic import live_view
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_rows import searched_texts
from proxy.app.traffic_view import Endpoints, _entry
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.rules.engine import Checked, Checker
from proxy.store.rule_files import RuleSource
from proxy.store.shipped import shipped_dir
from proxy.store.traffic_entries import packed, prepared, unpacked

JSON = (("Content-Type", "application/json"),)
LIST = json.dumps({"data": [{"id": "x", "type": "product"}], "links": {}, "meta": {}}).encode()
BODIES: dict[str, tuple[tuple[tuple[str, str], ...], bytes]] = {
    "json exactly as sent": (JSON, b'{"data": [], "n": 1.50, "e": 1E2, "s": "x\\u00e9\\/y",  "k":{}}'),
    "json list page": (JSON, LIST),
    "json gzip": ((*JSON, ("Content-Encoding", "gzip")), gzip.compress(LIST)),
    "text": ((("Content-Type", "text/plain; charset=utf-8"),), "caf\u00e9 <b>".encode()),
    "latin-1 text": ((("Content-Type", "text/html; charset=iso-8859-1"),), "caf\u00e9".encode("latin-1")),
    "binary": ((("Content-Type", "image/png"),), b"\x89PNG\r\n\x1a\n\0\xff" * 20),
    "empty": ((), b""),
}


def exchange_of(shape: str, method: str) -> Exchange:
    headers, raw = BODIES[shape]
    body = body_from_bytes(raw, headers)
    request_body = body if method == "POST" else body_from_bytes(b"", ())
    request = Request(
        method,
        "/v2/products",
        "page[limit]=1",
        (("Accept", "*/*"), *(headers if method == "POST" else ())),
        request_body,
    )
    return Exchange(request, Response(200, headers, body, "OK"), "2026-11-28T10:00:00.000000Z", 2.5)


def through_the_child(exchanges: list[Exchange], cassette: str | None) -> list[CheckerEntry | None]:
    """What the proxy reads back from the child for each exchange, asked for entries first."""
    frames = [entries_frame(cassette)]
    frames += [exchange_frame(journal_line(number, one), one) for number, one in enumerate(exchanges)]
    answers = io.BytesIO()
    source = RuleSource(None, shipped_dir("rules"), Path.cwd())
    serve_checks(source, io.BytesIO(b"".join(FRAME.pack(len(frame)) + frame for frame in frames)), answers)
    data, found, start = answers.getvalue(), [], 0
    while start < len(data):
        (size,) = FRAME.unpack_from(data, start)
        sequence, _, _, made = read_answer(data[start + FRAME.size : start + FRAME.size + size])
        assert sequence == len(found)
        found.append(
            CheckerEntry(tuple(made[0][0]), tuple(made[0][1]), made[1], KNOWN.values) if made else None
        )
        start += FRAME.size + size
    return found


@pytest.mark.parametrize("cassette", ["cassettes/rec.yaml", None])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_entry_made_by_the_checker_is_the_one_the_proxy_makes(method: str, cassette: str | None) -> None:
    in_force = shipped_rules_in_force()
    exchanges = [exchange_of(shape, method) for shape in BODIES]
    made = through_the_child(exchanges, cassette)
    checker = Checker(in_force.ruleset)
    endpoints = Endpoints(in_force.ruleset)
    for number, (one, entry) in enumerate(zip(exchanges, made, strict=True)):
        findings = checker.check(one, number)
        assert entry is not None, number
        row, packed, rules, request_text, response_text = entry.prepared(searched_texts(one))
        want = prepared(_entry(one, findings, None, endpoints, cassette, number))
        assert row == want[0], (number, row, want[0])
        assert unpacked(packed) == unpacked(want[1]), number
        assert sorted(rules) == sorted(want[2]) and (request_text, response_text) == want[3:], number
    assert any(entry is not None and entry.rules for entry in made)  # findings travel too


def indexed_detail(entry_of_book: Callable[[], CheckerEntry], learn: list[str]) -> str:
    """The detail a live view stores of one exchange handed over with `entry_of_book()`'s entry, the
    book of secrets then learning `learn` before the view indexes it."""
    one = exchange_of("json list page", "GET")
    view = live_view("record", None, shipped_rules_in_force(), cassette="rec.yaml")
    assert view.indexer is not None
    try:
        entry = entry_of_book()
        KNOWN.add(learn)
        view.indexer.checked(Checked(0, one, [], None, entry))
        view.flush()
        stored = view.stored(1)
        assert stored is not None
        return json.dumps(stored[1])
    finally:
        KNOWN.forget()
        view.close()


def test_the_checkers_entry_is_kept_while_the_book_of_secrets_is_the_same() -> None:
    marked = CheckerEntry(
        ("rec.yaml", 0, "GET", "/v2/x", 200, None, 1.0, 2, "op", 0, 0, 0, None, None, None, "/v2/x"),
        (),
        packed({"marker": "made by the checker"}),
        frozenset(),
    )
    KNOWN.forget()
    assert "made by the checker" in indexed_detail(lambda: marked, [])


def test_an_entry_is_made_again_by_the_proxy_once_its_book_of_secrets_changed() -> None:
    """The checker's process knows no secret the proxy learned after handing the exchange over (a token
    answer right after it): its entry would quote one its findings carry, so the proxy makes it again."""
    secret = "tok-learned-later-0123456789"
    one = exchange_of("json list page", "GET")
    findings = Checker(shipped_rules_in_force().ruleset).check(one, 0)
    assert findings
    quoting = [replace(finding, found=f"saw {secret}") for finding in findings]

    def stale() -> CheckerEntry:
        endpoints = Endpoints(shipped_rules_in_force().ruleset)
        row, detail, rules, _, _ = prepared(_entry(one, quoting, None, endpoints, "rec.yaml", 0))
        return CheckerEntry(row, rules, detail, KNOWN.values)

    KNOWN.forget()
    assert secret in unpacked(stale().packed)["findings"][0]["found"]  # as the child made it
    shown = indexed_detail(stale, [secret])
    assert secret not in shown and "made by the checker" not in shown
