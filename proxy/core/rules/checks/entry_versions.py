"""What one answer naming a version of a custom API entry teaches, and which fact about its ETag it shows.

Pure and bounded: a representation is a fingerprint of its fields; each ETag keeps the distinct
representations it was seen on, so a fact (this ETag names two representations) is found once, however
often the answers show it again. The checks and the observer of `entries.py` both call `step`, so a
checker that only observes a stream's start holds the same memory as one that checked it.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from proxy.core.rules.checks.session import EntryState, Shown, Unreported, Version
from proxy.core.rules.checks.timestamps import timestamp_key
from proxy.core.rules.checks.values import canonical_text

ETAGS_REMEMBERED = 32  # per entry
REPRESENTATIONS_REMEMBERED = 8  # per ETag: a representation forgotten may be reported again
PLACES_SHOWN = 5  # in a finding; the rest are counted
FIELD = "\x1f"  # joins the keys of a field's path in a fingerprint (no JSON key of an entry holds it)
OBJECT = b"{"  # an object's own entry in a fingerprint (a hash is 8 bytes, so none equals it)
ETAG_ID = f"meta{FIELD}etag_id"
CHANGES, IDENTIFIES = "changes", "identifies"


def fingerprint(record: Any) -> dict[str, bytes]:
    """Each field of an entry by its path, as a short hash of its JSON with numbers by value (`1`, `1.0`
    and `1E0` are one value; an object as OBJECT, its fields under it): enough to tell two
    representations apart field by field, kept in little memory.

    Left out: `links` (addresses, not the entry: a read by another id, relative or absolute, has other
    ones) and `meta.etag_id` (the name of the version, not its content: an `etag_id` that disagrees
    with the ETag is `etag_matches_etag_id`'s finding, and where an answer has no ETag it is the
    version itself). `resource_version` and the timestamps count: the service changes them when the
    entry changes (api-notes), so a new value under the same ETag is a change the ETag did not follow."""
    fields: dict[str, bytes] = {}
    stack: list[tuple[str, Any]] = (
        [(str(key), part) for key, part in record.items() if key != "links"]
        if isinstance(record, dict)
        else [("", record)]
    )
    while stack:
        path, value = stack.pop()
        if path == ETAG_ID:
            continue
        if isinstance(value, dict):
            fields[path] = OBJECT
            stack.extend((f"{path}{FIELD}{key}", part) for key, part in value.items())
            continue
        fields[path] = hashlib.blake2b(canonical_text(value).encode(), digest_size=8).digest()
    return fields


def differences(before: Shown, after: Shown) -> dict[str, int]:
    """Each field both representations show with another value, with the exchange that showed it in
    `before`. A field one of them lacks is no evidence of a change: the documented variations of one
    entry leave fields out (the published read omits `meta.etag_id`, a list item carries fewer fields
    than a read). An object shown in place of a value (or the reverse) is a change of that field."""
    return {
        path: before.shown_at(path)
        for path, value in after.fields.items()
        if before.fields.get(path, value) != value
    }


def changed_since(before: Shown, after: Shown) -> int | None:
    """The latest exchange that showed a field of `before` which `after` shows otherwise, or None."""
    return max(differences(before, after).values(), default=None)


def merged(base: Shown, newer: Shown) -> Shown:
    """One representation known from two answers: every field `newer` shows, and those only `base`
    showed (with the exchange that showed each), except fields under a place `newer` shows as a value."""
    replaced = {path for path, value in newer.fields.items() if value != OBJECT}
    earlier = {
        path: base.shown_at(path)
        for path in base.fields
        if path not in newer.fields and not _under(path, replaced)
    }
    fields = {**{path: base.fields[path] for path in earlier}, **newer.fields}
    return Shown(fields, newer.exchange, earlier)


def _under(path: str, places: set[str]) -> bool:
    keys = path.split(FIELD)
    return any(FIELD.join(keys[:depth]) in places for depth in range(1, len(keys)))


def place(path: str) -> str:
    """A fingerprint's path as a finding names it: `data.meta.resource_version` (`data` for a body that
    is no object)."""
    return "data" if not path else "data." + path.replace(FIELD, ".")


class Answer(NamedTuple):
    """One answer showing an entry: the version it names, its representation, whether the ETag rules
    judge it (a read with an ETag header), and its `updated_at` and `resource_version`."""

    etag: str | None
    shown: Shown
    judged: bool
    stamps: tuple[Any, Any]


def stamps_of(record: Any) -> tuple[Any, Any]:
    """The `updated_at` (as a sortable key) and `resource_version` an entry shows, each None if not."""
    meta = record.get("meta") if isinstance(record, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    timestamps = meta.get("timestamps")
    updated = timestamp_key(timestamps.get("updated_at")) if isinstance(timestamps, dict) else None
    version = meta.get("resource_version")
    numeric = isinstance(version, int | float) and not isinstance(version, bool)
    return updated, version if numeric else None


def _older(stamps: tuple[Any, Any], newest: tuple[Any, Any]) -> bool:
    """Whether an answer shows an older state than one already known (eventual consistency: a list may
    show a record as it was): an earlier `updated_at` or a lower `resource_version`."""
    return any(
        mine is not None and known is not None and mine < known
        for mine, known in zip(stamps, newest, strict=True)
    )


def _newest(stamps: tuple[Any, Any], newest: tuple[Any, Any]) -> tuple[Any, Any]:
    def later(mine: Any, known: Any) -> Any:
        return known if mine is None else mine if known is None else max(mine, known)

    return later(stamps[0], newest[0]), later(stamps[1], newest[1])


def _difference(rule: str, scope: list[Shown], shown: Shown) -> Unreported | None:
    """How `shown` differs from the representation of `scope` shown last among those it contradicts."""
    found = [
        (max(diff.values()), sorted(diff)) for diff in (differences(rep, shown) for rep in scope) if diff
    ]
    if not found:
        return None
    exchange, paths = max(found, key=lambda item: item[0])
    return Unreported(rule, exchange, tuple(place(path) for path in paths))


def step(
    before: EntryState | None, answer: Answer, index: int
) -> tuple[EntryState | None, dict[str, Unreported]]:
    """The entry's state after `answer` (None: nothing to keep), and the facts a judged read reports,
    by rule (`changes`: the ETag every answer since the last other version named is on a representation
    none of them showed; `identifies`: an ETag that named another version earlier came back on one).

    Each distinct representation an ETag is seen on is a fact once: one already seen under that ETag
    is none. A fact an unjudged answer shows waits for the next read. An answer older than the newest
    state known teaches nothing but a read's representation (judged, so not reported again)."""
    if before is not None and _older(answer.stamps, before.newest):
        if not answer.judged or answer.etag is None:
            return before, {}
        run = before.run if before.etag == answer.etag else index
        versions, facts = _versions(before, answer, run)
        return EntryState(before.etag, before.run, before.exchange, versions, before.newest), facts
    newest = _newest(answer.stamps, before.newest) if before is not None else answer.stamps
    same_run = before is not None and before.etag == answer.etag
    run = before.run if before is not None and same_run else index
    if answer.etag is None:
        return EntryState(None, run, index, dict(before.versions) if before else {}, newest), {}
    versions, facts = _versions(before, answer, run)
    return EntryState(answer.etag, run, index, versions, newest), facts


