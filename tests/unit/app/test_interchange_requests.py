"""`import-har`, `export-har` and `cassette diff` decided by their use cases from a typed request (no
CLI): the output refusal, the `--origin` check, the origin chosen, and the diff's format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.app.cassette_diff import DIFF_FORMATS, DiffFormat, DiffRequest, rendered_diff
from proxy.app.importing import ExportRequest, ImportRequest, export_har, import_har
from proxy.core.cassette.document import Cassette
from proxy.errors import UsageError
from proxy.store.saving import save_cassette
from tests.conftest import make_exchange
from tests.integration.cli.test_interchange import browser_entry


@pytest.fixture
def har(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "browser.har"
    entries = [browser_entry("https://api.shop.example/v2/products"), browser_entry("https://cdn.example/x")]
    path.write_text(json.dumps({"log": {"entries": entries}}))
    return path


def test_import_har_chooses_the_asked_origin_and_redacts(har: Path) -> None:
    out = har.parent / "shop.yaml"
    done = import_har(ImportRequest(har, out, origin="https://api.shop.example"))
    assert (len(done.cassette.exchanges), done.other_origins) == (1, 1)
    assert out.exists() and "browser-SECRET-4444" not in out.read_text()


def test_import_har_refuses_a_bad_origin_and_an_existing_output_before_writing(har: Path) -> None:
    out = har.parent / "shop.yaml"
    with pytest.raises(UsageError, match=r"--origin 'ftp://x': expected an http:// or https:// URL"):
        import_har(ImportRequest(har, out, origin="ftp://x"))
    assert not out.exists()
    out.write_text("keep me\n")
    with pytest.raises(UsageError):
        import_har(ImportRequest(har, out, origin="https://api.shop.example"))
    assert out.read_text() == "keep me\n"


def test_export_har_never_replaces_the_cassette_it_exports(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    save_cassette(cassette, Cassette(upstream="http://127.0.0.1:9", exchanges=(make_exchange(),)))
    before = cassette.read_bytes()
    with pytest.raises(UsageError):
        export_har(ExportRequest(cassette, cassette, force=True))
    assert cassette.read_bytes() == before
    assert export_har(ExportRequest(cassette, tmp_path / "c.har")) == 1


@pytest.mark.parametrize("kind", DIFF_FORMATS)
def test_cassette_diff_renders_the_asked_format(
    kind: DiffFormat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    save_cassette(a, Cassette(upstream="http://127.0.0.1:9", exchanges=(make_exchange(),)))
    save_cassette(b, Cassette(upstream="http://127.0.0.1:9", exchanges=()))
    done = rendered_diff(DiffRequest(a, b, "a/c", "b/c", kind))
    assert done.drifted
    if kind == "json":
        assert isinstance(json.loads(done.document), dict)
    else:
        assert "a/c" in done.document
