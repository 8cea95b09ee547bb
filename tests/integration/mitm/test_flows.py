"""`import-mitm`: flow files read with mitmproxy's FlowReader become redacted cassettes."""

from __future__ import annotations

from pathlib import Path

import pytest
from mitmproxy import io

from proxy.cli.main import main
from proxy.mitm.flows import exchange_from_flow
from proxy.store.cassette_reader.loading import read_cassette_file
from tests.integration.cli.test_cli import one_error_line
from tests.integration.mitm.flows import TOKEN, api_flow, products_page


def write_flows(path: Path, flows: list) -> None:  # type: ignore[type-arg]
    with path.open("wb") as handle:
        writer = io.FlowWriter(handle)
        for flow in flows:
            writer.add(flow)


def test_import_mitm_makes_a_redacted_cassette_of_one_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every flow with the chosen origin becomes an exchange, in order, with its token redacted."""
    monkeypatch.chdir(tmp_path)
    flows = [
        api_flow("GET", "/v2/products?page[limit]=1", products_page(), started=1795000000.0),
        api_flow("GET", "/telemetry", {}, host="metrics.example", started=1795000001.0),
        api_flow("GET", "/v2/products?page[limit]=1&page[offset]=1", products_page(), started=1795000002.0),
    ]
    write_flows(tmp_path / "session.mitm", flows)
    assert main(["import-mitm", str(tmp_path / "session.mitm"), "-o", str(tmp_path / "c.yaml")]) == 2
    assert "2 origins (https://api.shop.example (2), https://metrics.example (1))" in one_error_line(capsys)
    code = main(
        [
            "import-mitm",
            str(tmp_path / "session.mitm"),
            "-o",
            str(tmp_path / "c.yaml"),
            "--origin",
            "https://api.shop.example",
        ]
    )
    assert code == 0
    assert "imported 2 exchange(s)" in capsys.readouterr().out
    cassette = read_cassette_file(tmp_path / "c.yaml")
    assert cassette.upstream == "https://api.shop.example"
    assert [(item.request.path, item.request.query) for item in cassette.exchanges] == [
        ("/v2/products", "page[limit]=1"),
        ("/v2/products", "page[limit]=1&page[offset]=1"),
    ]
    assert cassette.exchanges[0].recorded_at == "2026-11-18T11:06:40.000000Z"
    assert cassette.exchanges[0].duration_ms == 12.0
    assert TOKEN.encode() not in (tmp_path / "c.yaml").read_bytes()
    converted = exchange_from_flow(flows[0])
    assert converted is not None and converted.exchange.response.body.value == products_page()


def test_a_file_that_is_not_a_flow_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken or foreign flow file is refused with one line naming it; nothing is written."""
    bad = tmp_path / "bad.mitm"
    bad.write_bytes(b"this is not a tnetstring at all")
    assert main(["import-mitm", str(bad), "-o", str(tmp_path / "c.yaml")]) == 2
    assert f"{bad}: not a mitmproxy flow file" in one_error_line(capsys)
    assert not (tmp_path / "c.yaml").exists()
    assert main(["import-mitm", str(tmp_path / "missing.mitm"), "-o", str(tmp_path / "c.yaml")]) == 2
    assert "no such flow file" in one_error_line(capsys)
