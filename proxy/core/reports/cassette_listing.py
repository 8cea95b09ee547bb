"""`cassette list`, `grep` and `show` as documents: the exchanges of cassettes with their findings as an
aligned table or JSON, and one exchange as YAML (its file's own lines when it has them) or JSON. Each
value goes through its format's escaping (`visible` in the table and the text, `json_text` in JSON).
Pure: returns the text, the adapter prints it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from proxy.core.cassette.document import Cassette, exchange_to_document, json_bodies_as_text
from proxy.core.model.exchange import Exchange
from proxy.core.reports.columns import table
from proxy.core.reports.escaping import json_text, visible
from proxy.core.reports.yaml_text import yaml_text
from proxy.core.rules.citation import labelled
from proxy.core.rules.findings import Finding

COUNTED = (("error", "errors"), ("warning", "warnings"), ("info", "info"))


class ListedCassette(Protocol):
    """One cassette of a listing: its file (shown as `str` gives it), its exchanges, their findings by
    index, the indexes shown."""

    @property
    def path(self) -> object: ...
    @property
    def cassette(self) -> Cassette: ...
    @property
    def found(self) -> Mapping[int, list[Finding]]: ...
    @property
    def picked(self) -> Sequence[int]: ...


def listing_document(cassettes: Sequence[ListedCassette], format_name: str, dated: bool) -> str:
    """The listing as JSON (`{"exchanges": [...]}`) or as a table (`format_name` "text")."""
    rows = [row for listed in cassettes for row in _rows(listed)]
    if format_name == "json":
        return json_text({"exchanges": rows}, indent=2) + "\n"
    return "".join(line + "\n" for line in _table(rows, len(cassettes) > 1, dated))


def _rows(listed: ListedCassette) -> list[dict[str, Any]]:
    rows = []
    for index in listed.picked:
        exchange = listed.cassette.exchanges[index]
        mine = listed.found.get(index, [])
        rows.append(
            {
                "cassette": str(listed.path),
                "index": index,
                "method": exchange.request.method,
                "path": exchange.request.path,
                "query": exchange.request.query,
                "status": exchange.response.status,
                "findings": len(mine),
                **{plural: sum(1 for item in mine if item.severity == kind) for kind, plural in COUNTED},
                "recorded_at": exchange.recorded_at,
                "confirmed_at": exchange.confirmed_at,  # max_age counts from the later of the two
            }
        )
    return rows


def _table(rows: list[dict[str, Any]], several: bool, dated: bool) -> list[str]:
    """The rows as an aligned table: ERRORS, WARNINGS and INFO count the exchange's findings of each
    severity; CASSETTE with several cassettes, RECORDED and CONFIRMED (the cassette's last
    confirmation, which the age counts from when it is later) with --stale."""
    header = [*(["CASSETTE"] if several else []), "INDEX", "METHOD", "STATUS", "ERRORS", "WARNINGS", "INFO"]
    header += [*(["RECORDED", "CONFIRMED"] if dated else []), "PATH"]
    first_number = header.index("INDEX")
    right = {first_number, header.index("STATUS"), *range(header.index("ERRORS"), header.index("INFO") + 1)}
    cells = []
    for row in rows:
        counts = [str(row[plural]) for _, plural in COUNTED]
        line = [*([row["cassette"]] if several else []), str(row["index"]), row["method"], str(row["status"])]
        dates = [row["recorded_at"] or "-", row["confirmed_at"] or "-"] if dated else []
        line += [*counts, *dates, _target(row)]
        cells.append([visible(cell) for cell in line])
    return [visible(text) for text in table(header, cells, right)]


def _target(row: dict[str, Any]) -> str:
    return f"{row['path']}?{row['query']}" if row["query"] else str(row["path"])


def exchange_json(index: int, exchange: Exchange, findings: Sequence[Finding]) -> str:
    """`cassette show --format json`: the exchange as its cassette document has it, and its findings."""
    document = {"index": index, **exchange_to_document(exchange)}
    document["findings"] = [finding.to_json() for finding in findings]
    return json_text(document, indent=2) + "\n"


def exchange_text(index: int, exchange: Exchange, findings: Sequence[Finding], stored: str | None) -> str:
    """`cassette show`: the exchange as its cassette file holds it (its own lines, hand edits and all;
    `stored` None: as it will be written), then its findings with their sources (documentation sections,
    or the spec's places)."""
    if stored is None:  # not in the file yet: its recording's journal holds it
        text = "# not yet in the file (a recording's journal holds it): shown as it will be written\n"
        text += yaml_text(json_bodies_as_text({"index": index, **exchange_to_document(exchange)}))
    else:  # the file's own lines, hand edits and all; a control character is shown as its escape
        text = f"index: {index}\n" + "".join(visible(line) + "\n" for line in stored.splitlines())
    lines = [f"# {len(findings)} finding(s)"]
    for finding in findings:
        lines += [f"# {finding_line(finding)}", visible(f"#     {labelled(finding.rule, finding.section)}")]
    return text + "".join(line + "\n" for line in lines)


def finding_line(finding: Finding) -> str:
    """One finding on one line (`visible`: whatever the exchange held)."""
    return visible(
        f"{finding.severity} {finding.rule}: #{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}"
    )
