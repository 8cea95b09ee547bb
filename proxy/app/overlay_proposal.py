"""`check --propose-overlay PATH`: the report's disagreements with the specs as reviewable Overlay 1.0
documents (`proxy.core.contract.proposals`), written through the one file writer: to PATH when they
concern one spec, or, when PATH is a folder, one `<spec>.overlay.yaml` per spec in it. Never over an
input of the command, nor over a file in the folder unless `--force`."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from proxy.app.command_inputs import Reads
from proxy.app.report_writing import Shown, save_document
from proxy.core.contract.findings import IDS, ContractJudge
from proxy.core.contract.proposals import overlay_text, proposed
from proxy.core.redaction.book import KNOWN
from proxy.core.reports.disagreements import disagreements
from proxy.core.reports.formats import Report
from proxy.errors import UsageError
from proxy.store.contract_files import spec_files

WHAT = "the proposed overlay"


def refuse_bad_proposal(output: Path, reads: Reads, force: bool, report: Path | None) -> None:
    """Before any work: PATH (a file) may not replace an input, nor be the report."""
    if output.is_dir():
        return  # its files are known at the end: `write_proposal` checks each
    reads.refuse_bad_output(output, WHAT, force)
    if report is not None and os.path.realpath(report) == os.path.realpath(output):
        raise UsageError(f"{output}: -o and --propose-overlay name the same file")


def write_proposal(
    report: Report,
    judge: ContractJudge,
    specs: tuple[Path, ...],
    output: Path,
    reads: Reads,
    force: bool,
    shown: Shown,
) -> None:
    """Propose a change for each disagreement of the report; say what could not be proposed."""
    groups = [group for rule in IDS for group in disagreements(report.of_rule(rule))]
    named = set(spec_files(specs))
    proposal = proposed(groups, judge.observations, judge.contract.specs, named, KNOWN.scrub)
    for line in proposal.skipped:
        shown.note(f"no correction proposed for {line}")
    if not proposal.actions:
        shown.note(f"{output}: not written: no disagreement to propose a correction for")
        return
    if output.is_dir():
        files = {
            output / f"{posixpath.splitext(posixpath.basename(spec))[0]}.overlay.yaml": spec
            for spec in proposal.actions
        }
        for path in files:
            reads.refuse_bad_output(path, WHAT, force, any_file=True)
    elif len(proposal.actions) > 1:
        concerned = ", ".join(sorted(proposal.actions))
        raise UsageError(
            f"{output}: the disagreements concern {len(proposal.actions)} specs ({concerned}): "
            "name a folder to get one overlay per spec"
        )
    else:
        files = {output: next(iter(proposal.actions))}
    for path, spec in files.items():
        actions = proposal.actions[spec]
        save_document(path, overlay_text(spec, actions, proposal.comments.get(spec, ())), WHAT)
        shown.note(f"wrote {path}: {len(actions)} proposed correction(s) of {spec}")
