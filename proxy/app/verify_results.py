"""A `verify --format json -o FILE` report as a source of the UI: telling one from other JSON, and one
cassette's results as the UI's cassette-diff document, the recorded answers on one side and the live
ones `verify` got on the other, in the tiers `verify` and `cassette diff` share.

The report holds differences, not exchanges: it adds nothing to the list, and is compared with a
cassette it verified (`UiActions.cassette_diff`).
"""

from __future__ import annotations

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
    report: dict[str, Any], name: str, cassette: str, *, live_is_b: bool = True, verbose: bool = False
) -> dict[str, Any]:
    """`cassette`'s results in the report (`name`) in the shape of `cassette diff --format json`: each
    difference with `index_a`, `index_b` (the same exchange), `request`, `tier`, `where` and the two
    values; `counts` by tier. `live_is_b`: the live answers are side b (the report picked second).
    Volatile differences are listed with `verbose`, and only when the report kept them (`verify -v`)."""
    known = _cassette_names(report)
    found = _same_cassette(cassette, known)
    if found is None:
        listed = ", ".join(sorted(known)[:5]) or "none"
        raise CommerceProxyError(f"{name} holds no result for {cassette} (it verified: {listed})")
    live, recorded = ("b", "a") if live_is_b else ("a", "b")
    items = [item for item in report["drift"] if isinstance(item, dict) and item.get("cassette") == found]
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
        changes.append(change)
    summary = next((c for c in report.get("cassettes") or [] if c.get("cassette") == found), None)
    counts = summary.get("counts") if isinstance(summary, dict) else None
    if not isinstance(counts, dict):  # a report from before `cassettes`: what it lists
        counts = {tier: sum(1 for item in items if item.get("tier") == tier) for tier in TIERS}
    volatile_kept = any(item.get("tier") == "volatile" for item in report["drift"] if isinstance(item, dict))
    skipped = [
        {"index": item.get("index"), "request": item.get("request"), "reason": item.get("reason")}
        for item in report["skipped"]
        if isinstance(item, dict) and item.get("cassette") == found
    ]
    notes = []
    if isinstance(report.get("refused"), str):
        notes.append(f"not verified: {report['refused']}")
    if verbose and not volatile_kept and counts.get("volatile"):
        notes.append("the report lists no volatile difference: run `verify` with -v to keep them")
    return {
        "changes": changes,
        "added": [],
        "removed": [],
        "counts": {tier: int(counts.get(tier, 0)) for tier in TIERS},
        "verify": {"report": name, "cassette": found, "live": live, "skipped": skipped, "notes": notes},
    }


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


def _same_cassette(cassette: str, known: set[str]) -> str | None:
    """The report's name for the cassette: the same path as given, the same file, or the only one of
    the same file name (a report written from another folder)."""
    if cassette in known:
        return cassette
    wanted = Path(cassette).resolve()
    same = [name for name in known if Path(name).resolve() == wanted]
    if len(same) == 1:
        return same[0]
    named = [name for name in known if Path(name).name == Path(cassette).name]
    return named[0] if len(named) == 1 else None
