"""`cassette show` prints an exchange as its cassette stores it: read back, every exchange of the shipped
cassettes is the stored mapping itself, JSON bodies as the same JSON text (not as YAML structure)."""

from __future__ import annotations

import pytest
import yaml

from proxy.cli.main import main
from proxy.store.shipped import shipped_dir

STORED = {
    path.name: yaml.safe_load(path.read_text()) for path in sorted(shipped_dir("cassettes").glob("*.yaml"))
}
CASES = [(name, index) for name, document in STORED.items() for index in range(len(document["exchanges"]))]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_show_prints_the_exchange_as_stored(
    name: str, index: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cassette", "show", str(shipped_dir("cassettes") / name), str(index)]) == 0
    shown = yaml.safe_load(capsys.readouterr().out)
    assert shown.pop("index") == index
    assert shown == STORED[name]["exchanges"][index]
