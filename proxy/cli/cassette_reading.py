"""`commerce-proxy cassette list`, `show` and `grep`: the exchanges of cassettes with their findings,
as a table, YAML or JSON. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proxy.app.check_run import check_cassette
from proxy.cli.inputs import load_rules_in_force
from proxy.cli.output import say, write_document
from proxy.core.cassette.document import Cassette, exchange_to_document, json_bodies_as_text
from proxy.core.editing.edits import checked_indexes
from proxy.core.editing.selection import ExpressionError, Selection, Subject, parse_selection
from proxy.core.model.exchange import Exchange
from proxy.core.reports.columns import table
from proxy.core.reports.escaping import json_text, visible
from proxy.core.reports.yaml_text import yaml_text
from proxy.core.rules.findings import Finding
from proxy.core.rules.freshness import Freshness, MaxAge
from proxy.errors import RuleFileError, UsageError
from proxy.store import clock
from proxy.store.files import cassette_files, load_cassette
from proxy.store.rule_files import RulesInForce
from proxy.store.stored_text import stored_exchange

COUNTED = (("error", "errors"), ("warning", "warnings"), ("info", "info"))


def rules_in_force_for(arguments: argparse.Namespace) -> RulesInForce:
    return load_rules_in_force(arguments)


def per_exchange(findings: Sequence[Finding]) -> dict[int, list[Finding]]:
    grouped: dict[int, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.exchange, []).append(finding)
    return grouped


def files_in(path: Path) -> list[Path]:
    files = cassette_files(path)
    if not files:
        raise UsageError(f"{path}: no cassettes (*.yaml) in this folder")
    return files


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
    return _table(arguments, None)


def run_show(arguments: argparse.Namespace) -> int:
    """`cassette show`: one exchange as its cassette file holds it (its own lines, hand edits and all),
    then its findings with their documentation sections."""
    engine = rules_in_force_for(arguments)
    cassette = load_cassette(arguments.path).cassette
    [index] = checked_indexes(cassette, [arguments.index])
    mine = per_exchange(check_cassette(engine, cassette, str(arguments.path))).get(index, [])
    document = {"index": index, **exchange_to_document(cassette.exchanges[index])}
    if arguments.format == "json":
        document["findings"] = [finding.to_json() for finding in mine]
        write_document(json_text(document, indent=2) + "\n")
        return 0
    stored = stored_exchange(arguments.path, index)
    if stored is None:  # not in the file yet: its recording's journal holds it
        say("# not yet in the file (a recording's journal holds it): shown as it will be written")
        write_document(yaml_text(json_bodies_as_text(document)))
    else:  # the file's own lines, hand edits and all; a control character is shown as its escape
        write_document(f"index: {index}\n" + "".join(visible(line) + "\n" for line in stored.splitlines()))
    say(f"# {len(mine)} finding(s)")
    for finding in mine:
        say(f"# {finding_line(finding)}")
        say(f"#     documentation: {finding.citation}")
    return 0


def run_grep(arguments: argparse.Namespace) -> int:
    """`cassette grep`: the exchanges an expression selects, as `list` shows them; exit 1 if none."""
    return _table(arguments, selection_of(arguments.expression, "EXPR"))


def _table(arguments: argparse.Namespace, selection: Selection | None) -> int:
    engine = rules_in_force_for(arguments)
    freshness = _staleness(arguments, engine)
    files = files_in(arguments.path)
    rows: list[dict[str, Any]] = []
    for path in files:
        cassette = load_cassette(path).cassette
        found = per_exchange(check_cassette(engine, cassette, str(path)))
        picked: Sequence[int] = (
            range(len(cassette.exchanges)) if selection is None else selected(selection, cassette, found)
        )
        if freshness is not None:
            picked = [index for index in picked if _overdue(freshness, cassette.exchanges[index])]
        rows.extend(_rows(path, cassette, found, picked))
    if arguments.format == "json":
        write_document(json.dumps({"exchanges": rows}, indent=2) + "\n")
    elif rows or selection is None:
        _print_rows(rows, len(files) > 1, dated=freshness is not None)
    return 0 if rows or selection is None else 1


def _overdue(freshness: Freshness, exchange: Exchange) -> bool:
    """Whether the exchange is older than max_age, counting its cassette's last confirmation."""
    return freshness.overdue(exchange.recorded_at, exchange.confirmed_at) is not None


def _staleness(arguments: argparse.Namespace, engine: RulesInForce) -> Freshness | None:
    """`--stale AGE`, or `--stale` with the config's max_age: which exchanges to list; None without it."""
    written = getattr(arguments, "stale", None)
    if written is None:
        return None
    config = engine.project.config
    if written:
        try:
            return Freshness(MaxAge.parse(written, "--stale"), config.now or clock.now())
        except RuleFileError as error:
            raise UsageError(str(error)) from None
    freshness = config.freshness()
    if freshness is None:
        raise UsageError(
            "--stale: no max_age in the project config (e.g. `max_age: 90d` in commerce-proxy.yaml); "
            "or give one: --stale 90d"
        )
    return freshness


def selection_of(text: str, option: str) -> Selection:
    try:
        return parse_selection(text)
    except ExpressionError as error:
        raise ExpressionError(f"{option} {text!r}: {error}") from None


def selected(selection: Selection, cassette: Cassette, found: dict[int, list[Finding]]) -> list[int]:
    return [
        index
        for index, exchange in enumerate(cassette.exchanges)
        if selection.matches(Subject(index, exchange, found.get(index, ())))
    ]


def finding_line(finding: Finding) -> str:
    """One finding on one line (`visible`: whatever the exchange held)."""
    return visible(
        f"{finding.severity} {finding.rule}: #{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}"
    )
