"""The UI's offline index built on two cores (`app/two_core_index.py`) against the same index built on
one: the same rows, detail documents, findings and text search, for drawn cassettes; and the fallback
when the first part teaches the secret book something the child could not know."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from proxy.app import traffic_view, two_core_index
from proxy.app.record_setup import shipped_rules_in_force
from proxy.app.traffic_view import offline_view
from proxy.core.cassette.document import Cassette
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import EMPTY_BODY, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.store.cassette_reader import parse_cache
from proxy.store.cassette_reader.streaming import stream_cassette, warm_count
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette
from proxy.store.traffic_entries import unpacked
from tests.unit.app.test_two_core_check import mixed_exchanges

JSON = (("Content-Type", "application/json"),)
SECRET = "sk_live_0a1b2c3d4e5f60718293a4b5c6d7e8f9"


@pytest.fixture
def in_force() -> RulesInForce:
    return shipped_rules_in_force()


@pytest.fixture(autouse=True)
def cached(private_parse_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cassettes of any size are cached beside them (the UI's index is not: built each time)."""
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    KNOWN.forget()


def drawn(chance: random.Random, count: int, secret_at: int | None) -> list[Exchange]:
    exchanges = []
    for number in range(count):
        item = f"00000000-0000-4000-8000-{chance.randrange(40):012d}"
        kind = chance.randrange(5)
        if kind == 0:
            offset = chance.choice((0, 10, 20))
            request = Request("GET", "/v2/products", f"page[limit]=10&page[offset]={offset}", (), EMPTY_BODY)
            data = [{"id": item, "type": "product"}] * chance.randrange(3)
            document: Any = {"data": data, "meta": {"results": {"total": chance.choice((2, 3))}}}
        elif kind == 1:
            sent = json.dumps({"data": {"type": "product", "name": f"n{number}"}}).encode()
            request = Request("POST", "/v2/products", "", JSON, body_from_bytes(sent, JSON))
            document = {"data": {"id": item, "type": "product", "name": f"n{number}"}}
        else:
            request = Request("GET", f"/v2/products/{item}", "", (), EMPTY_BODY)
            document = {"data": {"id": item, "type": "product", "echo": f"word{number} {SECRET}"}}
        if number == secret_at:  # a credential the cassette kept: learned only when read
            request = Request(
                request.method,
                request.path,
                request.query,
                (("Authorization", f"Bearer {SECRET}"),),
                request.body,
            )
        status = chance.choice((200, 200, 200, 404, 422))
        body = body_from_bytes(json.dumps(document).encode(), JSON) if status == 200 else EMPTY_BODY
        exchanges.append(Exchange(request, Response(status, JSON, body), "2026-01-01T00:00:00Z", 1.0))
    return exchanges


def dumped(paths: list[Path], in_force: RulesInForce, text_later: bool = False) -> tuple[Any, ...]:
    KNOWN.forget()
    view = offline_view(paths, in_force, cache=False, text_later=text_later)
    try:
        assert view._index.text_wait(60)
        database = view._index._db
        rows = database.execute("SELECT * FROM exchanges ORDER BY id").fetchall()
        details = [
            unpacked(document) for (document,) in database.execute("SELECT document FROM details ORDER BY id")
        ]
        findings = database.execute("SELECT * FROM findings ORDER BY exchange, rule").fetchall()
        texts = [
            database.execute(
                "SELECT rowid FROM bodies WHERE bodies MATCH ? ORDER BY rowid", (f'"{word}"',)
            ).fetchall()
            for word in ("word1", "product", "n4", "redacted")
        ]
        return rows, details, findings, texts, sorted(KNOWN.values)
    finally:
        view.close()