def _versions(
    before: EntryState | None, answer: Answer, run: int
) -> tuple[dict[str, Version], dict[str, Unreported]]:
    """The versions after `answer`, and the facts it reports when judged. `run`: the exchange that began
    the run of answers naming its ETag (a representation shown since then is the ETag's current one)."""
    etag, shown = answer.etag or "", answer.shown
    versions = dict(before.versions) if before is not None else {}
    version = versions.pop(etag, None) or Version(())
    representations = list(version.representations)
    matching = [n for n, rep in enumerate(representations) if changed_since(rep, shown) is None]
    fact: Unreported | None = None
    if matching:
        representations.append(merged(representations.pop(matching[-1]), shown))
    else:
        if representations:
            in_run = [rep for rep in representations if rep.exchange >= run]
            rule, scope = (CHANGES, in_run) if in_run else (IDENTIFIES, representations)
            fact = _difference(rule, scope, shown)
        representations.append(shown)
        del representations[:-REPRESENTATIONS_REMEMBERED]
    unreported = version.unreported
    facts: dict[str, Unreported] = {}
    if not answer.judged:
        unreported = unreported or fact
    else:
        if unreported is not None:
            current, others = representations[-1], representations[:-1]
            if unreported.rule == CHANGES:
                scope = [rep for rep in others if rep.exchange >= run]
            else:
                scope = [rep for rep in others if rep.exchange < run]
            facts[unreported.rule] = _difference(unreported.rule, scope, current) or unreported
        if fact is not None:
            facts[fact.rule] = fact
        unreported = None
    versions[etag] = Version(tuple(representations), unreported)
    while len(versions) > ETAGS_REMEMBERED:
        del versions[next(iter(versions))]
    return versions, facts
