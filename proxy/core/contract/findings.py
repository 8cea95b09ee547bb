"""The contract's rules (`contract.*`) and its findings, made as every rule's are: the severity in force
from the project config, the baseline and the reports alike. No I/O.

A contract finding's `section` is its source, its layer: the spec file and the JSON pointer of the schema
or operation that said so, and the overlay that changed that place when one did
(`specs/carts.yaml#/components/schemas/CartItem/required (overlay overrides/carts.yaml)`).

Precedence: the documented rules (`rules/`) win over the spec. An operation the rules document is judged
by them alone: the contract does not judge it (the smallest honest form: the rules judge every field they
know of those operations, and say nothing of the fields they do not, so the spec is silent there too).

Several specs knowing the same operation: the exchange is judged against each (`Contract.judge_all`), and
a disagreement is reported only when every one of them disagrees, from the first spec by file name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from proxy.core.contract.coverage import Coverage
from proxy.core.contract.judge import Contract, Disagreement
from proxy.core.contract.proposals import Observations
from proxy.core.contract.schemas import Location
from proxy.core.model.exchange import Exchange
from proxy.core.reports.disagreements import key_of
from proxy.core.rules.findings import Finding, Setting
from proxy.core.rules.ruleset import Rule, Section

SOURCE = "the published API specification (its file and JSON pointer)"


SILENCE = (
    "or accept it in a baseline (`check --write-baseline`), or give it another severity (`off` too) in "
    "the project config's `severity` table."
)


def _rule(
    rule_id: str, severity: Setting, message: str, what: str, names: str, overlay: str, example: str
) -> Rule:
    """A contract rule; its description says what it checks, which place of the spec its finding names
    as its source, and how to silence it (an overlay's change, the baseline, a severity)."""
    assert severity != "off"
    return Rule(
        id=rule_id,
        severity=severity,
        section=SOURCE,
        message=message + ": {where}: expected {expected}, found {found}",
        applies_to=("any",),
        check="contract",
        responses="any",
        source="proxy/core/contract/findings.py",
        description=f"{what} Its source is the spec file and JSON pointer of {names}, and the overlay "
        f"that changed that place when one did. Where the service is right, silence it with an overlay: "
        f"{overlay}; {SILENCE}",
        example=example,
    )


RULES: tuple[Rule, ...] = (
    _rule(
        "contract.response.status",
        "warning",
        "the spec does not document this status for the operation",
        "The service answered with a status the operation's `responses` do not list (nor a range such as "
        "`4XX`, nor `default`).",
        "the operation's `responses`",
        "the status added to the operation's `responses`",
        "GET /v2/carts/abc: the spec does not document this status for the operation "
        "(GET /v2/carts/{cartID}): status: expected one of 200, 401, found 500",
    ),
    _rule(
        "contract.response.content-type",
        "warning",
        "the response's content type is not one the spec documents",
        "The answer's Content-Type is not among the media types the documented response lists.",
        "the documented response's `content`",
        "the media type added to that `content`",
        "GET /v2/carts/abc: the response's content type is not one the spec documents "
        "(GET /v2/carts/{cartID}): headers.Content-Type: expected one of application/json, found text/html",
    ),
    _rule(
        "contract.response.header",
        "warning",
        "a response header the spec requires is missing",
        "The documented response marks a header `required: true` and the answer has none.",
        "the required header, under the response's `headers`",
        "the header's `required: false`",
        "GET /v2/carts/abc: a response header the spec requires is missing (GET /v2/carts/{cartID}): "
        "headers.ETag: expected present (required), found absent",
    ),
    _rule(
        "contract.response.schema",
        "error",
        "the response body breaks the spec's schema",
        "The answer's JSON body does not conform to the schema the spec documents for this status and media "
        "type (one finding per place, at most five per exchange).",
        "the schema keyword the body broke (`.../properties/id/format`), in the file that writes "
        "it (a fragment only a `$ref` reaches, too)",
        "that keyword relaxed or removed (`check --propose-overlay` writes the change)",
        "GET /v2/carts/abc: the response body breaks the spec's schema (GET /v2/carts/{cartID}): "
        'body.data.id: expected the schema\'s `format` met, found "x" is not a "uuid"',
    ),
    _rule(
        "contract.response.body-missing",
        "error",
        "a success answer has no body where the spec documents a JSON one",
        "The service answered with a success (2xx, not 204) and an empty body, although the documented "
        "response has a JSON media type with a schema.",
        "the documented JSON media type, under the response's `content`",
        "that media type's schema removed (or the status documented without content)",
        "GET /v2/carts/abc: a success answer has no body where the spec documents a JSON one "
        "(GET /v2/carts/{cartID}): body: expected a body (application/json, the spec documents its "
        "schema), found no body",
    ),
    _rule(
        "contract.response.body-not-json",
        "error",
        "the response body does not parse as the JSON its Content-Type says",
        "The answer's Content-Type is a JSON media type (`application/json`, `...+json`) the spec "
        "documents, and its body does not parse as JSON.",
        "the documented JSON media type, under the response's `content`",
        "that media type replaced by the one the service sends",
        "GET /v2/carts/abc: the response body does not parse as the JSON its Content-Type says "
        "(GET /v2/carts/{cartID}): body: expected JSON, as its Content-Type application/json says, "
        "found a body that does not parse as JSON",
    ),
    _rule(
        "contract.response.body-unexpected",
        "warning",
        "a 204 or 304 answer has a body",
        "HTTP gives a 204 (No Content) or 304 (Not Modified) answer no body; this one has one.",
        "the documented 204 or 304 response (or the operation's `responses`)",
        "the status the service answers instead documented",
        "DELETE /v2/carts/abc: a 204 or 304 answer has a body (DELETE /v2/carts/{cartID}): body: "
        "expected no body (a 204 answer has none), found a body (json)",
    ),
    _rule(
        "contract.request.invalid-accepted",
        "error",
        "the service accepted a request body that breaks the spec's schema",
        "The service answered a write (POST, PUT, PATCH) with a success although its JSON body breaks "
        "the request schema the spec documents, or its body does not parse as the JSON its Content-Type "
        "says: it should have refused it (as feature.update.invalid-accepted says of the documented "
        "update).",
        "the request schema's keyword the body broke (or the JSON media type it does not parse as)",
        "that keyword relaxed or removed (`check --propose-overlay` writes the change)",
        "POST /v2/carts: the service accepted a request body that breaks the spec's schema (POST /v2/carts): "
        'request.body.data: expected the schema\'s `required` met, found "type" is a required property',
    ),
    _rule(
        "contract.request.body-missing",
        "error",
        "the service accepted a write without the body the spec requires",
        "The service answered a write (POST, PUT, PATCH) with a success although it had no body and the "
        "operation's `requestBody` is `required: true`: it should have refused it.",
        "the `required` of the operation's `requestBody`",
        "the request body's `required: false`",
        "POST /v2/carts: the service accepted a write without the body the spec requires (POST /v2/carts): "
        "request.body: expected a body (the request body is required), found no body",
    ),
    _rule(
        "contract.request.content-type",
        "warning",
        "the service accepted a request body in a media type the spec does not list",
        "The service answered a write (POST, PUT, PATCH) with a success although its Content-Type is not "
        "among the media types of the operation's `requestBody`.",
        "the `requestBody`'s `content`",
        "the media type added to that `content`",
        "POST /v2/carts: the service accepted a request body in a media type the spec does not list "
        "(POST /v2/carts): request.headers.Content-Type: expected one of application/json, found text/plain",
    ),
    _rule(
        "contract.unsupported",
        "info",
        "a schema of the spec the validator cannot handle is not checked",
        "A schema node the validator cannot read (a type JSON Schema lacks, a string where a schema goes, "
        "a pattern it cannot compile). It is said once, at its own place in the spec, and only what that "
        "node governs goes unjudged: the rest of the body is checked (a pattern, which the meta-schema "
        "cannot tell, leaves the whole schema it is in unjudged).",
        "the node the validator cannot read",
        "that schema replaced by one JSON Schema can express",
        "GET /v2/files: a schema of the spec the validator cannot handle is not checked (GET /v2/files): "
        "schema: expected a schema the validator can compile, found "
        '"file" is not valid under any of the schemas',
    ),
)
BY_ID = {rule.id: rule for rule in RULES}
SECTIONS = (  # what the rules listing shows as the source these rules cite
    Section(
        "contract",
        SOURCE,
        "Checked with `--spec` (and `specs:` in the project config). Each finding names the spec file and "
        "the JSON pointer of the operation or schema keyword the traffic disagrees with, and the overlay "
        "that changed that place when one did. The documented rules win over the spec: an operation they "
        "document is judged by them alone. Where the service is right, an overlay corrects the spec "
        "(`check --propose-overlay` writes one to review); a finding accepted for now goes in the "
        "baseline; the project config's `severity` table sets each rule's severity, per endpoint too.",
        "proxy/core/contract/findings.py",
    ),
)
IDS = tuple(BY_ID)

Severity = Callable[[str, Setting, str, str], Setting]  # RuleConfig.severity


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the contract made of one exchange: whether a spec knows its operation, and its findings."""

    known: bool
    findings: list[Finding]


def source_of(contract: Contract, disagreement: Disagreement) -> str:
    """`file#pointer`, and the overlay that changed that place when one did."""
    return located(contract, disagreement.location)


def located(contract: Contract, location: Location) -> str:
    """A place of the specs as every report names it: `file#pointer (overlay FILE)`."""
    name, pointer = location
    overlay = contract.overlay_at(location)
    return f"{name}#{pointer}" + (f" (overlay {overlay})" if overlay else "")


class ContractJudge:
    """What a checker asks of the contract for each exchange (see `proxy.core.rules.engine.Checker`)."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.coverage = Coverage(contract.index.operations())  # fed by every verdict
        self.observations = Observations()  # what each disagreement's traffic had, to propose a change

    def restart_tally(self) -> None:
        """Count from nothing (a forked child counting its part of the traffic)."""
        self.coverage = self.coverage.emptied()
        self.observations = Observations()

    def tally(self) -> tuple[Coverage, Observations]:
        """What the verdicts counted (picklable: it crosses back from a child)."""
        return self.coverage, self.observations

    def merge_tally(self, other: tuple[Coverage, Observations]) -> None:
        """Add what another process's copy of this judge counted."""
        self.coverage.merge(other[0])
        self.observations.merge(other[1])

    def verdict(
        self, exchange: Exchange, index: int, documented: bool, severity: Severity, cassette: str | None
    ) -> Verdict:
        """The contract findings of one exchange; none for an operation the documented rules judge."""
        request = exchange.request
        operations = self.contract.operations(request.method, request.path)
        if not operations:
            self.coverage.unknown_seen(request.method, request.path)
            return Verdict(False, [])
        for known in operations:  # every spec that knows the operation had it exercised
            self.coverage.seen(known, exchange.response.status)
        if documented:
            return Verdict(True, [])
        findings = []
        operation, disagreements = self.contract.judge_all(exchange, operations)
        for disagreement in disagreements:
            rule = BY_ID[disagreement.rule]
            chosen = severity(rule.id, rule.severity, request.method, request.path)
            if chosen == "off":
                continue
            finding = Finding(
                exchange=index,
                method=request.method,
                path=request.path,
                target=request.target,
                rule=rule.id,
                severity=chosen,
                section=source_of(self.contract, disagreement),
                message=f"{rule.message.partition(':')[0]} ({operation}): {disagreement.where}: "
                f"expected {disagreement.expected}, found {disagreement.found}",
                where=disagreement.where,
                expected=disagreement.expected,
                found=disagreement.found,
                cassette=cassette,
            )
            self.observations.add(key_of(finding), disagreement)
            findings.append(finding)
        return Verdict(True, findings)
