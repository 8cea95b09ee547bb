"""Findings spooled to disk read back exactly as the in-memory groups hold them."""

from __future__ import annotations

from pathlib import Path

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
        assert spool._files, "the spool went to disk"
        assert spool.counts() == memory.counts()
        assert spool.rules() == memory.rules()
        assert spool.severities_by_rule() == memory.severities_by_rule()
        for rule, _ in RULES:
            assert list(spool.of_rule(rule)) == list(memory.of_rule(rule))
        assert list(spool) == list(memory) == made
        assert len(spool) == len(made)
    finally:
        spool.close()


def test_closing_a_spool_removes_its_files() -> None:
    spool = FindingSpool(held=2)
    spool.add_all(findings(20))
    folders = {path.parent for path in spool._files.values()}
    assert folders and all(folder.is_dir() for folder in folders)
    spool.close()
    assert not any(Path(folder).exists() for folder in folders)
