"""The report of a live session (`record`, `spy`) as its command asked for it: where it goes is
refused now, before serving, as `check` refuses it (never a folder, an input or a cassette); at stop it
is written as `check` writes its own, and the exit status follows `--fail-on`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app.command_inputs import Reads, RuleChoice
from proxy.app.live_report import FailOn, LiveReport, fails
from proxy.app.report_writing import Shown, rendered, write_report
from proxy.core.rules.config import Baseline
from proxy.store.rule_files import load_baseline


@dataclass(frozen=True, slots=True)
class SessionReportRequest:
    """A live session's report options: none given, no report is kept."""

    format: str | None = None
    output: Path | None = None
    per_rule: int = 10
    summary_only: bool = False
    fail_on: FailOn | None = None
    rules: RuleChoice = field(default_factory=RuleChoice)
    ca_bundle: Path | None = None  # an input the report must not replace

    @property
    def wanted(self) -> bool:
        return self.format is not None or self.output is not None or self.fail_on is not None

    @property
    def written(self) -> bool:
        return self.format is not None or self.output is not None


def open_session_report(asked: SessionReportRequest, name: str, inputs: Sequence[Path]) -> LiveReport | None:
    """The report a session keeps (`name`: the cassette, or the upstream for `spy`), or None when
    none of its options was given."""
    if not asked.wanted:
        return None
    if asked.output is not None:
        Reads(tuple(inputs), asked.rules, ca_bundle=asked.ca_bundle).refuse_bad_output(asked.output)
    in_force = asked.rules.load()
    baseline_path = in_force.project.resolve(in_force.project.config.baseline)
    baseline = load_baseline(baseline_path) if baseline_path else Baseline()
    keep = asked.format == "html"
    contract = bool(asked.rules.specs or in_force.project.specs)
    return LiveReport(
        in_force.ruleset, in_force.project.config, baseline, name, keep_exchanges=keep, contract=contract
    )


def finish_session_report(
    report: LiveReport, asked: SessionReportRequest, shown: Shown, title: str, served: bool
) -> int:
    """At stop: the report written (when the session served at all and a format or file was asked
    for), and the exit status `--fail-on` asks for."""
    if served and asked.written:
        from proxy.core.rules.path_shapes import endpoint_label

        chunks = rendered(
            report.report(),
            asked.format or "text",
            functools.partial(endpoint_label, report.ruleset.index),
            lambda: report.exchanges,
            asked.per_rule,
            asked.summary_only,
            title,
        )
        write_report(chunks, asked.output, shown)
    return 1 if fails(report.report(), asked.fail_on) else 0
