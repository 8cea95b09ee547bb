"""One name for a spec file and an overlay in every finding's source, whatever the command and however
the path was given: `check`'s relative path, the absolute one `record` and `spy` hand their checker
process (`RuleChoice.source`), a folder, the config's or the plugin's folder joined to it. Inside the
working folder the name is relative to it, outside it is absolute."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app.command_inputs import RuleChoice
from proxy.app.contract_inputs import contract_judge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig

SPEC = """openapi: 3.0.3
info: {title: probe, version: '1'}
paths:
  /v2/things:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
"""
OVERLAY = """overlay: 1.0.0
info: {title: fix, version: '1'}
actions:
  - target: $.paths['/v2/things'].get.responses['200'].content['application/json'].schema
    update: {required: [id]}
"""
POINTER = "#/paths/~1v2~1things/get/responses/200/content/application~1json/schema/required"


def _spellings(root: Path, folder: str) -> list[tuple[list[Path], list[Path]]]:
    """Each way a command may name the spec (and its overlay) at `root`, from the working folder."""
    spec, overlay = Path(folder) / "specs", Path(folder) / "fix"
    absolute = [root / "specs", root / "fix"]
    live = RuleChoice(specs=(spec,), overlays=(overlay,)).source()  # as record and spy pass them on
    return [
        ([spec / "probe.yaml"], [overlay / "probe.overlay.yaml"]),
        ([spec], [overlay]),
        ([Path(folder) / "." / "specs" / ".." / "specs"], [Path(folder) / "fix" / "."]),
        ([absolute[0] / "probe.yaml"], [absolute[1] / "probe.overlay.yaml"]),
        ([absolute[0]], [absolute[1]]),
        (list(live.specs), list(live.overlays)),
    ]


@pytest.mark.parametrize("inside", [True, False])
def test_every_spelling_of_a_spec_names_it_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: bool
) -> None:
    root = tmp_path / "project"
    (root / "specs").mkdir(parents=True)
    (root / "fix").mkdir()
    (root / "specs" / "probe.yaml").write_text(SPEC, encoding="utf-8")
    (root / "fix" / "probe.overlay.yaml").write_text(OVERLAY, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(root if inside else tmp_path / "elsewhere")
    prefix = "" if inside else f"{root.as_posix()}/"
    expected = f"{prefix}specs/probe.yaml{POINTER} (overlay {prefix}fix/probe.overlay.yaml)"
    exchange = Exchange(Request("GET", "/v2/things"), Response(200, (), Body("json", {})))
    for specs, overlays in _spellings(root, "." if inside else "../project"):
        judge = contract_judge(specs, overlays)
        assert judge is not None
        findings = judge.verdict(exchange, 0, False, RuleConfig().severity, None).findings
        assert [finding.section for finding in findings] == [expected], (specs, overlays)
