"""`commerce-proxy cassette list`, `show` and `grep`: the exchanges of cassettes with their findings,
as a table, YAML or JSON. Nothing is written; the use cases in `proxy.app.cassette_reading` read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proxy.app.cassette_reading import ListRequest, ShowRequest, list_exchanges, show_exchange
from proxy.cli.inputs import rule_choice
from proxy.cli.output import say, write_document
from proxy.core.cassette.document import Cassette, exchange_to_document, json_bodies_as_text
from proxy.core.editing.selection import ExpressionError, Selection, parse_selection
from proxy.core.reports.columns import table
from proxy.core.reports.escaping import json_text, visible
from proxy.core.reports.yaml_text import yaml_text
from proxy.core.rules.findings import Finding

COUNTED = (("error", "errors"), ("warning", "warnings"), ("info", "info"))


def _rows(
    path: Path, cassette: Cassette, found: dict[int, list[Finding]], picked: Sequence[int]
) -> list[dict[str, Any]]:
    rows = []
    for index in picked:
        exchange = cassette.exchanges[index]
        mine = found.get(index, [])
        rows.append(
            {
                "cassette": str(path),
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


def _print_rows(rows: list[dict[str, Any]], several: bool, dated: bool = False) -> None:
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
    for text in table(header, cells, right):
        say(text)


def _target(row: dict[str, Any]) -> str:
    return f"{row['path']}?{row['query']}" if row["query"] else str(row["path"])


def run_list(arguments: argparse.Namespace) -> int:
    """`cassette list`: a table (or JSON) of every exchange with its findings count (`--stale`: only
    those recorded longer ago than max_age)."""
    return _table(arguments, None, arguments.stale)


def run_show(arguments: argparse.Namespace) -> int:
    """`cassette show`: one exchange as its cassette file holds it (its own lines, hand edits and all),
    then its findings with their documentation sections."""
    as_json = arguments.format == "json"
    shown = show_exchange(ShowRequest(arguments.path, arguments.index, not as_json, rule_choice(arguments)))
    document = {"index": shown.index, **exchange_to_document(shown.exchange)}
    if as_json:
        document["findings"] = [finding.to_json() for finding in shown.findings]
        write_document(json_text(document, indent=2) + "\n")
        return 0
    if shown.stored is None:  # not in the file yet: its recording's journal holds it
        say("# not yet in the file (a recording's journal holds it): shown as it will be written")
        write_document(yaml_text(json_bodies_as_text(document)))
    else:  # the file's own lines, hand edits and all; a control character is shown as its escape
        lines = shown.stored.splitlines()
        write_document(f"index: {shown.index}\n" + "".join(visible(line) + "\n" for line in lines))
    say(f"# {len(shown.findings)} finding(s)")
    for finding in shown.findings:
        say(f"# {finding_line(finding)}")
        say(f"#     documentation: {finding.citation}")
    return 0


def run_grep(arguments: argparse.Namespace) -> int:
    """`cassette grep`: the exchanges an expression selects, as `list` shows them; exit 1 if none."""
    return _table(arguments, selection_of(arguments.expression, "EXPR"), None)  # grep has no --stale


def _table(arguments: argparse.Namespace, selection: Selection | None, stale: str | None) -> int:
    listing = list_exchanges(ListRequest(arguments.path, selection, stale, rule_choice(arguments)))
    rows: list[dict[str, Any]] = []
    for listed in listing.cassettes:
        rows.extend(_rows(listed.path, listed.cassette, listed.found, listed.picked))
    if arguments.format == "json":
        write_document(json.dumps({"exchanges": rows}, indent=2) + "\n")
    elif rows or selection is None:
        _print_rows(rows, len(listing.cassettes) > 1, dated=listing.dated)
    return 0 if rows or selection is None else 1


def selection_of(text: str, option: str) -> Selection:
    try:
        return parse_selection(text)
    except ExpressionError as error:
        raise ExpressionError(f"{option} {text!r}: {error}") from None


def finding_line(finding: Finding) -> str:
    """One finding on one line (`visible`: whatever the exchange held)."""
    return visible(
        f"{finding.severity} {finding.rule}: #{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}"
    )
