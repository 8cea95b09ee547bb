"""What `verify` found, and its reports: text for people, JSON for tools, JUnit (one test case per
exchange) for CI boards, Markdown for a pull-request comment. Volatile differences are counted always
and listed only when asked (`-v`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from proxy.core.drift.compare import Difference, Tier, is_drift, shown, tier_counts, tiers_phrase
from proxy.core.drift.report import difference_line, difference_row, grouped, table_head
from proxy.core.model.exchange import Exchange
from proxy.core.reports.escaping import json_text, markdown_code, visible, xml_attribute, xml_text
from proxy.core.rules.findings import Finding

REFUSALS = frozenset({401, 403})  # the service refuses the credentials: Unauthorized, Forbidden
# RFC 6749 section 5.2: a token endpoint's 400 with these errors refuses the client or its grant.
OAUTH_REFUSALS = frozenset({"invalid_client", "invalid_grant", "unauthorized_client"})


def token_refusal(status: int, error: str | None) -> bool:
    """Whether a token endpoint's answer refuses the credentials: 401, 403, or an OAuth refusal."""
    return status in REFUSALS or (status == 400 and error in OAUTH_REFUSALS)


def answer_error(body: bytes) -> str | None:
    """What an error answer calls its error: OAuth's `error` (RFC 6749 section 5.2), else the first
    `errors[].title` of a JSON:API answer; None when it names none."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, str) and error:
        return error[:80]
    errors = document.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        title = errors[0].get("title")
        return title[:80] if isinstance(title, str) and title else None
    return None


@dataclass(slots=True)
class Verified:
    """One recorded exchange: what the live service answers now and how it differs, or why it was
    not sent."""

    cassette: str
    index: int
    request: str
    differences: list[Difference] = field(default_factory=list)
    live: Exchange | None = None  # as the service sent it: what is compared, checked and shown
    kept: Exchange | None = None  # the same at the cassette's origin: what `--update` writes
    skipped: str | None = None
    recorded_status: int | None = None

    @property
    def drifted(self) -> bool:
        return is_drift(self.differences)

    @property
    def to_write(self) -> Exchange | None:
        """What `--update` writes: the live answer at the cassette's origin (as sent when none moved)."""
        return self.kept if self.kept is not None else self.live


@dataclass(slots=True)
class Verification:
    results: list[Verified]
    findings: list[Finding]

    def counts(self) -> dict[Tier, int]:
        return tier_counts(difference for result in self.results for difference in result.differences)

    @property
    def sent(self) -> int:
        return sum(1 for result in self.results if result.skipped is None)

    def refused(self) -> str | None:
        """Why the live service refused our credentials rather than changed, or None.

        The rule: every request re-sent whose recording was a success (2xx or 3xx) now answers 401 or
        403. One endpoint that starts to ask for other credentials while the rest still answer is a
        change of the service, reported as drift; the same answer on every request is the token."""
        succeeded = [
            result
            for result in self.results
            if result.live is not None and result.recorded_status is not None and result.recorded_status < 400
        ]
        answered = {result.live.response.status for result in succeeded if result.live is not None}
        if not succeeded or not answered <= REFUSALS:
            return None
        statuses = "/".join(str(status) for status in sorted(answered))
        return (
            f"{statuses} on all {len(succeeded)} re-sent requests that recorded a success, "
            f"such as {succeeded[0].request}"
        )

    def failed(self, strict: bool = False) -> bool:
        """Breaking drift (or, strict, data drift too)."""
        counts = self.counts()
        return bool(counts["breaking"] or (strict and counts["data"]))


def verify_json(verification: Verification, verbose: bool = False) -> str:
    drift = [
        {
            "cassette": result.cassette,
            "index": result.index,
            "request": result.request,
            **item.to_json(),
        }
        for result in verification.results
        for item in shown(result.differences, verbose)
    ]
    skipped = [
        {"cassette": item.cassette, "index": item.index, "request": item.request, "reason": item.skipped}
        for item in verification.results
        if item.skipped is not None
    ]
    document = {
        "exchanges": verification.sent,
        "drift": drift,
        "counts": verification.counts(),
        "skipped": skipped,
        "findings": [finding.to_json() for finding in verification.findings],
    }
    return json_text(document, indent=2) + "\n"


def verify_text(verification: Verification, verbose: bool = False) -> str:
    lines = [summary(verification)]
    for result in verification.results:
        differences = grouped(shown(result.differences, verbose))
        if differences:
            lines.append(f"{result.cassette} #{result.index} {result.request}")
            lines += [difference_line(item) for item in differences]
    lines += [_finding_line(finding) for finding in verification.findings]
    skipped = [result for result in verification.results if result.skipped is not None]
    if skipped:
        first = skipped[0]
        lines.append(
            f"not sent: {len(skipped)} exchange(s), such as {first.cassette} #{first.index} "
            f"{first.request}: {first.skipped}"
        )
    return "".join(visible(line) + "\n" for line in lines)


