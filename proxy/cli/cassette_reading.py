"""`commerce-proxy cassette list`, `show` and `grep`: the exchanges of cassettes with their findings,
as a table, YAML or JSON. Nothing is written; the use cases in `proxy.app.cassette_reading` read, and
`proxy.core.reports.cassette_listing` lays the documents out.
"""

from __future__ import annotations

import argparse

from proxy.app.cassette_reading import ListRequest, ShowRequest, list_exchanges, show_exchange
from proxy.cli.inputs import rule_choice
from proxy.cli.output import write_document
from proxy.core.editing.selection import ExpressionError, Selection, parse_selection
from proxy.core.reports.cassette_listing import exchange_json, exchange_text, listing_document


def run_list(arguments: argparse.Namespace) -> int:
    """`cassette list`: a table (or JSON) of every exchange with its findings count (`--stale`: only
    those recorded longer ago than max_age)."""
    return _table(arguments, None, arguments.stale)


def run_show(arguments: argparse.Namespace) -> int:
    """`cassette show`: one exchange as its cassette file holds it (its own lines, hand edits and all),
    then its findings with their documentation sections."""
    as_json = arguments.format == "json"
    shown = show_exchange(ShowRequest(arguments.path, arguments.index, not as_json, rule_choice(arguments)))
    if as_json:
        write_document(exchange_json(shown.index, shown.exchange, shown.findings))
    else:
        write_document(exchange_text(shown.index, shown.exchange, shown.findings, shown.stored))
    return 0


def run_grep(arguments: argparse.Namespace) -> int:
    """`cassette grep`: the exchanges an expression selects, as `list` shows them; exit 1 if none."""
    return _table(arguments, selection_of(arguments.expression, "EXPR"), None)  # grep has no --stale


def _table(arguments: argparse.Namespace, selection: Selection | None, stale: str | None) -> int:
    listing = list_exchanges(ListRequest(arguments.path, selection, stale, rule_choice(arguments)))
    found = any(listed.picked for listed in listing.cassettes)
    if arguments.format == "json" or found or selection is None:
        write_document(listing_document(listing.cassettes, arguments.format, listing.dated))
    return 0 if found or selection is None else 1


def selection_of(text: str, option: str) -> Selection:
    try:
        return parse_selection(text)
    except ExpressionError as error:
        raise ExpressionError(f"{option} {text!r}: {error}") from None
