"""`commerce-proxy cassette list`, `show` and `grep`: the exchanges of cassettes with their findings,
as a table, YAML or JSON. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from proxy.app.check_run import check_cassette
from proxy.cli.inputs import load_engine
from proxy.core.cassette.document import Cassette, CassetteDumper, exchange_to_document
from proxy.core.editing.edits import checked_indexes
from proxy.core.editing.selection import ExpressionError, Selection, Subject, parse_selection
from proxy.core.rules.findings import Finding
from proxy.errors import UsageError
from proxy.store.files import cassette_files, load_cassette
from proxy.store.rule_files import Engine


def engine_for(arguments: argparse.Namespace) -> Engine:
    return load_engine(arguments)


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
                "errors": sum(1 for finding in mine if finding.severity == "error"),
            }
        )
    return rows


def _print_rows(rows: list[dict[str, Any]], several: bool) -> None:
    prefix = "CASSETTE  " if several else ""
    print(f"{prefix}{'INDEX':>5}  {'METHOD':<7} STATUS  FINDINGS  PATH")
    for row in rows:
        where = f"{row['cassette']}  " if several else ""
        errors = f"{row['errors']}E " if row["errors"] else ""
        counts = f"{errors:>3}{row['findings']:>5}"
        print(f"{where}{row['index']:>5}  {row['method']:<7} {row['status']:>6}  {counts}  {_target(row)}")


def _target(row: dict[str, Any]) -> str:
    return f"{row['path']}?{row['query']}" if row["query"] else str(row["path"])


def run_list(arguments: argparse.Namespace) -> int:
    """`cassette list`: a table (or JSON) of every exchange with its findings count."""
    return _table(arguments, None)


def run_show(arguments: argparse.Namespace) -> int:
    """`cassette show`: one exchange as stored, then its findings with their documentation sections."""
    engine = engine_for(arguments)
    cassette = load_cassette(arguments.path).cassette
    [index] = checked_indexes(cassette, [arguments.index])
    mine = per_exchange(check_cassette(engine, cassette, str(arguments.path))).get(index, [])
    document = {"index": index, **exchange_to_document(cassette.exchanges[index])}
    if arguments.format == "json":
        document["findings"] = [finding.to_json() for finding in mine]
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    print(yaml.dump(document, Dumper=CassetteDumper, sort_keys=False, allow_unicode=True, width=100), end="")
    print(f"# {len(mine)} finding(s)")
    for finding in mine:
        print(f"# {finding_line(finding)}")
        print(f"#     documentation: {finding.section}")
    return 0


def run_grep(arguments: argparse.Namespace) -> int:
    """`cassette grep`: the exchanges an expression selects, as `list` shows them; exit 1 if none."""
    return _table(arguments, selection_of(arguments.expression, "EXPR"))


def _table(arguments: argparse.Namespace, selection: Selection | None) -> int:
    engine = engine_for(arguments)
    files = files_in(arguments.path)
    rows: list[dict[str, Any]] = []
    for path in files:
        cassette = load_cassette(path).cassette
        found = per_exchange(check_cassette(engine, cassette, str(path)))
        picked = range(len(cassette.exchanges)) if selection is None else selected(selection, cassette, found)
        rows.extend(_rows(path, cassette, found, picked))
    if arguments.format == "json":
        print(json.dumps({"exchanges": rows}, indent=2))
    elif rows or selection is None:
        _print_rows(rows, len(files) > 1)
    return 0 if rows or selection is None else 1


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
    return (
        f"{finding.severity} {finding.rule}: #{finding.exchange} {finding.method} {finding.target}: "
        f"{finding.where}: expected {finding.expected}; found {finding.found}"
    )
