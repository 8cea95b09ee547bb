"""Checks of the custom API entry read: the weak ETag, its hash, and how it follows the entry's changes.

Spec (`commerce-api.md`), "Get a custom API entry through the extensions endpoint", rules 1 and 2. The
ETag history is learned from every answer that shows an entry (api-notes, Custom API entries, and the
published commerce-extensions spec): its read, its update (`PUT`, with or without an ETag header), its
create (`POST` to the slug) and the items of the entries list (`GET` of the slug), each keyed by slug and id.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.registry import check, observer
from proxy.core.rules.checks.resources import Named, entry_named
from proxy.core.rules.checks.session import EntryState, Shown
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import Violation

WEAK_ETAG = re.compile(r'W/"([^"]*)"')
ETAGS_REMEMBERED = 64  # per entry
FIELD = "\x1f"  # joins the keys of a field's path in a fingerprint (no JSON key of an entry holds it)
OBJECT = b"{"  # an object's own entry in a fingerprint (a hash is 8 bytes, so none equals it)
ETAG_ID = f"meta{FIELD}etag_id"


def _etag_id(context: CheckContext) -> Any:
    return dig(context.response_json, "data", "meta", "etag_id")


def fingerprint(record: Any) -> dict[str, bytes]:
    """Each field of an entry by its path, as a short hash of its JSON (an object as OBJECT, its fields
    under it): enough to tell two representations apart field by field, kept in little memory.

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
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        fields[path] = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return fields


def changed_since(before: Shown, after: Shown) -> int | None:
    """The exchange that showed a field of `before` which `after` shows with another value (the latest
    such exchange), or None: the two are one version of the entry.

    Only the fields both representations carry are compared, whatever operations showed them: a field
    one of them lacks is no evidence of a change, since the documented variations of one entry leave
    fields out (the published read omits `meta.etag_id`, a list item carries fewer fields than a read,
    an update's answer may too). An object shown in place of a value (or a value in place of an
    object) is a change of that field; an object's own fields are compared one by one.
    """
    found = [
        before.shown_at(path)
        for path, value in after.fields.items()
        if before.fields.get(path, value) != value
    ]
    return max(found, default=None)


def merged(base: Shown, newer: Shown) -> Shown:
    """What is known of one version after `newer` was judged against `base`: every field `newer` shows,
    and those only `base` showed (with the exchange that showed each), except fields under a place
    `newer` shows as a value, not an object. The next answer is judged against all of it, so a fact
    already reported (the entry changed under this ETag) is not reported again, while a field an
    answer left out is still remembered."""
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
    return max(found, key=lambda state: state.shown.exchange, default=None)


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
    if context.response_header("ETag") is not None and _etag_id(context) is None:
        yield Violation("data.meta.etag_id", "the hash the ETag carries", "absent")


def _stuck(before: EntryState, etag: str, current: Shown) -> int | None:
    """The exchange that showed, under this same ETag with no other version named since, a field this
    read shows otherwise (the last answer first, then what the reads since remember), or None."""
    if before.etag != etag:
        return None
    for earlier in (before.shown, before.since):
        exchange = changed_since(earlier, current)
        if exchange is not None:
            return exchange
    return None


@check("etag_changes_with_entry")
def etag_changes_with_entry(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: when the entry changes, its ETag changes (compared with the
    answers since the last one that named another version)."""
    before = _before(context)
    etag = context.response_header("ETag")
    if before is None or etag is None:
        return
    stuck = _stuck(before, etag.strip(), _current(context))
    if stuck is not None:
        yield Violation(
            "headers.ETag",
            f"a new ETag: the entry differs from exchange {stuck}",
            f"the same ETag {etag}",
        )


@check("etag_identifies_version")
def etag_identifies_version(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: an ETag identifies one version, so once another version was
    named it never comes back with another representation (an ETag that never changed is
    etag_changes_with_entry's)."""
    before = _before(context)
    etag = context.response_header("ETag")
    if before is None or etag is None:
        return
    etag, current = etag.strip(), _current(context)
    earlier = before.by_etag.get(etag)
    if earlier is None or (before.etag == etag and earlier.exchange >= before.since.exchange):
        return  # never named, or named only since the last other version
    exchange = changed_since(earlier, current) if _stuck(before, etag, current) is None else None
    if exchange is not None:
        yield Violation(
            "headers.ETag",
            f"the representation of exchange {exchange}, which had this ETag",
            f"{etag} on a different representation",
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
    if named.member is not None and request.method in ("GET", "PUT"):
        read = request.method == "GET"
        shown = _current(context) if read else _shown(dig(context.response_json, "data"), context.index)
        if shown is not None:
            etag = context.response_header("ETag")
            version = etag.strip() if etag is not None else _etag_of(dig(context.response_json, "data"))
            _learn(context, named.scope, _ids(context, named), version, shown, judged=read)
    elif named.member is None and request.method == "POST":
        record = dig(context.response_json, "data")
        shown = _shown(record, context.index)
        etag = context.response_header("ETag")
        if shown is not None and isinstance(record.get("id"), str):
            _learn(context, named.scope, (record["id"],), etag.strip() if etag else _etag_of(record), shown)
    elif named.member is None and request.method == "GET":
        items = dig(context.response_json, "data")
        for record in items if isinstance(items, list) else ():
            shown = _shown(record, context.index)
            if shown is not None and isinstance(record.get("id"), str):
                _learn(context, named.scope, (record["id"],), _etag_of(record), shown)


def _shown(record: Any, index: int) -> Shown | None:
    return Shown(fingerprint(record), index) if isinstance(record, dict) else None


def _etag_of(record: Any) -> str | None:
    """The version a representation without an ETag header names: `W/"<data.meta.etag_id>"`."""
    etag_id = dig(record, "meta", "etag_id")
    return f'W/"{etag_id}"' if isinstance(etag_id, str) and etag_id else None


def _learn(
    context: CheckContext,
    slug: str,
    ids: tuple[str, ...],
    etag: str | None,
    shown: Shown,
    judged: bool = False,
) -> None:
    """Remember `shown` as the entry's last answer. A read (`judged`: the ETag rules have just compared
    it with what was remembered, and reported any change) becomes the baseline of its version, merged
    with what was known of it: showing the same representation again under that ETag is then the fact
    already reported, not a new one. Another answer is not judged, so the baseline stays until a read."""
    memory = context.session.entries
    earlier = [state for state in (memory.get((slug, member)) for member in ids) if state is not None]
    before = max(earlier, key=lambda state: state.shown.exchange, default=None)
    by_etag = dict(before.by_etag) if before else {}
    if etag is not None:
        named = by_etag.pop(etag, None)
        by_etag[etag] = shown if named is None else merged(named, shown) if judged else named
        while len(by_etag) > ETAGS_REMEMBERED:
            del by_etag[next(iter(by_etag))]
    since = shown
    if before is not None and etag is not None and etag == before.etag:
        since = merged(merged(before.since, before.shown), shown) if judged else before.since
    state = EntryState(etag, shown, since, by_etag)
    for member in ids:
        memory.put((slug, member), state)
