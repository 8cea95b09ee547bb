"""The `verify` use case on its own, with a fake transport (no network, no server, no command line):
it fetches the token, loops `--update` to a cassette that no longer drifts, and writes the report saying
the credentials were refused; the command line only hands it a transport."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from proxy.app.report_writing import Shown
from proxy.app.verify_command import CredentialsRefused, NoAnswer, Transport, VerifyRequest, run_verify
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Headers
from proxy.core.redaction.policy import PLACEHOLDER
from proxy.errors import CommerceProxyError
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request

UPSTREAM = "http://127.0.0.1:9"
JSON = (("Content-Type", "application/json"),)


@dataclass(frozen=True)
class Answer:
    status: int
    reason: str | None
    headers: Headers
    body: bytes


@dataclass
class FakeService:
    """Answers the token endpoint with `token_status`, every other request with `status` and `item`."""

    item: object = field(default_factory=lambda: {"id": "1", "price": 10})
    status: int = 200
    token_status: int = 200
    sent: list[tuple[str, str, Headers]] = field(default_factory=list)
    opened: list[tuple[str, float, int, Path | None]] = field(default_factory=list)
    closed: int = 0

    def connect(self, upstream: str, timeout: float, max_body: int, ca_bundle: Path | None) -> Transport:
        self.opened.append((upstream, timeout, max_body, ca_bundle))
        return self

    async def send(self, method: str, target: str, headers: Headers, body: bytes) -> Answer:
        self.sent.append((method, target, headers))
        if target == "/oauth/access_token":
            if self.token_status != 200:
                return Answer(self.token_status, None, JSON, b'{"error": "invalid_client"}')
            return Answer(200, "OK", JSON, b'{"access_token": "live-token-123", "token_type": "bearer"}')
        return Answer(self.status, None, JSON, json.dumps({"data": self.item}).encode())

    def close(self) -> None:
        self.closed += 1


@dataclass
class Seen:
    documents: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def shown(self) -> Shown:
        return Shown(self.documents.append, self.notes.append)


@pytest.fixture
def cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two recorded reads sent with a redacted bearer token, in a folder with no project config."""
    monkeypatch.chdir(tmp_path)
    auth = (("Authorization", f"Bearer {PLACEHOLDER}"),)
    exchanges = tuple(
        make_exchange(
            make_request(path=f"/v2/items/{n}", headers=auth),
            body=json_body({"data": {"id": "1", "price": 10}}),
        )
        for n in (1, 2)
    )
    path = tmp_path / "items.yaml"
    save_cassette(path, Cassette(exchanges, UPSTREAM))
    return path


def with_credentials(path: Path, **given: object) -> VerifyRequest:
    return VerifyRequest((path,), UPSTREAM, client_id="my-client", client_secret="my-secret", **given)  # type: ignore[arg-type]


def test_the_token_is_fetched_once_and_sent_with_every_request(cassette: Path) -> None:
    service, seen = FakeService(), Seen()
    assert run_verify(with_credentials(cassette), service.connect, seen.shown()) == 0
    token_requests = [sent for sent in service.sent if sent[1] == "/oauth/access_token"]
    reads = [sent for sent in service.sent if sent[0] == "GET"]
    assert len(token_requests) == 1 and len(reads) == 2
    assert all(("Authorization", "Bearer live-token-123") in headers for _, _, headers in reads)
    assert service.opened == [(UPSTREAM, 30.0, 50 * 1024 * 1024, None)] and service.closed == 1
    assert seen.documents and "live-token-123" not in "".join(seen.documents)


def test_update_writes_the_drift_until_there_is_none(cassette: Path) -> None:
    service = FakeService(item={"id": "1", "price": "10"})  # the price became a string: breaking
    assert run_verify(with_credentials(cassette), service.connect, Seen().shown()) == 1
    updating = Seen()
    assert run_verify(with_credentials(cassette, update=True), service.connect, updating.shown()) == 0
    assert f"updated {cassette} with the live answers that drifted" in updating.notes
    kept = load_cassette(cassette).cassette
    assert all(e.response.body.value == {"data": {"id": "1", "price": "10"}} for e in kept.exchanges)
    assert run_verify(with_credentials(cassette), service.connect, Seen().shown()) == 0
    again = Seen()
    assert run_verify(with_credentials(cassette, update=True), service.connect, again.shown()) == 0
    assert not any(note.startswith("updated") for note in again.notes)
    assert load_cassette(cassette).cassette.exchanges == kept.exchanges


def test_refused_client_credentials_write_the_report_saying_so(cassette: Path, tmp_path: Path) -> None:
    service, report = FakeService(token_status=401), tmp_path / "report.json"
    with pytest.raises(CredentialsRefused, match=r"refused the client credentials \(401 invalid_client\)"):
        run_verify(with_credentials(cassette, output=report, format="json"), service.connect, Seen().shown())
    assert [sent[0] for sent in service.sent] == ["POST"] and service.closed == 1
    written = report.read_text()
    assert "refused the client credentials" in written and "my-secret" not in written
    assert load_cassette(cassette).cassette.exchanges[0].response.status == 200


def test_a_refused_token_writes_the_report_and_updates_nothing(cassette: Path, tmp_path: Path) -> None:
    before = cassette.read_bytes()
    service, report = FakeService(status=401), tmp_path / "report.txt"
    request = VerifyRequest((cassette,), UPSTREAM, token="expired-token", output=report, update=True)
    with pytest.raises(CredentialsRefused, match="the live service refused the token"):
        run_verify(request, service.connect, Seen().shown())
    assert "refused the token" in report.read_text() and cassette.read_bytes() == before


def test_no_answer_names_the_request(cassette: Path) -> None:
    class Silent(FakeService):
        async def send(self, method: str, target: str, headers: Headers, body: bytes) -> Answer:
            raise NoAnswer("connection refused")

    service = Silent()
    with pytest.raises(CommerceProxyError, match="POST /oauth/access_token: the live service gave no answer"):
        run_verify(with_credentials(cassette), service.connect, Seen().shown())
    assert service.closed == 1
