"""The published examples through the command line as a user runs it: each as a HAR file (what a
browser or Postman export holds), `import-har`, then `check --format json`: the same exact findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.interchange.har import cassette_to_har
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from proxy.version import __version__
from tests.integration.corpus.published import CORPUS

RULES = load_rules(shipped_dir("rules"))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_an_imported_published_example_checks_to_its_findings(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = CORPUS[name]
    har = tmp_path / "example.har"
    document = cassette_to_har(
        Cassette(tuple(example.exchanges), "https://useast.api.elasticpath.com"), __version__
    )
    har.write_text(json.dumps(document))
    assert main(["import-har", str(har), "-o", str(tmp_path / "example.yaml")]) == 0
    capsys.readouterr()
    code = main(["check", "--format", "json", str(tmp_path / "example.yaml")])
    report = json.loads(capsys.readouterr().out)
    found = sorted((f["exchange"], f["rule"], f["where"]) for f in report["findings"])
    assert found == sorted(example.findings), example.source
    severity = {rule.id: rule.severity for rule in RULES.rules}
    assert code == (1 if any(severity[rule] == "error" for _, rule, _ in example.findings) else 0)
