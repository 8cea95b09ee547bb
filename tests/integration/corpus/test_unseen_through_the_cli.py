"""The unseen traffic through the command line as a user runs it: a HAR file, `import-har`, then
`check --format json`: the same exact findings as the Checker's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.interchange.har import cassette_to_har
from proxy.version import __version__
from tests.integration.corpus.unseen_corpus import CORPUS


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_imported_unseen_traffic_checks_to_its_findings(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = CORPUS[name]
    har = tmp_path / "traffic.har"
    document = cassette_to_har(Cassette(tuple(example.exchanges), "https://api.moltin.com"), __version__)
    har.write_text(json.dumps(document))
    assert main(["import-har", str(har), "-o", str(tmp_path / "traffic.yaml")]) == 0
    capsys.readouterr()
    main(["check", "--format", "json", str(tmp_path / "traffic.yaml")])
    report = json.loads(capsys.readouterr().out)
    found = sorted((f["exchange"], f["rule"], f["where"]) for f in report["findings"])
    assert found == sorted((number, rule, where) for number, rule, where, _ in example.findings), (
        example.source
    )
