"""Checks of the custom API entry read: the weak ETag, its hash, and how it follows the entry's changes.

Spec (`commerce-api.md`), "Get a custom API entry through the extensions endpoint", rules 1 and 2. The
ETag history is learned from every answer that shows an entry (api-notes, Custom API entries, and the
published commerce-extensions spec): its read, its update (`PUT`, with or without an ETag header), its
create (`POST` to the slug) and the items of the entries list (`GET` of the slug), each keyed by slug and id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.entry_versions import (
    CHANGES,
    IDENTIFIES,
    PLACES_SHOWN,
    Answer,
    fingerprint,
    stamps_of,
    step,
)
from proxy.core.rules.checks.registry import check, observer
from proxy.core.rules.checks.resources import Named, entry_named
from proxy.core.rules.checks.session import EntryState, Shown, Unreported
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import Violation
from proxy.core.rules.shapes import shown

WEAK_ETAG = re.compile(r'W/"([^"]*)"')


def _etag_id(context: CheckContext) -> str | None:
    """`data.meta.etag_id` when it is a hash string (anything else cannot be compared with an ETag)."""
    value = dig(context.response_json, "data", "meta", "etag_id")
    return value if isinstance(value, str) else None


def _etag_broken(context: CheckContext, etag: str) -> bool:
    """Whether the ETag breaks rule 2 (not weak, or not the entry's `etag_id`): that is its own rules'
    finding, and the history rules do not compare a value already shown wrong (one fact, one finding)."""
    weak = WEAK_ETAG.fullmatch(etag.strip())
    etag_id = _etag_id(context)
    return weak is None or (etag_id is not None and weak[1] != etag_id)


def _current(context: CheckContext) -> Shown:
    """The representation this entry read shows: `data`, or the whole body when that is no object
    (worked out once an exchange: both ETag history checks and the observer ask)."""
    remembered: Shown | None = context.memo.get("entry")
    if remembered is None:
        body = context.exchange.response.body
        record = dig(context.response_json, "data")
        if not isinstance(record, dict):
            record = {"": [body.kind, context.response_json if body.kind == "json" else body.value]}
        remembered = context.memo["entry"] = Shown(fingerprint(record), context.index)
    return remembered


def _before(context: CheckContext) -> EntryState | None:
    """The entry's last state shown, under the path's id or the id the answer gives (a path may name
    an entry by another field's value: api-notes), whichever was shown last."""
    named = entry_named(context.exchange.request.path)
    if named is None or named.member is None:
        return None
    found = [
        state
        for state in (context.session.entries.get((named.scope, member)) for member in _ids(context, named))
        if state is not None
    ]
    return max(found, key=lambda state: state.exchange, default=None)


def _ids(context: CheckContext, named: Named) -> tuple[str, ...]:
    answered = dig(context.response_json, "data", "id")
    if isinstance(answered, str) and answered and answered != named.member:
        return (named.member or "", answered)
    return (named.member or "",)


@check("etag_present")
def etag_present(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry: the success response carries an `ETag` header."""
    if context.response_header("ETag") is None:
        yield Violation("headers.ETag", 'W/"<etag_id>"', "no ETag header")


@check("etag_is_weak")
def etag_is_weak(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 2: the ETag is `W/` then a quoted hash string."""
    etag = context.response_header("ETag")
    if etag is not None and not WEAK_ETAG.fullmatch(etag.strip()):
        yield Violation("headers.ETag", 'W/"<hash>" (a weak entity tag)', repr(etag))


@check("etag_matches_etag_id")
def etag_matches_etag_id(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 2: the quoted hash equals the entry's `etag_id`."""
    etag = context.response_header("ETag")
    etag_id = _etag_id(context)
    weak = WEAK_ETAG.fullmatch(etag.strip()) if etag is not None else None
    if weak is not None and etag_id is not None and weak[1] != etag_id:
        yield Violation("headers.ETag", f'W/"{etag_id}" (data.meta.etag_id)', repr(etag))


@check("etag_id_present")
def etag_id_present(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """api-notes, Custom API entries: without `data.meta.etag_id` the ETag's hash cannot be verified."""
    if context.response_header("ETag") is None or _etag_id(context) is not None:
        return
    meta = dig(context.response_json, "data", "meta")
    if isinstance(meta, dict) and "etag_id" in meta:
        yield Violation(
            "data.meta.etag_id", "the hash the ETag carries", f"{shown(meta['etag_id'])}, no hash string"
        )
    else:
        yield Violation("data.meta.etag_id", "the hash the ETag carries", "absent")


def _read(context: CheckContext) -> tuple[EntryState | None, dict[str, Unreported]]:
    """The entry's state after this read, and the facts about its ETag the read shows (worked out once
    an exchange: both ETag history checks and the observer ask)."""
    remembered: tuple[EntryState | None, dict[str, Unreported]] | None = context.memo.get("entry-read")
    if remembered is None:
        etag = context.response_header("ETag")
        version = etag.strip() if etag is not None else _etag_of(dig(context.response_json, "data"))
        answer = Answer(
            version, _current(context), etag is not None, stamps_of(dig(context.response_json, "data"))
        )
        remembered = context.memo["entry-read"] = step(_before(context), answer, context.index)
    return remembered


def _places(fact: Unreported) -> str:
    shown = ", ".join(fact.places[:PLACES_SHOWN])
    more = len(fact.places) - PLACES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


@check("etag_changes_with_entry")
def etag_changes_with_entry(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: when the entry changes, its ETag changes (compared with the
    representations every answer since the last one that named another version showed; each
    representation an ETag is seen on is reported once)."""
    etag = context.response_header("ETag")
    fact = _read(context)[1].get(CHANGES) if etag is not None else None
    if etag is not None and fact is not None and not _etag_broken(context, etag):
        yield Violation(
            "headers.ETag",
            f"a new ETag: the entry differs from exchange {fact.other} at {_places(fact)}",
            f"the same ETag {etag.strip()!r}",
        )


@check("etag_identifies_version")
def etag_identifies_version(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: an ETag identifies one version, so once another version was
    named it never comes back with another representation (an ETag that never changed is
    etag_changes_with_entry's)."""
    etag = context.response_header("ETag")
    fact = _read(context)[1].get(IDENTIFIES) if etag is not None else None
    if etag is not None and fact is not None and not _etag_broken(context, etag):
        yield Violation(
            "headers.ETag",
            f"the representation of exchange {fact.other}, which had this ETag (differs at {_places(fact)})",
            f"{etag.strip()!r} on a different representation",
        )


def _shows_entries(method: str, path: str, hit: EndpointHit, query: str) -> bool:
    return method in ("GET", "PUT", "POST") and entry_named(path) is not None


@observer(watches=_shows_entries)
def remember_entry(context: CheckContext) -> None:
    """Keep each entry's last version and representation, from whichever answer showed it last: an
    entry read or update (under the path's id, and the answered `data.id` when another), a create, or
    each item of the entries list (under its `id`)."""
    request = context.exchange.request
    named = entry_named(request.path)
    if named is None or not context.succeeded:
        return
    if named.member is not None and request.method == "GET":
        _keep(context, named.scope, _ids(context, named), _read(context)[0])
    elif named.member is not None and request.method == "PUT":
        record = dig(context.response_json, "data")
        etag = context.response_header("ETag")
        _learn(context, named.scope, _ids(context, named), etag.strip() if etag else _etag_of(record), record)
    elif named.member is None and request.method == "POST":
        record = dig(context.response_json, "data")
        etag = context.response_header("ETag")
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            _learn(context, named.scope, (record["id"],), etag.strip() if etag else _etag_of(record), record)
    elif named.member is None and request.method == "GET":
        items = dig(context.response_json, "data")
        for record in items if isinstance(items, list) else ():
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                _learn(context, named.scope, (record["id"],), _etag_of(record), record)


def _etag_of(record: Any) -> str | None:
    """The version a representation without an ETag header names: `W/"<data.meta.etag_id>"`."""
    etag_id = dig(record, "meta", "etag_id")
    return f'W/"{etag_id}"' if isinstance(etag_id, str) and etag_id else None


def _learn(context: CheckContext, slug: str, ids: tuple[str, ...], etag: str | None, record: Any) -> None:
    """Learn from an answer the ETag rules do not judge (an update's answer, a create, a list item)."""
    if not isinstance(record, dict):
        return
    memory = context.session.entries
    earlier = [state for state in (memory.get((slug, member)) for member in ids) if state is not None]
    before = max(earlier, key=lambda state: state.exchange, default=None)
    answer = Answer(etag, Shown(fingerprint(record), context.index), False, stamps_of(record))
    _keep(context, slug, ids, step(before, answer, context.index)[0])


def _keep(context: CheckContext, slug: str, ids: tuple[str, ...], state: EntryState | None) -> None:
    if state is not None:
        for member in ids:
            context.session.entries.put((slug, member), state)
