"""A scheduled `verify` cries wolf on nothing but a real change of the service, end to end from the
command line against the sandbox: the same service at another address is no drift (`verify`, `cassette
diff`, re-recording), refused credentials are one line and exit 2 rather than drift, and the same
difference in every record of a list is one line."""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from proxy.app.recording import RecordSettings
from proxy.cli.main import main
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.background import BackgroundServer
from proxy.server.record import create_record_app
from proxy.store.cassette_reader.loading import load_cassette

CREDENTIALS = ["--client-id", "sandbox-client", "--client-secret", "sandbox-secret"]
READS = ("/v2/brands", "/v2/products?page%5Blimit%5D=3", "/v2/collections")


def session(url: str) -> None:
    """A token, then three lists (the brands: all 12 on one page)."""
    form = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": "sandbox-client", "client_secret": "sandbox-secret"}
    ).encode()
    with urllib.request.urlopen(url + "/oauth/access_token", data=form, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    for target in READS:
        request = urllib.request.Request(url + target, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            answer.read()


def record(cassette: Path, upstream: str, mode: str = "once") -> None:
    proxy = BackgroundServer(
        lambda: create_record_app(RecordSettings(upstream=upstream, cassette=cassette, mode=mode))  # type: ignore[arg-type]
    )
    url = proxy.start()
    try:
        session(url)
    finally:
        proxy.stop()


class Sandbox:
    """The sandbox on a free port of 127.0.0.1, reached by `name` (127.0.0.1 or localhost)."""

    def __init__(self, changes: tuple[str, ...] = (), name: str = "127.0.0.1") -> None:
        self.server = BackgroundServer(lambda: create_sandbox_app(SandboxSettings(changes=changes)))
        self.name = name

    def __enter__(self) -> str:
        return self.server.start().replace("127.0.0.1", self.name)

    def __exit__(self, *_: object) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cassette = tmp_path_factory.mktemp("alarms") / "session.yaml"
    with Sandbox() as upstream:
        record(cassette, upstream)
    return cassette


def verify(
    capsys: pytest.CaptureFixture[str], cassette: Path, upstream: str, *more: str
) -> tuple[int, str, str]:
    code = main(["verify", str(cassette), "--upstream", upstream, *more])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------------- the origin is no drift

ORIGINS = ("another port", "localhost")


def origin_name(origin: str) -> str:
    return "localhost" if origin == "localhost" else "127.0.0.1"


def test_the_recording_holds_absolute_links_at_its_origin(recorded: Path) -> None:
    cassette = load_cassette(recorded).cassette
    assert cassette.upstream and f'"{cassette.upstream}/v2/brands' in recorded.read_text()


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize("form", ["json", "text", "markdown"])
def test_verify_strict_against_another_origin_of_an_unchanged_service_passes(
    recorded: Path, capsys: pytest.CaptureFixture[str], origin: str, form: str
) -> None:
    with Sandbox(name=origin_name(origin)) as upstream:
        assert upstream != load_cassette(recorded).cassette.upstream
        code, out, err = verify(capsys, recorded, upstream, *CREDENTIALS, "--strict", "--format", form)
    assert code == 0, out + err
    assert "links" not in out and "0 breaking, 0 additive, 0 data" in (
        out if form != "json" else "0 breaking, 0 additive, 0 data"
    )
    if form == "json":
        document = json.loads(out)
        assert document["drift"] == [] and document["counts"]["data"] == 0


@pytest.mark.parametrize("origin", ORIGINS)
def test_re_recording_from_another_origin_changes_no_byte_and_diffs_as_nothing(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    cassette = tmp_path / "session.yaml"
    cassette.write_bytes(recorded.read_bytes())
    fresh = tmp_path / "fresh.yaml"
    with Sandbox(name=origin_name(origin)) as upstream:
        record(cassette, upstream, "all")
        record(fresh, upstream)  # a first recording at the new origin, to diff against
    assert cassette.read_bytes() == recorded.read_bytes()
    capsys.readouterr()
    code = main(["cassette", "diff", str(recorded), str(fresh)])
    out = capsys.readouterr().out
    assert code == 0 and "0 breaking, 0 additive, 0 data" in out and "links" not in out, out


@pytest.mark.parametrize("origin", ORIGINS)
def test_a_real_change_at_another_origin_is_still_drift_and_update_keeps_the_cassette_origin(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    cassette = tmp_path / "session.yaml"
    cassette.write_bytes(recorded.read_bytes())
    recorded_from = load_cassette(recorded).cassette.upstream
    with Sandbox(("new-data",), name=origin_name(origin)) as upstream:
        code, out, _ = verify(capsys, cassette, upstream, *CREDENTIALS, "--strict")
        assert code == 1 and "name" in out and "links" not in out
        code, _, _ = verify(capsys, cassette, upstream, *CREDENTIALS, "--update")
    assert code == 0
    text = cassette.read_text()
    assert "(renamed)" in text and upstream not in text and f'"{recorded_from}/v2/brands' in text


# ------------------------------------------------------------------ refused credentials are not drift


class Refusing:
    """An upstream that answers the recorded answers, except `status` on the token request
    (`where` "token"), on every request ("every"), or on the brands list only ("partial")."""

    def __init__(self, cassette: Path, status: int, where: str) -> None:
        answers = {
            exchange.request.target: exchange.response.body.value
            for exchange in load_cassette(cassette).cassette.exchanges
        }

        class Handler(BaseHTTPRequestHandler):
            def answer(self, code: int, document: Any) -> None:
                body = json.dumps(document).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if where == "token":
                    self.answer(status, {"errors": [{"status": str(status), "title": "refused"}]})
                else:
                    self.answer(200, {"access_token": "tok-live-0123456789", "token_type": "Bearer"})

            def do_GET(self) -> None:
                refused = where == "every" or (where == "partial" and self.path.startswith("/v2/brands"))
                if refused:
                    self.answer(status, {"errors": [{"status": str(status), "title": "refused"}]})
                else:
                    self.answer(200, answers[self.path])

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def refusing(recorded: Path) -> Iterator[Any]:
    yield lambda status, where: Refusing(recorded, status, where)


@pytest.mark.parametrize("status", [401, 403])
@pytest.mark.parametrize("where", ["token", "every", "partial"])
@pytest.mark.parametrize("update", [False, True])
def test_refused_credentials_are_one_line_and_exit_2_but_one_endpoint_refusing_is_drift(
    recorded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    refusing: Any,
    status: int,
    where: str,
    update: bool,
) -> None:
    cassette = tmp_path / "session.yaml"
    cassette.write_bytes(recorded.read_bytes())
    with refusing(status, where) as upstream:
        code, out, err = verify(capsys, cassette, upstream, *CREDENTIALS, *(["--update"] if update else []))
    if where == "partial":  # one endpoint asks for other credentials: the service changed
        assert "refused the" not in err
        assert (code, "status: 200 -> " + str(status) in out) == ((0, True) if update else (1, True))
        return
    assert code == 2 and out == "" and err.count("\n") == 1, (out, err)
    assert "refused" in err and "--token" in err and "--client-id" in err and str(status) in err
    assert cassette.read_bytes() == recorded.read_bytes()  # --update wrote no 401 into the cassette


def test_an_expired_or_wrong_token_against_the_sandbox_is_one_line_and_exit_2(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Sandbox() as upstream:
        wrong_secret = ["--client-id", "sandbox-client", "--client-secret", "expired"]
        for given in (["--token", "expired-token-123"], wrong_secret):
            code, out, err = verify(capsys, recorded, upstream, *given)
            assert code == 2 and out == "" and err.count("\n") == 1 and "refused" in err, (given, out, err)
            assert "breaking" not in err and "401" in err


# ------------------------------------------------------------ the same difference in every record


@pytest.mark.parametrize(
    ("change", "form", "lines"),
    [
        ("rename-field", "text", ["json.data[*].name missing (12x)", "json.data[*].title added (12x)"]),
        (
            "rename-field",
            "markdown",
            ["`json.data[*].name` | `present` | `missing (12x)`", "`present (12x)`"],
        ),
    ],
)
def test_identical_differences_across_records_are_one_line_and_json_keeps_each(
    recorded: Path, capsys: pytest.CaptureFixture[str], change: str, form: str, lines: list[str]
) -> None:
    with Sandbox((change,)) as upstream:
        _, out, _ = verify(capsys, recorded, upstream, *CREDENTIALS, "--format", form)
        _, document, _ = verify(capsys, recorded, upstream, *CREDENTIALS, "--format", "json")
    for line in lines:
        assert line in out, out
    brands = [line for line in out.splitlines() if ".name" in line]
    per_exchange = 3  # brands, products, collections: one line (row) each
    assert len(brands) <= per_exchange, out
    named = [item for item in json.loads(document)["drift"] if item["where"].endswith(".name")]
    assert len(named) >= 12 + 3 + 8  # JSON: one item per difference


def test_a_junit_failure_message_says_the_grouped_differences_its_body_lists(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message CI boards show says what the failure's body and the text report say (`json.data[*]
    .name missing (12x)`, never one record's `[0]`), under the count the summary gives."""
    with Sandbox(("rename-field",)) as upstream:
        code, out, _ = verify(capsys, recorded, upstream, *CREDENTIALS, "--format", "junit")
        _, text, _ = verify(capsys, recorded, upstream, *CREDENTIALS)
    assert code == 1
    failures = list(ET.fromstring(out).iter("failure"))
    assert failures
    for failure in failures:
        message = failure.get("message", "")
        body = [" ".join(line.split()) for line in (failure.text or "").splitlines()]
        counted, _, said = message.partition(": ")
        assert said.split("; ")[:3] == body[:3], (message, body)
        assert said.endswith(f"; and {len(body) - 3} more") == (len(body) > 3), (message, body)
        total = sum(int(found.group(1)) if (found := re.search(r"\((\d+)x\)$", line)) else 1 for line in body)
        assert counted == f"{total} breaking", (message, body)
    brands = [item.get("message", "") for item in failures if ".name missing (12x)" in (item.text or "")]
    assert brands, out
    assert "breaking json.data[*].name missing (12x)" in brands[0], brands
    assert "[0]" not in brands[0], brands
    assert "json.data[*].name missing (12x)" in text, text
