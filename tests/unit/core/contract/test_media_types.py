"""Every comparison of a spec's `content` key with a traffic Content-Type goes through
`proxy.core.contract.media_types`: drawn over keys (with and without parameters, `type/*`, `*/*`,
`application/*+json`) and traffic spellings (case, whitespace, quoted values, extra parameters), a key
documents the traffic exactly when its type, subtype and parameters cover it; and whether or not it
does, a JSON body that breaks the schema is still caught. The keys are modelled on the published specs'
`application/json` and `application/vnd.api+json` (cart_checkout.yaml) and on their `; charset=utf-8`
spellings."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from proxy.core.contract.documents import Spec
from proxy.core.contract.findings import ContractJudge
from proxy.core.contract.judge import Contract
from proxy.core.contract.proposals import proposed
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.reports.disagreements import disagreements
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.findings import Finding

Media = tuple[str, str, dict[str, str]]  # type, subtype, parameters (as meant, lower-case names)
KEYS: list[Media] = [
    ("application", "json", {}),
    ("application", "json", {"charset": "utf-8"}),
    ("application", "vnd.api+json", {}),
    ("application", "vnd.api+json", {"charset": "utf-8"}),
    ("application", "json", {"charset": "utf-8", "version": "2"}),
    ("application", "*+json", {}),
    ("application", "*", {}),
    ("text", "plain", {}),
    ("*", "*", {}),
]
TRAFFIC: list[Media] = [
    ("application", "json", {}),
    ("application", "json", {"charset": "utf-8"}),
    ("application", "json", {"charset": "utf-8", "version": "2"}),
    ("application", "json", {"charset": "iso-8859-1"}),
    ("application", "vnd.api+json", {"charset": "utf-8"}),
    ("application", "vnd.api+json", {}),
    ("application", "problem+json", {}),
    ("text", "plain", {"charset": "utf-8"}),
]
INVALID = "contract.request.invalid-accepted"
SCHEMA = {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}


def _spellings(media: Media) -> list[str]:
    """Ways the traffic writes one media type: as is, upper-case, spaced, quoted, charset upper-case."""
    kind, subtype, parameters = media
    pairs = list(parameters.items())
    return [
        f"{kind}/{subtype}" + "".join(f"; {name}={value}" for name, value in pairs),
        f"{kind}/{subtype}".upper() + "".join(f";{name.upper()}={value}" for name, value in pairs),
        f" {kind}/{subtype} " + "".join(f' ;  {name} = "{value}"' for name, value in pairs),
        f"{kind}/{subtype}" + "".join(f";{name}={_upper_charset(name, value)}" for name, value in pairs),
    ]


def _upper_charset(name: str, value: str) -> str:
    return value.upper() if name == "charset" else value


def _written(media: Media) -> str:
    kind, subtype, parameters = media
    return f"{kind}/{subtype}" + "".join(f"; {name}={value}" for name, value in parameters.items())


def _covers(key: Media, traffic: Media) -> bool:
    """The oracle: type and subtype equal or a wildcard (`*+json` any `+json`), the key's parameters
    all in the traffic's."""
    kind = key[0] in ("*", traffic[0])
    subtype = key[1] in ("*", traffic[1]) or (key[1] == "*+json" and traffic[1].endswith("+json"))
    return kind and subtype and key[2].items() <= traffic[2].items()


def _json(media: Media) -> bool:
    return media[0] == "application" and (media[1] == "json" or media[1].endswith("+json"))


def _judge(key: str) -> ContractJudge:
    content = {key: {"schema": SCHEMA}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "paths": {
            "/v2/r": {
                "post": {
                    "requestBody": {"content": content},
                    "responses": {"201": {"description": "ok", "content": content}},
                }
            }
        },
    }
    return ContractJudge(Contract([Spec("r.yaml", "3.0", document, {})]))


def _verdict(judge: ContractJudge, one: Exchange) -> list[Finding]:
    return judge.verdict(one, 0, False, RuleConfig().severity, None).findings


def _exchange(content_type: str, value: Any) -> Exchange:
    headers = (("Content-Type", content_type),)
    request = Request("POST", "/v2/r", headers=headers, body=Body("json", value))
    return Exchange(request, Response(201, headers, Body("json", value)))


@pytest.mark.parametrize("key", KEYS, ids=_written)
def test_a_key_documents_the_traffic_it_covers_and_the_body_is_judged_all_the_same(key: Media) -> None:
    judge = _judge(_written(key))
    for traffic in TRAFFIC:
        covered = _covers(key, traffic)
        judged = covered or key[:2] == traffic[:2] or (_json(key) and _json(traffic))
        for spelling in _spellings(traffic):
            for value, broken in (({"a": 1}, False), ({"a": "x"}, True)):
                rules = sorted({finding.rule for finding in _verdict(judge, _exchange(spelling, value))})
                expected = (
                    [] if covered else [f"contract.{side}.content-type" for side in ("request", "response")]
                )
                if broken and judged:
                    expected = sorted([*expected, INVALID, "contract.response.schema"])
                assert rules == expected, (_written(key), spelling, value)


def test_the_most_specific_key_is_the_one_judged_against() -> None:
    """`application/json; charset=utf-8` over `application/json` over `application/*` over `*/*`."""
    order = ["*/*", "application/*", "application/json", "application/json; charset=utf-8"]
    for keys in itertools.permutations(order):
        content = {key: {"schema": {"const": key}} for key in keys}
        responses = {"200": {"description": "ok", "content": content}}
        document = {"openapi": "3.0.3", "paths": {"/v2/r": {"get": {"responses": responses}}}}
        judge = ContractJudge(Contract([Spec("r.yaml", "3.0", document, {})]))
        for written, chosen in [
            ("application/json; charset=UTF-8", "application/json; charset=utf-8"),
            ("application/json", "application/json"),
            ("application/xml", "application/*"),
            ("text/html", "*/*"),
        ]:
            answer = Response(200, (("Content-Type", written),), Body("json", chosen))
            one = Exchange(Request("GET", "/v2/r"), answer)
            assert _verdict(judge, one) == [], (keys, written)


def test_a_proposed_media_type_keeps_the_schema_the_body_was_judged_against() -> None:
    """`--propose-overlay` for an undocumented JSON Content-Type: the media type with the schema its body
    was judged against (never `{}`, which would leave the body unchecked); `{}` for a body no schema
    judges (text)."""
    judge = _judge("application/json; charset=utf-8")
    findings = []
    for content_type in ("application/json", "application/vnd.api+json", "text/plain"):
        findings += _verdict(judge, _exchange(content_type, {"a": 1}))
    proposal = proposed(disagreements(findings), judge.observations, judge.contract.specs, {"r.yaml"})
    updates = [action["update"] for action in proposal.actions["r.yaml"]]
    each = {"application/json": {"schema": SCHEMA}, "application/vnd.api+json": {"schema": SCHEMA}}
    assert updates == [{**each, "text/plain": {}}] * 2  # the response's, then the request's: one each
