"""The generated docs pages are what their generators write today, and earlier cassettes keep their
header line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import EARLIER_HEADERS, HEADER_COMMENT
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT


def test_the_rules_page_is_what_the_rules_command_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/rules.md is `commerce-proxy rules --format markdown` on the shipped rules (no project
    config): regenerate it with that command when a rule file changes."""
    monkeypatch.chdir(tmp_path)
    assert main(["rules", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_a_cassette_with_an_earlier_header_line_stays_in_the_normal_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header line once named a README section; a cassette written then is still formatted, and
    a new one gets today's line."""
    shipped = shipped_dir("cassettes") / "demo-session.yaml"
    text = shipped.read_text(encoding="utf-8")
    assert text.startswith(HEADER_COMMENT)
    earlier = tmp_path / "earlier.yaml"
    earlier.write_text(EARLIER_HEADERS[0] + text.removeprefix(HEADER_COMMENT), encoding="utf-8")
    assert main(["cassette", "fmt", "--check", str(earlier)]) == 0
    shutil.copy(earlier, tmp_path / "rewritten.yaml")
    assert main(["cassette", "set", str(tmp_path / "rewritten.yaml"), "0", "status", "200"]) in (0, 1)
    assert (tmp_path / "rewritten.yaml").read_text(encoding="utf-8").startswith(HEADER_COMMENT)
