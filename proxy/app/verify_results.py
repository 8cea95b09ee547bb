"""A `verify --format json -o FILE` report as a source of the UI: telling one from other JSON, and one
cassette's results as the UI's cassette-diff document, the recorded answers on one side and the live
ones `verify` got on the other, in the tiers `verify` and `cassette diff` share.

The report holds differences, not exchanges: it adds nothing to the list, and is compared with a
cassette it verified (`UiActions.cassette_diff`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proxy.core.drift.compare import TIERS
from proxy.errors import CommerceProxyError
from proxy.store.json_files import read_json_file

REPORT_SUFFIX = ".json"
KEYS = ("exchanges", "drift", "counts", "skipped")  # what every `verify --format json` report holds
HOW = "`commerce-proxy verify ... --format json -o FILE` writes one"


def is_verify_report(path: Path) -> bool:
    """Whether the file is a `verify` JSON report: a `.json` file holding an object with its keys (any
    other file is what it was before: a cassette, read as one)."""
    if path.suffix.lower() != REPORT_SUFFIX or not path.is_file():
        return False
    try:
        return _is_report(read_json_file(path, "verify report"))
    except CommerceProxyError:
        return False


def read_verify_report(path: Path) -> dict[str, Any]:
    """The report's JSON document; a one-line error naming the file when it is not one."""
    document = read_json_file(path, "verify report")
    if not _is_report(document):
        raise CommerceProxyError(f"{path}: not a verify report ({HOW})")
    return dict(document)


def verify_diff_document(
    report: dict[str, Any],
    name: str,
    cassette: str,
    *,
    live_is_b: bool = True,
    verbose: bool = False,
    exchanges: int | None = None,
    others: Sequence[str] = (),
) -> dict[str, Any]:
    """`cassette`'s results in the report (`name`) in the shape of `cassette diff --format json`: each
    difference with `index_a`, `index_b` (the same exchange), `request`, `tier`, `where` and the two
    values; `counts` by tier, of the same entries the list is made of (`_entries`). `live_is_b`: the
    live answers are side b (the report picked second). Volatile differences are listed with `verbose`,
    and only when the report kept them (`verify -v`). `exchanges`: how many the cassette holds (an
    entry past them is not of this cassette: refused); `others`: the view's other cassettes (a report
    name that could be either of two is refused, naming both)."""
    found, items, skipped_items = _entries(report, name, cassette, exchanges, others)
    live, recorded = ("b", "a") if live_is_b else ("a", "b")
    changes = []
    for item in items:
        if item.get("tier") == "volatile" and not verbose:
            continue
        change: dict[str, Any] = {
            "index_a": item.get("index"),
            "index_b": item.get("index"),
            "request": item.get("request"),
            "tier": item.get("tier"),
            "where": item.get("where"),
        }
        for side, key in ((recorded, "recorded"), (live, "live")):
            if key in item:
                change[side] = item[key]
        if isinstance(item.get("source"), str):  # the spec's place that decided the tier
            change["source"] = item["source"]
        changes.append(change)
    counts = {tier: sum(1 for item in items if item.get("tier") == tier) for tier in TIERS}
    summary = next((c for c in report.get("cassettes") or [] if c.get("cassette") == found), None)
    counted = summary.get("counts") if isinstance(summary, dict) else None
    unlisted = int(counted.get("volatile", 0)) - counts["volatile"] if isinstance(counted, dict) else 0
    skipped = [
        {"index": item.get("index"), "request": item.get("request"), "reason": item.get("reason")}
        for item in skipped_items
    ]
    notes = []
    if isinstance(report.get("refused"), str):
        notes.append(f"not verified: {report['refused']}")
    if verbose and unlisted > 0:
        notes.append(
            f"the report counts {unlisted} volatile differences it does not list: run `verify` with -v"
        )
    return {
        "changes": changes,
        "added": [],
        "removed": [],
        "counts": counts,
        "verify": {"report": name, "cassette": found, "live": live, "skipped": skipped, "notes": notes},
    }


def _entries(
    report: dict[str, Any], name: str, cassette: str, exchanges: int | None, others: Sequence[str]
) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The report's name for `cassette`, and its drift and skipped entries: the one selection both the
    list and the counts are made of. Refused (one line) when the report holds none, when its name could
    be another of the view's cassettes too, or when an entry's index is past the cassette's exchanges."""
    known = _cassette_names(report)
    found = _same_cassette(name, cassette, known, others)
    if found is None:
        listed = ", ".join(sorted(known)[:5]) or "none"
        raise CommerceProxyError(f"{name} holds no result for {cassette} (it verified: {listed})")
    drift = [item for item in report["drift"] if isinstance(item, dict) and item.get("cassette") == found]
    skipped = [item for item in report["skipped"] if isinstance(item, dict) and item.get("cassette") == found]
    for item in (*drift, *skipped):
        index = item.get("index")
        whole = isinstance(index, int) and not isinstance(index, bool)
        if (
            not isinstance(index, int)
            or not whole
            or index < 0
            or (exchanges is not None and index >= exchanges)
        ):
            raise CommerceProxyError(
                f"{name}: {found}'s result for exchange {str(index)[:20]} is not of {cassette} "
                f"({exchanges if exchanges is not None else 'its'} exchanges): not shown"
            )
    return found, drift, skipped


def _is_report(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and all(key in document for key in KEYS)
        and isinstance(document["drift"], list)
        and isinstance(document["skipped"], list)
    )


def _cassette_names(report: dict[str, Any]) -> set[str]:
    lists = (report.get("cassettes") or [], report["drift"], report["skipped"])
    return {
        str(item["cassette"])
        for items in lists
        for item in items
        if isinstance(item, dict) and "cassette" in item
    }


def _same_cassette(name: str, cassette: str, known: set[str], others: Sequence[str]) -> str | None:
    """The report's name for the cassette: the same path as given, the same file, or the only one of
    the same file name (a report written from another folder) when no other cassette of the view has
    that file name too; two candidates either way are refused, naming both."""
    if cassette in known:
        return cassette
    wanted = Path(cassette).resolve()
    same = sorted(known_name for known_name in known if Path(known_name).resolve() == wanted)
    if len(same) > 1:
        raise CommerceProxyError(
            f"{name} names {cassette} as {' and '.join(same)}: compare one report per run"
        )
    if same:
        return same[0]
    file_name = Path(cassette).name
    named = sorted(known_name for known_name in known if Path(known_name).name == file_name)
    if len(named) > 1:
        raise CommerceProxyError(
            f"{name} holds results for {' and '.join(named)}: which is {cassette} cannot be told"
        )
    if not named:
        return None
    rivals = sorted(other for other in others if other != cassette and Path(other).name == file_name)
    if rivals:
        raise CommerceProxyError(
            f"{name}'s {named[0]} could be {' or '.join([cassette, *rivals])}: open the report with "
            "the one cassette it verified"
        )
    return named[0]