@pytest.mark.parametrize(("seed", "secret_at"), [(0, None), (1, None), (2, None), (3, 5), (4, 70)])
def test_two_cores_index_what_one_does(
    seed: int, secret_at: int | None, tmp_path: Path, in_force: RulesInForce, monkeypatch: pytest.MonkeyPatch
) -> None:
    chance = random.Random(seed)
    paths = []
    # Drawn exchanges, and rules comparing an exchange with one before it across the split.
    for number, exchanges in enumerate((drawn(chance, 80, secret_at), mixed_exchanges())):
        path = tmp_path / f"c{number}.yaml"
        save_cassette(path, Cassette(tuple(exchanges), upstream="http://127.0.0.1:9"))
        list(stream_cassette(path).exchanges)  # the parse cache, which says how many there are
        assert warm_count(path) == len(exchanges)
        paths.append(path)
    monkeypatch.setattr(two_core_index, "SMALLEST_SPLIT", 10**9)
    one = dumped(paths, in_force)
    taken: list[int] = []
    real = two_core_index.pickle.loads
    monkeypatch.setattr(two_core_index.pickle, "loads", lambda output: taken.append(1) or real(output))
    monkeypatch.setattr(two_core_index, "SMALLEST_SPLIT", 10)
    two = dumped(paths, in_force)
    assert two == one and len(one[0]) == 140 and one[2]
    history = {"entry.etag.changes-with-entry", "feature.update.empty-unchanged"}
    assert history <= {rule for _, rule in one[2]}  # found with the history before the split
    # Each child's output read: a batch of rows and its secrets. When the first part of c0 taught the
    # book a secret, c0's child is not taken: this process indexed the rest itself.
    assert len(taken) == (2 if secret_at is not None and secret_at < 40 else 4)
    if secret_at is not None:  # learned, and scrubbed from every exchange from there on
        assert SECRET in one[4] and SECRET not in repr(one[1][secret_at:80])
    # The bodies' text indexed after the rows, by a thread of its own: the same index.
    monkeypatch.setattr(traffic_view, "TEXT_LATER_FROM", 0)
    assert dumped(paths, in_force, text_later=True) == one


@pytest.mark.parametrize("secret_at", [None, 66])
def test_a_child_that_fails_after_some_batches_were_added_changes_nothing(
    secret_at: int | None, tmp_path: Path, in_force: RulesInForce, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's batches are added as they come; when it fails after two of them, this process
    catches up on their exchanges (their secrets, their history) and indexes the rest: the index one
    core makes (a secret the child's batches taught the book included)."""
    path = tmp_path / "c.yaml"
    exchanges = [*drawn(random.Random(5), 80, secret_at), *mixed_exchanges()]
    save_cassette(path, Cassette(tuple(exchanges), upstream="http://127.0.0.1:9"))
    list(stream_cassette(path).exchanges)
    monkeypatch.setattr(two_core_index, "SMALLEST_SPLIT", 10**9)
    one = dumped([path], in_force)
    real = two_core_index.write_record
    written: list[int] = []

    def failing(output: Any, record: bytes) -> None:  # in the child: its third record fails it
        written.append(1)
        if len(written) == 3:
            raise RuntimeError("the child's third batch")
        real(output, record)

    added: list[int] = []
    adding = traffic_view.BackgroundAdds.add
    monkeypatch.setattr(two_core_index, "write_record", failing)
    monkeypatch.setattr(two_core_index, "BATCH", 7)
    monkeypatch.setattr(
        traffic_view.BackgroundAdds,
        "add",
        lambda self, batch: added.append(len(batch)) or adding(self, batch),
    )
    monkeypatch.setattr(two_core_index, "SMALLEST_SPLIT", 10)
    two = dumped([path], in_force)
    assert two == one and len(one[0]) == len(exchanges)
    split = int(len(exchanges) * two_core_index.SHARE)
    assert added[: split // 7 + 1] == [7] * (split // 7) + [split % 7]  # this process's part
    assert added[split // 7 + 1 : split // 7 + 3] == [7, 7]  # the child's two batches, then its own
    if secret_at is not None:
        assert SECRET in one[4] and SECRET not in repr(one[1][secret_at:])
