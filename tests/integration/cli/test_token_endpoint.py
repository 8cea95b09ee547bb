"""The token endpoint every client calls first is known to the rules: a recorded token exchange is no
"undocumented operation", and its secrets are still redacted before the cassette is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.store.shipped import shipped_dir

UPSTREAM = "https://useast.api.elasticpath.com"
CLIENT_SECRET = "s3cret-CLIENT-9c1f"
ACCESS_TOKEN = "tok-ISSUED-5e2a7b"


def har_entry(method: str, path: str, form: str, answer: dict[str, object]) -> dict[str, object]:
    """One HAR 1.2 entry: a form-encoded request and a JSON answer."""
    text = json.dumps(answer)
    return {
        "startedDateTime": "2026-01-05T10:00:00.000Z",
        "time": 1,
        "request": {
            "method": method,
            "url": f"{UPSTREAM}{path}",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/x-www-form-urlencoded"}],
            "queryString": [],
            "postData": {"mimeType": "application/x-www-form-urlencoded", "text": form},
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(form),
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {"size": len(text), "mimeType": "application/json", "text": text},
            "cookies": [],
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(text),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 1, "receive": 0},
    }


def findings_of(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["check", "--format", "json", str(path)]) == 0
    return list(json.loads(capsys.readouterr().out)["findings"])


@pytest.mark.parametrize(
    "form",
    [
        f"grant_type=client_credentials&client_id=my-client&client_secret={CLIENT_SECRET}",
        f"grant_type=password&username=shop&password={CLIENT_SECRET}&client_id=my-client",
    ],
)
def test_a_recorded_token_exchange_is_known_and_still_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """`check` gives the token request no finding; an operation nobody knows still gets its info note."""
    answer = {"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires": 1795312108}
    har = tmp_path / "session.har"
    entries = [
        har_entry("POST", "/oauth/access_token", form, answer),
        har_entry("POST", "/oauth/other", "a=b", {"ok": True}),
    ]
    har.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
    )
    cassette = tmp_path / "session.yaml"
    assert main(["import-har", str(har), "-o", str(cassette)]) in (0, 1)
    written = cassette.read_text(encoding="utf-8")
    assert ACCESS_TOKEN not in written
    assert CLIENT_SECRET not in written
    findings = findings_of(cassette, capsys)
    assert [(item["method"], item["path"], item["rule"]) for item in findings] == [
        ("POST", "/oauth/other", "coverage.undocumented-endpoint")
    ]


def test_the_shipped_sessions_give_their_token_exchanges_no_finding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo's and the sandbox's token path is the same `POST /oauth/access_token`."""
    for name in ("demo-session.yaml", "pagination-walk.yaml"):
        path = shipped_dir("cassettes") / name
        assert "/oauth/access_token" in path.read_text(encoding="utf-8")
        assert [item for item in findings_of(path, capsys) if item["path"] == "/oauth/access_token"] == []
