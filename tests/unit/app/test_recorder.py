"""A recorded request's decision, taken by the use case alone (no server, no addon): refuse a
placeholder credential, answer from the cassette what it holds (never a token request), forward the
rest; and the status each upstream failure gets. Each outcome is drawn over its members."""

from __future__ import annotations

from pathlib import Path

from proxy.app.recorder import Forward, Recorder, Refuse, Replay, decide, upstream_failure
from proxy.app.recording import RECORD_MODES, RecordSettings
from proxy.cli.options import FLAGS
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Request
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request

POLICY = RedactionPolicy()
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
TOKEN_FORM = Body("text", "grant_type=client_credentials&client_id=shop&client_secret=s3cret")


def placeholder_requests() -> list[Request]:
    """A credential that is the placeholder, in every place and spelling the policy redacts."""
    requests = [
        make_request(headers=((name, value),))
        for name in ("Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization")
        for value in ("Bearer <redacted>", "bearer <redacted>", "<redacted>", "Basic <redacted>")
    ]
    requests += [
        make_request(headers=((name, "<redacted>"),)) for name in ("X-Api-Key", "x-auth-token", "Api-Key")
    ]
    requests += [
        make_request(query=query)
        for query in (
            "api_key=<redacted>",
            "page[limit]=1&API_KEY=%3Credacted%3E",
            "access_token=%3credacted%3e",
        )
    ]
    requests += [
        make_request("POST", "/oauth/access_token", headers=FORM, body=Body("text", body))
        for body in ("grant_type=client_credentials&client_secret=<redacted>", "password=%3Credacted%3E")
    ]
    return requests


def token_requests() -> list[Request]:
    """A request for an access token, however its path is spelled."""
    paths = (
        "/oauth/access_token",
        "//oauth//access_token/",
        "/oauth/./access_token",
        "/oauth/access%5Ftoken",
    )
    return [make_request("POST", path, headers=FORM, body=TOKEN_FORM) for path in paths]


def holding(*requests: Request) -> ReplayBook:
    """A book holding one recording of each request (what `new_episodes` answers from)."""
    cassette = Cassette(tuple(make_exchange(request, body=json_body({"data": []})) for request in requests))
    return ReplayBook.build([("c.yaml", cassette)], MatchPolicy(), POLICY)


def test_a_placeholder_credential_is_refused_whatever_the_cassette_holds() -> None:
    for request in placeholder_requests():
        for book in (None, holding(), holding(request)):
            decision = decide(request, POLICY, book)
            assert isinstance(decision, Refuse), (request, decision)
            assert decision.status == 401 and "redaction placeholder" in decision.detail


def test_a_token_request_is_always_forwarded_even_when_the_cassette_holds_it() -> None:
    for request in token_requests():
        for book in (None, holding(), holding(request)):
            decision = decide(request, POLICY, book, now=lambda: "2030-01-01T00:00:00.000000Z")
            assert decision == Forward("2030-01-01T00:00:00.000000Z"), (request, decision)


def test_what_the_cassette_holds_is_replayed_and_the_rest_forwarded() -> None:
    held = [
        make_request(),
        make_request(query="page[limit]=1"),
        make_request("PUT", "/v2/products/p1", headers=(("Authorization", "Bearer real-token"),)),
    ]
    book = holding(*held)
    for request in held:
        decision = decide(request, POLICY, book)
        assert isinstance(decision, Replay) and decision.answer.recording.exchange.request == request
    for request in (make_request(path="/v2/brands"), make_request("DELETE", "/v2/products/p1")):
        assert isinstance(decide(request, POLICY, book), Forward)
        assert isinstance(decide(request, POLICY, None), Forward)


def test_only_new_episodes_answers_from_the_cassette(tmp_path: Path) -> None:
    """By mode: `new_episodes` answers what the cassette holds (and counts it); `all` and `once` forward
    everything, and `spy` has no cassette. A placeholder credential is refused in every mode."""
    held = make_request()
    for mode in RECORD_MODES:
        if mode == "none":
            continue  # replays: no recording session
        cassette = tmp_path / mode / "c.yaml"
        cassette.parent.mkdir()
        if mode != "once":
            save_cassette(cassette, Cassette((make_exchange(held, body=json_body({"data": []})),)))
        recorder = Recorder(RecordSettings(upstream="http://127.0.0.1:9", cassette=cassette, mode=mode))
        try:
            expected = Replay if mode == "new_episodes" else Forward
            assert isinstance(recorder.decide(held), expected), mode
            assert recorder.session.replayed == (1 if mode == "new_episodes" else 0)
            for request in placeholder_requests():
                assert isinstance(recorder.decide(request), Refuse), (mode, request)
        finally:
            recorder.session.discard()
            recorder.session.finish()
    spy = Recorder(RecordSettings(upstream="http://127.0.0.1:9", cassette=None))
    assert isinstance(spy.decide(held), Forward)
    assert all(isinstance(spy.decide(request), Refuse) for request in placeholder_requests())


def test_each_upstream_failure_has_its_status() -> None:
    settings = RecordSettings(
        upstream="http://127.0.0.1:9/commerce?x=1", cassette=None, upstream_timeout=2.5, spellings=FLAGS
    )
    expected = {
        "timeout": (504, "did not answer within 2.5 s"),
        "connect": (502, "cannot connect to upstream http://127.0.0.1:9/commerce: refused"),
        "size": (502, f"larger than --max-body-bytes ({settings.max_body_bytes} bytes)"),
        "invalid": (502, "gave an answer that cannot be relayed: refused"),
        "answer": (502, "failed mid-answer: refused"),
    }
    for stage, (status, said) in expected.items():
        refusal = upstream_failure(stage, "refused", settings)
        assert refusal.status == status and said in refusal.detail, (stage, refusal)
