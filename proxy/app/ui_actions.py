"""What the UI's actions do, as use cases with no HTTP in them: a diff of two exchanges or two
cassettes, an export of exchanges as the bytes `export-har` or a cassette save writes, a finding
accepted into the project's baseline, and an exchange of a cassette deleted or edited.

Each goes through the code its command uses (`cassette diff`, `export-har`, `check --write-baseline`,
`cassette delete`/`set`): the UI is one more adapter of them, never a second codec or writer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from proxy.app import cassette_edits
from proxy.app.cassette_diff import diff_cassettes
from proxy.app.command_inputs import RuleChoice
from proxy.app.editing import redacted
from proxy.app.importing import har_text
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.drift.compare import (
    ABSENT,
    Difference,
    Tiering,
    compare_exchanges,
    compare_responses,
    tier_counts,
)
from proxy.core.drift.origins import SAME, Origins
from proxy.core.drift.pairing import request_line
from proxy.core.editing.edits import EditError
from proxy.core.model.exchange import Exchange, Headers, JSONValue, Request, Response
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.reports.cassette_diff import diff_json
from proxy.core.reports.differences import shown
from proxy.errors import UsageError
from proxy.store.rule_files import RulesInForce, load_baseline, write_baseline
from proxy.store.saving import scrubbed
from proxy.store.writing import folder_lock

ExportKind = Literal["har", "cassette"]
EXPORT_KINDS: tuple[ExportKind, ...] = ("har", "cassette")
BaselineKey = tuple[str, str, str, str]  # a finding's `baseline_key`: rule, method, routed path, where
Edited = cassette_edits.Edited


def exchange_diff(
    a: Exchange, b: Exchange, *, verbose: bool = False, origins: Origins = SAME
) -> dict[str, Any]:
    """Two exchanges compared by meaning, as `cassette diff` compares a pair: the answers' differences
    in its tiers (volatile ones only when `verbose`; every tier counted), and what differs between the
    two requests (method, path and query, headers, body), so a diff of unrelated exchanges says so.
    `origins`: where each was recorded, so a link that only moved origin is no change."""
    differences = compare_exchanges(a, b, origins)
    return {
        "a": {"request": request_line(a), "status": a.response.status},
        "b": {"request": request_line(b), "status": b.response.status},
        "request": _request_differences(a.request, b.request),
        "changes": [difference.to_json("a", "b") for difference in shown(differences, verbose)],
        "counts": tier_counts(differences),
        "drifted": any(difference.tier != "volatile" for difference in differences),
    }


def cassette_diff_document(
    a: Path,
    b: Path,
    *,
    in_force: RulesInForce | None = None,
    verbose: bool = False,
    tiering: Tiering | None = None,
) -> dict[str, Any]:
    """`cassette diff A B --format json`'s document (the same pairing by the project's `match` table,
    the same tiers by the specs (`tiering`), the same renderer)."""
    diff = diff_cassettes(a, b, in_force.project.match if in_force is not None else None, tiering)
    document: dict[str, Any] = json.loads(diff_json(diff, verbose))
    return document


def export_document(
    exchanges: Sequence[Exchange],
    kind: ExportKind,
    upstream: str | None,
    *,
    policy: RedactionPolicy | None = None,
    origins: Sequence[str | None] = (),
) -> bytes:
    """The exchanges as the file `export-har` (kind "har") or a cassette save ("cassette") writes for
    them, redacted with `policy` (the project's; the default names when None) and every secret the
    process knows, as a save is. A HAR names each exchange's own upstream (`origins`), a cassette
    has one."""
    if kind not in EXPORT_KINDS:
        raise UsageError(f"export: unknown kind {kind!r}; expected one of {', '.join(EXPORT_KINDS)}")
    cassette = scrubbed(redacted(Cassette(tuple(exchanges), upstream), policy or RedactionPolicy()))
    text = har_text(cassette, origins) if kind == "har" else dump_cassette(cassette)
    return text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class AcceptResult:
    """What accepting did: the baseline file, how many of the keys were new, how many it now holds."""

    path: Path
    added: int
    total: int


def accept_into_baseline(in_force: RulesInForce, keys: Iterable[BaselineKey]) -> AcceptResult:
    """The findings with these `baseline_key`s accepted into the project's baseline file, keeping every
    entry it has (written by `check --write-baseline`'s writer, atomically, under the folder's lock so
    two accepts never lose each other's entries). Refused when the project config names no baseline."""
    path = in_force.project.resolve(in_force.project.config.baseline)
    if path is None:
        where = in_force.project.path or "the project"
        raise UsageError(
            f"{where}: names no baseline file; add `baseline: FILE` to the project config to accept findings"
        )
    wanted = set(keys)
    with folder_lock(path, "the baseline"):
        present = load_baseline(path).keys if path.exists() or path.is_symlink() else frozenset()
        total = write_baseline(path, present | wanted)
    return AcceptResult(path, len(wanted - present), total)


def delete_exchange(
    path: Path, index: int, *, rules: RuleChoice | None = None, expected: str | None = None
) -> Edited:
    """`cassette delete PATH INDEX`: the same use case, under the cassette's lock, saved atomically and
    re-checked (`Edited.recheck` holds the findings the edit added). `expected`: the exchange's
    `indexed_identity` as the view indexed it; another one at INDEX now is refused (`Moved`)."""
    options = cassette_edits.EditOptions(rules=rules or RuleChoice())
    _refuse_negative(index)
    return cassette_edits.delete(cassette_edits.DeleteRequest(path, (str(index),), options, expected))


def edit_exchange(
    path: Path,
    index: int,
    field: str,
    value: JSONValue,
    *,
    unset: bool = False,
    typed: bool = True,
    rules: RuleChoice | None = None,
    expected: str | None = None,
) -> Edited:
    """`cassette set PATH INDEX FIELD VALUE` (or `unset` with `unset`): the same use case, under the
    cassette's lock, redacted, saved atomically and re-checked; `expected` as `delete_exchange`'s.
    A `typed` value is JSON the field's type must match; else it was read from text as typed on the
    command line (`parse_value`), and the field takes it as `cassette set` does."""
    options = cassette_edits.EditOptions(rules=rules or RuleChoice())
    _refuse_negative(index)
    if not unset and typed:
        refuse_wrong_type(field, value)
    request = cassette_edits.FieldRequest(
        path, str(index), field, value, unset=unset, options=options, expected=expected
    )
    try:
        return cassette_edits.change_field(request)
    except EditError as error:  # the field or the value asked for (unknown, not removable, refused)
        raise BadEdit(str(error)) from None


class BadEdit(UsageError):
    """An edit refused for the field or the value it asks for, whatever the cassette holds: bad input
    (400), never a conflict (409)."""


_TEXT_FIELDS = ("reason", "recorded_at", "method", "path", "query")
_TYPE_NAMES = {str: "a string", bool: "true or false", int: "a number", float: "a number"}
_TYPE_NAMES.update({type(None): "null", list: "a list", dict: "an object"})


def json_type(value: JSONValue) -> str:
    """A JSON value's type as a refusal names it (a number kept as spelled is a number)."""
    found = next((kind for kind in (bool, int, float, str, list, dict) if isinstance(value, kind)), None)
    return _TYPE_NAMES.get(found or type(value), type(value).__name__)


def refuse_wrong_type(field: str, value: JSONValue) -> None:
    """A JSON value of a type the field cannot hold is bad input (400, `BadEdit`) named with the
    field and the type found: the command line types text, which `cassette set` reads as the field
    needs, but the API's value is typed already. `201.0` and `2.01e2` are not a status: a status is
    written as a whole number."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    found = json_type(value)
    if field == "status":
        fine, wanted = number and isinstance(value, int), "a whole number (an HTTP status 200-599)"
        if number and not fine:
            found = "a number with a fraction or an exponent"
    elif field == "duration_ms":
        fine, wanted = number, "a number of milliseconds"
    elif field in _TEXT_FIELDS or ".header." in field:
        fine, wanted = isinstance(value, str), "a string"
    else:
        return  # a body or a JSON field takes any JSON value
    if not fine:
        raise BadEdit(f"edit of {field[:80]!r}: expected {wanted}, found {found} ({json.dumps(value)[:40]})")


def _refuse_negative(index: int) -> None:
    """The UI names an exchange by the index `cassette show` gives it; `-1` (the command line's "the
    last") would edit another exchange than the one shown."""
    if index < 0:
        raise UsageError(f"index {index}: expected an exchange's index, 0 the first")


def _request_differences(a: Request, b: Request) -> list[dict[str, Any]]:
    """Where two requests differ, each place once: method, target, each header by name, the body (as
    `cassette diff` compares JSON bodies). Untiered: tiers judge answers, not requests."""
    found = [
        Difference("data", place, one, two, kind="changed")
        for place, one, two in _request_line(a, b)
        if one != two
    ]
    found.extend(_header_differences(a.headers, b.headers))
    bodies = compare_responses(Response(0, (), a.body), Response(0, (), b.body))
    found.extend(replace(item, where=f"request.{item.where}") for item in bodies)
    return [{key: value for key, value in item.to_json("a", "b").items() if key != "tier"} for item in found]


def _request_line(a: Request, b: Request) -> list[tuple[str, str, str]]:
    return [("request.method", a.method, b.method), ("request.target", a.target, b.target)]


def _header_differences(a: Headers, b: Headers) -> list[Difference]:
    """Each header name whose values differ (repeats joined as a list), without regard to case."""
    values_a, values_b = _by_name(a), _by_name(b)
    found = []
    for name in [*values_a, *(name for name in values_b if name not in values_a)]:
        spelled = (values_a.get(name) or values_b[name])[0]
        one = values_a[name][1] if name in values_a else ABSENT
        two = values_b[name][1] if name in values_b else ABSENT
        if one != two:
            found.append(Difference("data", f"request.headers.{spelled}", one, two, kind="header"))
    return found


def _by_name(headers: Headers) -> dict[str, tuple[str, Any]]:
    grouped: dict[str, tuple[str, list[str]]] = {}
    for name, value in headers:
        grouped.setdefault(name.lower(), (name, []))[1].append(value)
    return {
        key: (spelled, values[0] if len(values) == 1 else values)
        for key, (spelled, values) in grouped.items()
    }
