"""The `check` use case: from the typed request its parser built, the whole workflow: the cassettes
named, where the report and the baseline may go (refused before any work), the rules and the baseline
in force, the run, and every file it writes. The adapter only shows what it is given."""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app.check_run import CheckRun
from proxy.app.command_inputs import Reads, RuleChoice, named_cassettes
from proxy.app.contract_inputs import project_contract, project_specs
from proxy.app.overlay_proposal import refuse_bad_proposal, write_proposal
from proxy.app.project_rules import accepted_baseline
from proxy.app.report_writing import ReportRequest, Shown, rendered, write_report
from proxy.core.rules.config import Baseline
from proxy.errors import UsageError
from proxy.store.cassette_folders import cassette_paths
from proxy.store.rule_files import write_baseline


@dataclass(frozen=True, slots=True)
class CheckRequest:
    """What `check` was asked: its cassettes, its report, its baseline and its rules."""

    paths: tuple[Path, ...] = ()
    examples: bool = False  # the shipped example cassettes too
    report: ReportRequest = field(default_factory=ReportRequest)
    force: bool = False  # -o or --write-baseline may replace a cassette that is not checked
    baseline: Path | None = None  # accepted findings (None: the config's `baseline`)
    write_baseline: Path | None = None  # accept every current finding: write them here, exit 0
    rules: RuleChoice = field(default_factory=RuleChoice)
    specs: tuple[Path, ...] = ()  # published OpenAPI specs each exchange is judged against too
    overlays: tuple[Path, ...] = ()  # corrections applied on top of the specs, in order
    coverage: bool = False  # the report says which operations of the specs the traffic exercised
    min_coverage: float | None = None  # exit 1 when fewer operations (in percent) were exercised
    propose_overlay: Path | None = None  # an Overlay of the changes that would make the specs accept it


def run_check(request: CheckRequest, shown: Shown) -> int:
    """`check`: 1 when an error is found, else 0 (0 too when writing the baseline)."""
    started = time.monotonic()
    inputs = named_cassettes(request.paths, request.examples, "check")
    _refuse_bad_outputs(request, inputs)
    in_force = request.rules.load()
    contract = project_contract(in_force.project, request.specs, request.overlays)
    asked = [
        flag
        for flag, given in (
            ("--coverage", request.coverage),
            ("--min-coverage", request.min_coverage is not None),
            ("--propose-overlay", request.propose_overlay is not None),
        )
        if given
    ]
    if asked and contract is None:
        raise UsageError(
            f"check: {asked[0]} counts the operations of the specs: name them with --spec "
            "(or the config's specs:)"
        )
    baseline = Baseline() if request.write_baseline else accepted_baseline(in_force, request.baseline)
    wanted = request.report
    with CheckRun(
        in_force,
        baseline,
        keep_exchanges=wanted.format == "html",
        accepting=bool(request.write_baseline),
        on_note=shown.note,
        contract=contract,
    ) as checking:
        files = cassette_paths(inputs)
        with shown.progress(len(files)) as progress:
            report = checking.check(files, progress)
        if request.write_baseline:
            count = write_baseline(request.write_baseline, checking.accepted_keys)
            shown.note(f"wrote {request.write_baseline}: {count} accepted finding(s)")
            return 0
        from proxy.core.rules.path_shapes import endpoint_label

        label = functools.partial(endpoint_label, in_force.ruleset.index)
        if request.coverage and contract is not None:
            report = dataclasses.replace(report, coverage=contract.coverage)
        chunks = rendered(
            report, wanted.format, label, lambda: checking.exchanges, wanted.per_rule, wanted.summary_only
        )
        write_report(chunks, wanted.output, shown)
        if request.propose_overlay is not None and contract is not None:
            reads = Reads((*inputs, *request.specs, *request.overlays), request.rules, request.baseline)
            specs = tuple(project_specs(in_force.project, request.specs))
            write_proposal(report, contract, specs, request.propose_overlay, reads, request.force, shown)
        if not wanted.summary_only:
            shown.note(f"checked {report.exchanges} exchanges in {time.monotonic() - started:.1f} s")
        if request.min_coverage is not None and contract is not None:
            percent = contract.coverage.percent
            if percent < request.min_coverage:
                shown.note(
                    f"contract coverage {percent:.1f}% is below --min-coverage {request.min_coverage:g}% "
                    f"({contract.coverage.exercised} of {len(contract.coverage.operations)} operations)"
                )
                return 1
        return 1 if report.failed else 0


def _refuse_bad_outputs(request: CheckRequest, inputs: list[Path]) -> None:
    """Neither the report nor the baseline written may replace an input (the baseline the config
    names is the one `--write-baseline` rewrites), nor each other."""
    output, accepted = request.report.output, request.write_baseline
    reads = Reads((*inputs, *request.specs, *request.overlays), request.rules, request.baseline)
    if output is not None:
        reads.refuse_bad_output(output, "the report", request.force)
    if request.propose_overlay is not None:
        refuse_bad_proposal(request.propose_overlay, reads, request.force, output)
    if accepted is not None:
        Reads(
            (*inputs, *request.specs, *request.overlays), request.rules, request.baseline, with_baseline=False
        ).refuse_bad_output(accepted, "the baseline", request.force)
        if output is not None and os.path.realpath(output) == os.path.realpath(accepted):
            raise UsageError(f"{output}: -o and --write-baseline name the same file")
