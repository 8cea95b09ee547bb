"""`import proxy`: the curated public API does what the command line does, and stays small and cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import proxy
from proxy.cli.main import main
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"


def test_every_public_name_resolves_and_nothing_else_is_offered() -> None:
    for name in proxy.__all__:
        assert getattr(proxy, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'core_helpers'"):
        proxy.core_helpers  # noqa: B018  # the attribute access is what is tested
    assert {"check_exchanges", "load_cassette", "save_cassette", "Finding", "Exchange"} <= set(proxy.__all__)


def test_importing_the_package_imports_nothing_heavy() -> None:
    """The API is imported on first use: `import proxy` loads only the root and its version."""
    code = "import sys, proxy; print(sorted(m for m in sys.modules if m.startswith('proxy')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['proxy', 'proxy.version']"


def test_check_exchanges_finds_what_check_reports(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no project config: the shipped rules, as for the command line
    findings = proxy.check_exchanges(proxy.load_cassette(WALK).exchanges)
    assert main(["check", str(WALK), "--format", "json", "-q"]) == 0
    reported = json.loads(capsys.readouterr().out)
    from_cli = sorted((finding["exchange"], finding["rule"]) for finding in reported["findings"])
    assert from_cli and sorted((finding.exchange, finding.rule) for finding in findings) == from_cli


def test_exchanges_built_in_code_are_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    headers = (("Content-Type", "application/json"),)
    page = {"limit": 2, "offset": 0, "current": 1, "total": 1}
    raw = json.dumps({"data": [], "links": {}, "meta": {"page": page, "results": {"total": 5}}}).encode()
    request = proxy.Request("GET", "/v2/products", "page[limit]=2", (("Authorization", "Bearer t"),))
    exchange = proxy.Exchange(request, proxy.Response(200, headers, proxy.body(raw, headers)))
    rules = {finding.rule for finding in proxy.check_exchanges([exchange])}
    assert "pagination.results.total-method-consistent" in rules  # a total of 5 on an empty first page


def test_save_cassette_redacts_before_writing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    secret = "sk-live-abcdef0123456789"
    request = proxy.Request("GET", "/v2/products", "", (("Authorization", f"Bearer {secret}"),))
    cassette = proxy.Cassette((proxy.Exchange(request, proxy.Response(200)),), "https://api.example")
    proxy.save_cassette(tmp_path / "saved.yaml", cassette)
    assert secret not in (tmp_path / "saved.yaml").read_text()
    [saved] = proxy.load_cassette(tmp_path / "saved.yaml").exchanges
    assert saved.request.headers[0][0] == "Authorization" and secret not in saved.request.headers[0][1]


def test_unusable_input_is_the_package_error(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("interactions: [\n")
    with pytest.raises(proxy.CommerceProxyError, match=r"broken\.yaml"):
        proxy.load_cassette(tmp_path / "broken.yaml")
