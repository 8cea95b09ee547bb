"""Which layer a contract finding names: the overlay that shaped the node at its place (that node, one
enclosing it, or one item of it, never a change deeper down), the overlay behind a broken `$ref`, and
the label every report format gives a spec's place (`spec:`, never `documentation: §`)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from proxy.app.contract_inputs import contract_judge
from proxy.core.contract.documents import Spec, check_references
from proxy.core.contract.findings import RULES, ContractJudge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.reports.formats import (
    CassetteResult,
    Report,
    json_report,
    junit_report,
    markdown_report,
    text_report,
)
from proxy.core.reports.html import report_data
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.findings import Finding
from proxy.errors import ContractError
from tests.conftest import make_exchange
from tests.unit.core.contract.plans import JSON

OPERATION = "/paths/~1items~1{id}/get"
RESPONSES = f"{OPERATION}/responses"
# (the place an overlay changed, the finding's place, whether the overlay is named on the finding)
SHAPING = [
    (RESPONSES, RESPONSES, True),  # the node itself
    (OPERATION, RESPONSES, True),  # an enclosing node, replaced
    ("/paths", RESPONSES, True),
    (f"{RESPONSES}/500", RESPONSES, True),  # one item: a status added or removed
    (f"{RESPONSES}/200/headers/ETag", RESPONSES, False),  # a 200's header on the 500 status finding
    (f"{RESPONSES}/200/description", RESPONSES, False),
    ("/components/schemas/Item/required/1", "/components/schemas/Item/required", True),  # a name in it
    ("/components/schemas/Item/required", "/components/schemas/Item/properties/id/format", False),
    ("/components/schemas/Item/properties/id/format", "/components/schemas/Item/properties/id/format", True),
    ("/components/schemas/Item/properties/id", "/components/schemas/Item/properties/id/format", True),
    ("/components/schemas/Item/properties/id/format", "/components/schemas/Item/properties/id", True),
    (
        "/components/schemas/Item/properties/id/pattern",
        "/components/schemas/Item/properties/id/format",
        False,
    ),
    ("/components/schemas/Item/properties/name/type", "/components/schemas/Item/additionalProperties", False),
    (f"{RESPONSES}/200/headers/ETag/required", f"{RESPONSES}/200/headers/ETag", True),
    (f"{RESPONSES}/200/content/text~1html", f"{RESPONSES}/200/content", True),
    (f"{RESPONSES}/200/content/application~1json/schema/type", f"{RESPONSES}/200/content", False),
    (f"{RESPONSES}/20", f"{RESPONSES}/200", False),  # a prefix of a token is not an enclosing node
    (f"{RESPONSES}/2000", f"{RESPONSES}", True),
]


@pytest.mark.parametrize(("changed", "at", "named"), SHAPING)
def test_an_overlay_is_named_on_the_node_it_shaped_only(changed: str, at: str, named: bool) -> None:
    """Before, any change below the finding's place was credited (an overlay removing a 200's ETag
    header was named on the 500 status finding at `.../responses`)."""
    spec = Spec("api.yaml", "3.0", {}, {changed: "ov/o1.yaml"})
    assert spec.overlay_at(at) == ("ov/o1.yaml" if named else None)


ITEM = {"type": "object", "properties": {"id": {"type": "string"}}}


def _api(schema_ref: str, components: Any = None) -> dict[str, Any]:
    """A small spec in the published specs' shape (cart_checkout.yaml's responses $ref their
    components' schemas)."""
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "paths": {"/items": {"get": {"responses": {"200": {"$ref": schema_ref}}}}},
    }
    if components is not None:
        document["components"] = components
    return document


REF_AT = "/paths/~1items/get/responses/200/$ref"
BROKEN = [
    # (documents, what overlays changed in each, the error's end)
    (  # an overlay removed `components` (an Overlay action `target: $.components, remove: true`)
        {"api.yaml": _api("#/components/responses/Ok")},
        {"api.yaml": {"/components": "ov/o6.yaml"}},
        " does not resolve (overlay ov/o6.yaml changed api.yaml#/components)",
    ),
    (  # an overlay replaced the schema the $ref leads to with one lacking it
        {"api.yaml": _api("#/components/responses/Ok", {"responses": {}})},
        {"api.yaml": {"/components/responses": "ov/fix.yaml"}},
        " does not resolve (overlay ov/fix.yaml changed api.yaml#/components/responses)",
    ),
    (  # an overlay wrote the $ref itself
        {"api.yaml": _api("#/components/responses/Gone", {"responses": {"Ok": {"description": "ok"}}})},
        {"api.yaml": {REF_AT: "ov/fix.yaml"}},
        " does not resolve (written by overlay ov/fix.yaml)",
    ),
    (  # an overlay replaced the response holding the $ref
        {"api.yaml": _api("#/components/responses/Gone", {"responses": {}})},
        {"api.yaml": {"/paths/~1items/get/responses/200": "ov/fix.yaml"}},
        " does not resolve (written by overlay ov/fix.yaml)",
    ),
    (  # an overlay wrote a $ref to a file that is not loaded
        {"api.yaml": _api("other.yaml#/components/responses/Ok")},
        {"api.yaml": {REF_AT: "ov/fix.yaml"}},
        ": no such file: other.yaml#/components/responses/Ok (written by overlay ov/fix.yaml)",
    ),
    (  # the spec's own broken $ref: no overlay is named, even one that changed something else
        {"api.yaml": _api("#/components/responses/Gone", {"responses": {"Ok": {"description": "ok"}}})},
        {"api.yaml": {"/components/responses/Ok/description": "ov/fix.yaml", "/info": "ov/fix.yaml"}},
        " does not resolve",
    ),
]


