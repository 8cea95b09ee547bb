"""Every report format of `verify` and `cassette diff`, and the pytest plugin's finding line, names the
layer a contract finding or a spec-tiered difference comes from: a table of every format x a
difference and a finding, with and without an overlay at their place."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import replace

import pytest

from proxy.app.verify_results import verify_diff_document
from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.drift.compare import compare_exchanges
from proxy.core.drift.pairing import CassetteDiff, pair_cassettes
from proxy.core.drift.verification import Verification, Verified
from proxy.core.reports.cassette_diff import diff_json, diff_markdown, diff_text
from proxy.core.reports.verification import verify_json, verify_junit, verify_markdown, verify_text
from proxy.core.rules.config import RuleConfig
from proxy.pytest_plugin.summary import finding_line
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.test_drift_tiers import CART, SPEC, cart, changed, exchange

OVERLAY = "overrides/carts.yaml"
CASSETTE = "cassettes/carts.yaml"


def contract(overlaid: bool) -> Contract:
    loaded = contract_of([SPEC])
    if not overlaid:
        return loaded
    (spec,) = loaded.specs.values()
    return Contract([replace(spec, overlaid={CART: OVERLAY})])


def sources(overlaid: bool) -> tuple[Verification, str, str]:
    """A verification of one exchange whose `id` went missing (a difference the spec tiers) and whose
    `type` left its enum (a finding of the spec's rules on the live answer), and both sources."""
    judged = contract(overlaid)
    recorded = exchange(cart())
    live = exchange(changed(changed(cart(), ("data", "id"), "removed"), ("data", "type"), "enum"))
    differences = compare_exchanges(recorded, live, tiering=SpecTiers(judged))
    finding = next(
        one
        for one in ContractJudge(judged).verdict(live, 0, False, RuleConfig().severity, CASSETTE).findings
        if one.where == "body.data.type"
    )
    result = Verified(CASSETTE, 0, "GET /v2/carts/c1", differences, live=live, recorded_status=200)
    difference = next(item for item in differences if item.where == "json.data.id")
    assert difference.source is not None
    return Verification([result], [finding]), difference.source, finding.section


Render = Callable[[Verification], str]
VERIFY_FORMATS: dict[str, Render] = {
    "text": verify_text,
    "markdown": verify_markdown,
    "junit": lambda verification: "".join(verify_junit(verification)),
    "json": verify_json,
}


@pytest.mark.parametrize("overlaid", [False, True], ids=["spec", "overlay"])
@pytest.mark.parametrize("form", list(VERIFY_FORMATS))
def test_every_verify_format_names_the_source_of_a_difference_and_a_finding(
    form: str, overlaid: bool
) -> None:
    verification, difference, finding = sources(overlaid)
    assert difference.endswith(f"#{CART}/required" + (f" (overlay {OVERLAY})" if overlaid else ""))
    assert finding.endswith(f"#{CART}/properties/type/enum" + (f" (overlay {OVERLAY})" if overlaid else ""))
    document = VERIFY_FORMATS[form](verification)
    if form == "json":
        parsed = json.loads(document)
        assert [item.get("source") for item in parsed["drift"] if item["where"] == "json.data.id"] == [
            difference
        ]
        assert [item["section"] for item in parsed["findings"]] == [finding]
        ui = verify_diff_document(parsed, "report.json", CASSETTE)
        assert [change.get("source") for change in ui["changes"] if change["where"] == "json.data.id"] == [
            difference
        ]
        return
    if form == "junit":
        case = ElementTree.fromstring(document).find(".//testcase")
        assert case is not None
        failure, out = case.find("failure"), case.find("system-out")
        assert failure is not None and out is not None
        assert f"spec: {difference}" in failure.get("message", "")
        assert f"spec: {difference}" in (failure.text or "")
        assert f"spec: {finding}" in (out.text or "")
        return
    (line,) = [line for line in document.splitlines() if "json.data.id" in line]
    assert f"spec: {difference}" in line or f"spec: `{difference}`" in line
    (line,) = [line for line in document.splitlines() if "contract.response.schema" in line]
    assert f"(spec: {finding})" in line


DIFF_FORMATS: dict[str, Callable[[CassetteDiff], str]] = {
    "text": lambda diff: diff_text(diff, "a", "b"),
    "markdown": lambda diff: diff_markdown(diff, "a", "b"),
    "json": diff_json,
}


@pytest.mark.parametrize("overlaid", [False, True], ids=["spec", "overlay"])
@pytest.mark.parametrize("form", list(DIFF_FORMATS))
def test_every_cassette_diff_format_names_the_source_of_a_difference(form: str, overlaid: bool) -> None:
    a = [exchange(cart())]
    b = [exchange(changed(cart(), ("data", "id"), "removed"))]
    diff = pair_cassettes(a, b, tiering=SpecTiers(contract(overlaid)))
    (source,) = {item.source for pair in diff.pairs for item in pair.differences if item.source}
    assert (f"(overlay {OVERLAY})" in source) is overlaid
    document = DIFF_FORMATS[form](diff)
    if form == "json":
        assert [item.get("source") for item in json.loads(document)["changes"]] == [source]
    elif form == "markdown":
        assert f"breaking (spec: `{source}`)" in document
    else:
        assert f"json.data.id: 'c1' -> missing (spec: {source})" in document


@pytest.mark.parametrize("overlaid", [False, True], ids=["spec", "overlay"])
def test_the_plugins_finding_line_names_the_spec_and_overlay(overlaid: bool) -> None:
    verification, _, finding = sources(overlaid)
    line = finding_line(verification.findings[0].to_json())
    assert f"(see spec: {finding} (more: commerce-proxy rules contract.response.schema))" in line
