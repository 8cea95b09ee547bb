"""`cassette diff` and `verify` tier their differences by the specs the command line (`--spec`,
`--overlay`) or the project config (`specs:`, `overlays:`) names, in-process through the real parsers:
a required field removed is breaking with its source, an optional one is data; without a spec nothing
changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proxy.app.verify_command import run_verify
from proxy.cli import verify
from proxy.cli.main import build_parser, main
from proxy.cli.reporting import shown
from proxy.core.cassette.document import Cassette
from proxy.server.upstream import UpstreamAnswer
from proxy.store.saving import save_cassette
from tests.unit.core.contract.test_drift_tiers import CART, SPEC, cart, changed, exchange

UPSTREAM = "http://127.0.0.1:9"
REQUIRED = f"carts.yaml#{CART}/required"
OPTIONAL = f"carts.yaml#{CART}/properties/name"
OVERLAY = "components:\n  schemas:\n    CartResponse:\n      required: [id, type, name]\n"
NAMED = {
    "--spec": ["--spec", "carts.yaml"],
    "specs:": ["--config", "config.yaml"],
    "none": ["--config", "none.yaml"],
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copyfile(SPEC, tmp_path / "carts.yaml")
    (tmp_path / "config.yaml").write_text("specs: carts.yaml\n")
    (tmp_path / "none.yaml").write_text("{}\n")  # a config without specs
    save_cassette(tmp_path / "a.yaml", Cassette((exchange(cart()),)))
    live = changed(changed(cart(), ("data", "id"), "removed"), ("data", "name"), "removed")
    save_cassette(tmp_path / "b.yaml", Cassette((exchange(live),)))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def named(source: object) -> object:
    """A source with its spec file by its name (`--spec` spells it as given, a config's `specs:` as
    found from the config's folder)."""
    if not isinstance(source, str):
        return source
    file, _, pointer = source.partition("#")
    return f"{Path(file).name}#{pointer}"


def tiers(items: list[dict[str, object]]) -> dict[object, tuple[object, object]]:
    return {
        item["where"]: (item["tier"], named(item.get("source")))
        for item in items
        if item["tier"] != "volatile"
    }


EXPECTED = {
    "--spec": {"json.data.id": ("breaking", REQUIRED), "json.data.name": ("data", OPTIONAL)},
    "specs:": {"json.data.id": ("breaking", REQUIRED), "json.data.name": ("data", OPTIONAL)},
    "none": {"json.data.id": ("breaking", None), "json.data.name": ("breaking", None)},
}


@pytest.mark.parametrize("spelled", NAMED)
def test_cassette_diff_tiers_by_the_spec_it_is_given(
    project: Path, spelled: str, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = NAMED[spelled]
    code = main(["cassette", "diff", "a.yaml", "b.yaml", "--format", "json", *flags])
    assert code == 1
    assert tiers(json.loads(capsys.readouterr().out)["changes"]) == EXPECTED[spelled]


def test_cassette_diff_names_the_overlay_that_made_a_field_required(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "carts_corrections.yaml").write_text(OVERLAY)  # a merge correction of carts.yaml
    flags = ["--spec", "carts.yaml", "--overlay", "carts_corrections.yaml", "--config", "none.yaml"]
    code = main(["cassette", "diff", "a.yaml", "b.yaml", *flags])
    out = capsys.readouterr().out
    assert code == 1
    assert f"json.data.name: 'Cart' -> missing (spec: {REQUIRED} (overlay carts_corrections.yaml))" in out


def test_cassette_diff_refuses_a_spec_it_cannot_use_in_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "broken.yaml").write_text("openapi: 3.1.0\npaths: {/a: [1, 2]}\n")
    code = main(["cassette", "diff", "a.yaml", "b.yaml", "--spec", "broken.yaml", "--config", "none.yaml"])
    err = capsys.readouterr().err
    assert (
        code == 2 and "broken.yaml" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    )


@pytest.mark.parametrize("spelled", ["--spec", "specs:"])
def test_verify_tiers_the_live_answers_by_the_spec(project: Path, spelled: str) -> None:
    live = exchange(changed(changed(cart(), ("data", "id"), "removed"), ("data", "name"), "removed"))
    arguments = build_parser().parse_args(
        ["verify", "a.yaml", "--upstream", UPSTREAM, "--format", "json", "-o", "out.json", *NAMED[spelled]]
    )

    class Answering:  # the live service answers `live`
        async def send(self, method: str, target: str, headers: object, body: bytes) -> UpstreamAnswer:
            answer = live.response
            return UpstreamAnswer(answer.status, None, answer.headers, json.dumps(answer.body.value).encode())

        def close(self) -> None:
            pass

    assert run_verify(verify.request_of(arguments), lambda *_: Answering(), shown()) == 1
    report = json.loads(Path("out.json").read_text())
    assert tiers(report["drift"]) == EXPECTED[spelled]
    assert [(item["rule"], named(item["section"])) for item in report["findings"]] == [
        ("contract.response.schema", REQUIRED)
    ]