def verify_markdown(verification: Verification, verbose: bool = False) -> str:
    counts = verification.counts()
    mark = "❌" if counts["breaking"] else "⚠️" if counts["additive"] or counts["data"] else "✅"
    lines = [f"## {mark} commerce-proxy verify", "", summary(verification), ""]
    rows = [
        difference_row(f"{markdown_code(result.cassette)} #{result.index}", result.request, item)
        for result in verification.results
        for item in grouped(shown(result.differences, verbose))
    ]
    if rows:
        lines += [*table_head("recorded", "live"), *rows, ""]
    lines += [f"- {markdown_code(_finding_line(finding))}" for finding in verification.findings]
    return "\n".join(lines).rstrip("\n") + "\n"


def verify_junit(verification: Verification, strict: bool = False) -> Iterator[str]:
    """One test case per exchange: it fails on breaking drift (with strict, data drift too)."""
    failing: tuple[Tier, ...] = ("breaking", "data") if strict else ("breaking",)
    cases = verification.results
    failures = sum(1 for result in cases if any(item.tier in failing for item in result.differences))
    skipped = sum(1 for result in cases if result.skipped is not None)
    counted = f'tests="{len(cases)}" failures="{failures}"'
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f'<testsuites name="commerce-proxy" {counted}>\n'
    yield f'  <testsuite name="commerce-proxy verify" {counted} errors="0" skipped="{skipped}">\n'
    for result in cases:
        name = xml_attribute(f"#{result.index} {result.request}")
        yield f"    <testcase classname={xml_attribute(result.cassette)} name={name}"
        bad = [item for item in result.differences if item.tier in failing]
        rest = [item for item in result.differences if item.tier not in failing and item.tier != "volatile"]
        if result.skipped is None and not bad and not rest:
            yield " />\n"
            continue
        yield ">\n"
        if result.skipped is not None:
            yield f"      <skipped message={xml_attribute(result.skipped)} />\n"
        if bad:
            message = xml_attribute(failure_message(bad, failing))
            yield f'      <failure type="drift" message={message}>{_lines(bad)}</failure>\n'
        if rest:
            yield f"      <system-out>{_lines(rest)}</system-out>\n"
        yield "    </testcase>\n"
    yield "  </testsuite>\n</testsuites>\n"


MESSAGE_GROUPS = 3  # a failure's message names this many; its body lists them all


def failure_message(bad: list[Difference], failing: tuple[Tier, ...]) -> str:
    """A JUnit failure's one-line message, said as the text report and the failure's body say it:
    `12 breaking: breaking json.data[*].name missing (12x)`, the counts of the summary, then the first
    grouped differences (the same difference in every record of a list is one)."""
    counts = tier_counts(bad)
    phrase = ", ".join(f"{counts[tier]} {tier}" for tier in failing if counts[tier])
    groups = grouped(bad)
    said = [" ".join(difference_line(item).split(maxsplit=1)) for item in groups[:MESSAGE_GROUPS]]
    more = len(groups) - MESSAGE_GROUPS
    return f"{phrase}: {'; '.join(said)}" + (f"; and {more} more" if more > 0 else "")


def refused_report(form: str, reason: str) -> str:
    """The report, in the format asked for, of a run whose credentials the service refused (`reason`:
    the line `verify` prints): no drift, so a job that uploads its report has one saying why."""
    line = f"not verified: {reason}"
    if form == "json":
        document = {
            "refused": reason,
            "exchanges": 0,
            "drift": [],
            "counts": dict.fromkeys(("breaking", "additive", "data", "volatile"), 0),
            "skipped": [],
            "findings": [],
        }
        return json_text(document, indent=2) + "\n"
    if form == "markdown":
        return f"## ⛔ commerce-proxy verify\n\n{markdown_code(line)}\n"
    if form == "junit":
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<testsuites name="commerce-proxy" tests="1" failures="0" errors="1">\n'
            '  <testsuite name="commerce-proxy verify" tests="1" failures="0" errors="1" skipped="0">\n'
            '    <testcase classname="commerce-proxy" name="credentials">\n'
            f'      <error type="credentials refused" message={xml_attribute(line)} />\n'
            "    </testcase>\n  </testsuite>\n</testsuites>\n"
        )
    return visible(line) + "\n"


def summary(verification: Verification) -> str:
    tiers = tiers_phrase(verification.counts())
    found = len(verification.findings)
    return (
        f"verified {verification.sent} exchanges against the live service: {tiers}; "
        f"{found} finding(s) on the live answers"
    )


def _finding_line(finding: Finding) -> str:
    return (
        f"{finding.severity} {finding.rule} {finding.cassette} {finding.number} "
        f"{finding.method} {finding.target}: {finding.message}"
    )


def _lines(items: list[Difference]) -> str:
    """The differences as XML character data, one line each, the same difference in every record of a
    list one line (`json.data[*].name missing (12x)`) as in the text report."""
    return "\n".join(xml_text(difference_line(item).strip()) for item in grouped(items))
