"""`export-har` and `import-har`: HAR 1.2 out and in, the same exchanges and the same findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir
from tests.integration.cli.test_cli import one_error_line


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def check_json(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    main(["check", "--format", "json", str(path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return [{key: value for key, value in item.items() if key != "cassette"} for item in findings]


@pytest.mark.parametrize("name", ["demo-session.yaml", "pagination-walk.yaml", "broken"])
def test_export_then_import_gives_the_same_exchanges_and_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """A HAR round trip keeps every exchange field and exactly the `check` findings, broken ones too."""
    source = tmp_path / "source.yaml"
    if name == "broken":
        shutil.copyfile(shipped_dir("cassettes") / "demo-session.yaml", source)
        assert main(["cassette", "set", str(source), "6", "resp.header.ETag", 'W/"other"']) == 1
        assert main(["cassette", "set", str(source), "0", "reason", "Fine Thanks"]) == 0
        assert main(["cassette", "unset", str(source), "1", "recorded_at"]) in (0, 1)
        capsys.readouterr()
    else:
        shutil.copyfile(shipped_dir("cassettes") / name, source)
    har = tmp_path / "out.har"
    assert main(["export-har", str(source), "-o", str(har)]) == 0
    document = json.loads(har.read_text())
    entries = document["log"]["entries"]
    assert document["log"]["version"] == "1.2"
    original = read_cassette_file(source)
    assert len(entries) == len(original.exchanges)
    first = entries[0]
    assert first["request"]["url"].startswith(f"{original.upstream}/")
    assert {"startedDateTime", "time", "request", "response", "cache", "timings"} <= set(first)
    back = tmp_path / "back.yaml"
    assert main(["import-har", str(har), "-o", str(back)]) == 0
    assert read_cassette_file(back) == original
    assert back.read_bytes() == source.read_bytes()
    findings = check_json(source, capsys)
    assert findings, "the round trip is compared on real findings"
    assert check_json(back, capsys) == findings
    if name == "broken":
        assert any(item["rule"] == "entry.etag.matches-etag-id" for item in findings)


def browser_entry(url: str, status: int = 200, text: str = '{"data": []}') -> dict[str, object]:
    return {
        "startedDateTime": "2026-11-20T10:00:00.000+01:00",
        "time": 12.5,
        "request": {
            "method": "GET",
            "url": url,
            "httpVersion": "h2",
            "headers": [
                {"name": ":authority", "value": "api.shop.example"},
                {"name": "authorization", "value": "Bearer browser-SECRET-4444"},
            ],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "h2",
            "headers": [
                {"name": "content-type", "value": "application/json"},
                {"name": "content-encoding", "value": "gzip"},
            ],
            "cookies": [],
            "content": {"size": len(text), "mimeType": "application/json", "text": text},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 12.5, "receive": 0},
    }


def test_a_browser_har_is_imported_for_the_chosen_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Other tools' HARs: one origin chosen, base path stripped, pseudo-headers dropped, secrets redacted."""
    har = tmp_path / "browser.har"
    entries = [
        browser_entry("https://api.shop.example/commerce/v2/products?page[limit]=2"),
        browser_entry("https://cdn.example/app.js", text="console.log(1)"),
        browser_entry("https://api.shop.example/commerce/v2/orders", status=0),
    ]
    har.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "Firefox"}, "entries": entries}})
    )
    out = tmp_path / "c.yaml"
    assert main(["import-har", str(har), "-o", str(out)]) == 2
    line = one_error_line(capsys)
    assert "--origin: " in line and "2 origins" in line and line.endswith("pick one"), line
    assert (
        main(["import-har", str(har), "-o", str(out), "--origin", "https://api.shop.example/commerce"]) == 0
    )
    assert "left out 1 exchange(s) with other origins" in capsys.readouterr().out
    cassette = read_cassette_file(out)
    assert cassette.upstream == "https://api.shop.example/commerce"
    [exchange] = cassette.exchanges
    assert exchange.request.target == "/v2/products?page[limit]=2"
    assert exchange.request.headers == (("authorization", "Bearer <redacted>"),)
    assert exchange.response.body.kind == "json" and exchange.response.body.decoded_from == "gzip"
    assert exchange.recorded_at == "2026-11-20T10:00:00.000+01:00" and exchange.duration_ms == 12.5
    assert b"browser-SECRET-4444" not in out.read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", ":1: not valid JSON"),
        ('{"entries": []}', 'document: expected {"log": {"entries": [...]}}'),
        (
            '{"log": {"entries": [{"request": {"method": "GET", "url": "/relative"}, "response": {"status": 200}}]}}',
            "log.entries[0].request.url: expected an absolute http(s) URL",
        ),
        (
            '{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/x"}, "response": {"status": "ok"}}]}}',
            "log.entries[0].response.status: expected an HTTP status 100-599",
        ),
        (
            '{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/x", "headers": [1]}, "response": {"status": 200}}]}}',
            "log.entries[0].request.headers[0]: expected {name: string, value: string}",
        ),
        (
            '{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/x"}, '
            '"response": {"status": 200, "content": {"text": "%%%", "encoding": "base64"}}}]}}',
            "log.entries[0].response.content.text: encoding is base64 but the text is not base64",
        ),
        (
            '{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/x"}, "response": {"status": 200, '
            '"headers": [{"name": "X-A", "value": "a\\r\\nSet-Cookie: injected=1"}]}}]}}',
            "exchange 0 of the file: response.headers.X-A: header X-A cannot hold CR, LF or NUL",
        ),
    ],
)
def test_a_broken_har_is_one_line_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    """A HAR that cannot be read names the file and the entry and field; no cassette is written."""
    har = tmp_path / "bad.har"
    har.write_text(content)
    assert main(["import-har", str(har), "-o", str(tmp_path / "c.yaml")]) == 2
    line = one_error_line(capsys)
    assert str(har) in line and message in line, line
    assert not (tmp_path / "c.yaml").exists()


def test_import_never_replaces_a_cassette_unasked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An existing output is kept unless --force."""
    har = tmp_path / "one.har"
    har.write_text(json.dumps({"log": {"entries": [browser_entry("https://api.shop.example/v2/products")]}}))
    out = tmp_path / "c.yaml"
    out.write_text("precious\n")
    assert main(["import-har", str(har), "-o", str(out)]) == 2
    assert "the imported cassette would replace it: pass --force" in one_error_line(capsys)
    assert out.read_text() == "precious\n"
    assert main(["import-har", str(har), "-o", str(out), "--force"]) == 0


def test_a_har_body_in_a_coding_not_known_here_is_kept_since_har_text_is_decoded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HAR text is the decoded body whatever the coding: it is stored (and searched for secrets), never
    withheld as a body that could not be read."""
    entry = browser_entry("https://api.shop.example/v2/products", text='{"data": [], "x": 1}')
    entry["response"]["headers"][1]["value"] = "x-private"  # type: ignore[index]
    har = tmp_path / "private.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}))
    out = tmp_path / "c.yaml"
    assert main(["import-har", str(har), "-o", str(out)]) == 0
    assert "not stored" not in capsys.readouterr().out
    [exchange] = read_cassette_file(out).exchanges
    assert exchange.response.body.value == {"data": [], "x": 1}
    assert exchange.response.body.decoded_from == "x-private"
