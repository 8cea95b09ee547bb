"""`verify` end to end: a cassette recorded from the sandbox, then verified against a sandbox changed
afterwards, one kind of change at a time, as the command line runs it."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from proxy.app.recording import RecordSettings
from proxy.cli.main import main
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.background import BackgroundServer
from proxy.server.record import create_record_app
from proxy.store.cassette_reader.loading import load_cassette

FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
CREDENTIALS = ["--client-id", "sandbox-client", "--client-secret", "sandbox-secret"]


def call(base: str, method: str, target: str, token: str | None = None, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + target, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A cassette of a small session (a token, two lists, a feature update) and the sandbox's port."""
    cassette = tmp_path_factory.mktemp("verify") / "session.yaml"
    sandbox = BackgroundServer(lambda: create_sandbox_app(SandboxSettings()))
    sandbox_url = sandbox.start()
    record = BackgroundServer(
        lambda: create_record_app(RecordSettings(upstream=sandbox_url, cassette=cassette))
    )
    url = record.start()
    try:
        form = urllib.parse.urlencode(
            {
                "grant_type": "client_credentials",
                "client_id": "sandbox-client",
                "client_secret": "sandbox-secret",
            }
        ).encode()
        with urllib.request.urlopen(url + "/oauth/access_token", data=form, timeout=10) as answer:
            token = json.loads(answer.read())["access_token"]
        call(url, "GET", "/v2/products?page%5Blimit%5D=3", token)
        call(url, "GET", "/v2/brands?page%5Blimit%5D=2", token)
        update = {
            "data": {
                "id": FEATURE.rsplit("/", 1)[1],
                "type": "subscription_feature",
                "attributes": {"name": "Gold"},
            }
        }
        call(url, "PUT", FEATURE, token, update)
    finally:
        record.stop()
        sandbox.stop()
    return cassette, int(sandbox_url.rsplit(":", 1)[1])


def verify(
    capsys: pytest.CaptureFixture[str], cassette: Path, port: int, changes: tuple[str, ...] = (), *more: str
) -> tuple[int, dict[str, Any]]:
    """`verify --format json` against a sandbox with these changes at the recorded address."""
    sandbox = BackgroundServer(lambda: create_sandbox_app(SandboxSettings(changes=changes)), port=port)
    url = sandbox.start()
    try:
        code = main(["verify", str(cassette), "--upstream", url, *CREDENTIALS, "--format", "json", *more])
    finally:
        sandbox.stop()
    out = capsys.readouterr().out
    return code, json.loads(out) if out.startswith("{") else {}


def places(document: dict[str, Any], tier: str) -> set[str]:
    return {item["where"].split("]", 1)[-1] for item in document["drift"] if item["tier"] == tier}


def test_an_unchanged_service_has_nothing_but_volatile_drift(
    recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    cassette, port = recorded
    code, document = verify(capsys, cassette, port)
    assert code == 0 and document["exchanges"] == 2  # the two reads; the token and the PUT are not sent
    assert document["counts"]["breaking"] == document["counts"]["additive"] == document["counts"]["data"] == 0
    assert document["counts"]["volatile"] > 0 and document["drift"] == []  # listed only with -v
    reasons = {item["request"].split()[0]: item["reason"] for item in document["skipped"]}
    assert "never re-sent" in reasons["POST"] and "--writes" in reasons["PUT"]


def test_each_kind_of_change_is_found_in_its_tier(
    recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    cassette, port = recorded
    code, renamed = verify(capsys, cassette, port, ("rename-field",))
    assert (
        code == 1 and places(renamed, "breaking") == {".name"} and places(renamed, "additive") == {".title"}
    )
    code, added = verify(capsys, cassette, port, ("new-field",))
    assert code == 0 and added["counts"]["breaking"] == 0 and places(added, "additive") == {".slug"}
    code, data = verify(capsys, cassette, port, ("new-data",))
    assert code == 0 and places(data, "data") == {".name"} and data["counts"]["additive"] == 0
    code, _ = verify(capsys, cassette, port, ("new-data",), "--strict")
    assert code == 1
    code, stamps = verify(capsys, cassette, port, ("new-timestamps",), "-v")
    assert code == 0 and stamps["counts"]["data"] == 0
    assert {".meta.timestamps.created_at", ".meta.timestamps.updated_at"} <= places(stamps, "volatile")


def test_update_writes_only_what_drifted(
    tmp_path: Path, recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    source, port = recorded
    cassette = tmp_path / "session.yaml"
    cassette.write_bytes(source.read_bytes())
    before = load_cassette(cassette).cassette.exchanges
    code, _ = verify(capsys, cassette, port, ("new-data",), "--update")
    assert code == 0
    after = load_cassette(cassette).cassette.exchanges
    changed = [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert changed == [1, 2]  # the two lists; the token and the update as they were
    assert "(renamed)" in json.dumps(after[1].response.body.value)
    assert "<redacted>" in cassette.read_text() and "Bearer ey" not in cassette.read_text()
    code, again = verify(capsys, cassette, port, ("new-data",))
    assert code == 0 and again["counts"]["data"] == 0


def test_writes_are_sent_only_when_asked_and_the_live_answers_are_checked(
    recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    cassette, port = recorded
    code, document = verify(capsys, cassette, port, (), "--writes")
    assert code == 0 and document["exchanges"] == 3
    assert all(item["request"].split()[0] == "POST" for item in document["skipped"])
    assert all(finding["severity"] != "error" for finding in document["findings"])


def test_an_unreachable_upstream_is_one_line_and_exit_2(
    recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    cassette, _ = recorded
    assert main(["verify", str(cassette), "--upstream", "http://127.0.0.1:9", "--token", "t"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the live service gave no answer" in err


def test_junit_has_one_case_per_exchange(
    recorded: tuple[Path, int], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cassette, port = recorded
    report = tmp_path / "verify.xml"
    code, _ = verify(capsys, cassette, port, ("rename-field",), "--format", "junit", "-o", str(report))
    assert code == 1
    text = report.read_text()
    assert text.count("<testcase ") == 4 and text.count("<failure ") == 2 and text.count("<skipped ") == 2


def test_the_sandbox_refuses_a_change_it_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "--change", "new-colour", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "--change: the sandbox has no change 'new-colour'" in err
        and "new-data" in err
    )
