"""Findings spooled to disk read back exactly as the in-memory groups hold them."""

from __future__ import annotations

import os

from proxy.core.reports.finding_groups import FindingGroups
from proxy.core.rules.findings import Finding, Severity
from proxy.store.finding_spool import FindingSpool

RULES: list[tuple[str, Severity]] = [("b.rule", "warning"), ("a.rule", "error"), ("c.rule", "info")]


def findings(count: int) -> list[Finding]:
    """Findings over ascending exchanges, several rules firing per exchange, in changing order."""
    made = []
    for exchange in range(count):
        for turn in range(exchange % 3 + 1):
            rule, severity = RULES[(exchange + turn) % len(RULES)]
            made.append(
                Finding(
                    exchange, "GET", "/v2/x", f"/v2/x?{exchange}", rule, severity, "s", "m", "w", "e", "f"
                )
            )
    return made


def test_a_spool_past_its_limit_reads_back_what_memory_holds() -> None:
    """Counts, rules, each rule's findings and the order found: the same from disk as from memory."""
    made = findings(500)
    memory = FindingGroups(made)
    spool = FindingSpool(held=7)
    try:
        spool.add_all(made)
        assert spool._batches, "the spool went to disk"
        assert spool.counts() == memory.counts()
        assert spool.rules() == memory.rules()
        assert spool.severities_by_rule() == memory.severities_by_rule()
        for rule, _ in RULES:
            assert list(spool.of_rule(rule)) == list(memory.of_rule(rule))
        assert list(spool) == list(memory) == made
        assert len(spool) == len(made)
    finally:
        spool.close()


def test_a_spool_on_disk_has_no_name_so_no_ending_leaves_it() -> None:
    """Its file is nameless while it is written (a SIGKILL can leave nothing), and closed by `close`."""
    spool = FindingSpool(held=2)
    spool.add_all(findings(20))
    assert spool._file is not None
    descriptor = spool._file.fileno()
    named = os.readlink(f"/proc/self/fd/{descriptor}")
    assert named.endswith(" (deleted)"), named
    assert list(spool) == findings(20)
    file = spool._file
    spool.close()
    assert file.closed  # its space freed now