@pytest.mark.parametrize(("documents", "overlaid", "ending"), BROKEN)
def test_a_broken_ref_an_overlay_wrote_or_caused_names_it(
    documents: dict[str, Any], overlaid: dict[str, dict[str, str]], ending: str
) -> None:
    """Before, every broken `$ref` was blamed on the spec alone."""
    with pytest.raises(ContractError) as caught:
        check_references(documents, overlaid)
    assert str(caught.value).startswith(f"api.yaml: #{REF_AT}: ")
    assert str(caught.value).endswith(ending)


SOURCE = "specs/carts.yaml#/components/schemas/Cart/required (overlay ov/carts.yaml)"
ERROR_RULE = "contract.response.schema"
WARNING_RULE = "contract.response.status"


def _report() -> Report:
    findings = [
        Finding(
            exchange=0,
            method="GET",
            path="/v2/carts/1",
            target="/v2/carts/1",
            rule=rule,
            severity=severity,
            section=SOURCE,
            message=f"the statement (GET /v2/carts/{{cartID}}): body: expected x, found y ({rule})",
            where="body",
            expected="x",
            found="y",
        )
        for rule, severity in ((ERROR_RULE, "error"), (WARNING_RULE, "warning"))
    ]
    return Report([CassetteResult("a.yaml", 1, FindingGroups(findings))], rules=RULES)


def _shown(name: str) -> list[str]:
    """Each place the format shows a contract finding's source, with its label."""
    report = _report()
    if name == "text":
        return re.findall(r"\n +(\w+: specs/carts\.yaml.*)", "".join(text_report(report)))
    if name == "markdown":
        page = "".join(markdown_report(report, lambda finding: finding.path))
        return re.findall(r"<br>\n(.*)</p>", page)
    if name == "junit":
        root = ElementTree.fromstring("".join(junit_report(report)))
        texts = [item.text or "" for item in root.iter("failure")] + [
            item.text or "" for item in root.iter("system-out")
        ]
        return [part for text in texts for part in re.findall(r"\[(\w+: specs/carts\.yaml[^\]]*\))\]", text)]
    if name == "html":
        data = report_data(report, [[make_exchange()]], lambda method, path: path, "t")
        return [f"{item['cited_as']}: {item['citation']}" for item in data["rows"][0]["findings"]]
    findings = json.loads("".join(json_report(report)))["findings"]
    return [f"spec: {item['citation']}" for item in findings if item["section"] == SOURCE]


@pytest.mark.parametrize("name", ["text", "markdown", "junit", "html", "json"])
def test_every_format_labels_a_spec_place_as_the_spec(name: str) -> None:
    """Before, Markdown and the others said `documentation: § specs/carts.yaml#...`, as if a spec's
    place were a section of the documentation."""
    shown = _shown(name)
    assert len(shown) == 2, shown
    for line in shown:
        assert line.startswith(f"spec: {SOURCE}"), line
    everything = {
        "text": "".join(text_report(_report())),
        "markdown": "".join(markdown_report(_report(), lambda finding: finding.path)),
        "junit": "".join(junit_report(_report())),
        "json": "".join(json_report(_report())),
    }.get(name, json.dumps(report_data(_report(), [[make_exchange()]], lambda m, p: p, "t")))
    assert "§ specs/" not in everything and "documentation: spec" not in everything
    assert "§ the published" not in everything


# Modelled on cart_checkout.yaml's shape: a read whose 200 documents a required ETag header and whose
# schema is a component; the overlays are Overlay 1.0 documents as `--overlay` reads them.
END_TO_END_SPEC = """openapi: 3.0.3
info: {title: items, version: '1'}
paths:
  /v2/items/{id}:
    get:
      responses:
        '200':
          description: ok
          headers:
            ETag: {required: true, schema: {type: string}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
components:
  schemas:
    Item: {type: object}
"""
OVERLAY_HEAD = "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nextends: api.yaml\nactions:\n"


def _judge(tmp_path: Path, actions: str) -> ContractJudge:
    (tmp_path / "api.yaml").write_text(END_TO_END_SPEC)
    (tmp_path / "api_fix.yaml").write_text(OVERLAY_HEAD + actions)
    judge = contract_judge([tmp_path / "api.yaml"], [tmp_path / "api_fix.yaml"])
    assert judge is not None
    return judge


def test_end_to_end_an_overlay_removing_components_is_named(tmp_path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        _judge(tmp_path, "  - {target: $.components, remove: true}\n")
    spec = (tmp_path / "api.yaml").as_posix()
    assert str(caught.value) == (
        f"{spec}: #/paths/~1v2~1items~1{{id}}/get/responses/200/content/application~1json/schema/$ref: "
        f"#/components/schemas/Item does not resolve (overlay {(tmp_path / 'api_fix.yaml').as_posix()} "
        f"changed {spec}#/components)"
    )


def test_end_to_end_a_removed_header_is_not_named_on_another_status(tmp_path: Path) -> None:
    judge = _judge(
        tmp_path,
        "  - {target: \"$.paths['/v2/items/{id}'].get.responses['200'].headers.ETag\", remove: true}\n",
    )
    failed = Exchange(Request("GET", "/v2/items/1"), Response(500, JSON, Body("json", {})))
    (finding,) = judge.verdict(failed, 0, False, RuleConfig().severity, None).findings
    spec = (tmp_path / "api.yaml").as_posix()
    assert (finding.rule, finding.section) == (
        "contract.response.status",
        f"{spec}#/paths/~1v2~1items~1{{id}}/get/responses",
    )
