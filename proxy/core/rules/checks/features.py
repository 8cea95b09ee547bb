"""Checks of the subscription feature update: identity, timestamps and the partial-update semantics.

Spec (`commerce-api.md`), "Update a feature" rules 1-3 and "Resources and their fields > Feature".
Update semantics compare a response with the last state of the same feature any answer in this session
showed: its read, its update, its create, or an item of the features list (the published subscriptions
spec answers each of them with the Feature shape).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.registry import check, integer_parameters, observer
from proxy.core.rules.checks.resources import feature_named
from proxy.core.rules.checks.session import FeatureState
from proxy.core.rules.checks.timestamps import timestamp_key
from proxy.core.rules.checks.values import same_value
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import Violation
from proxy.core.rules.shapes import shown

FEATURE_ID = "feature_uuid"
REMOVABLE = ("external_ref", "description")


def _before(context: CheckContext) -> FeatureState | None:
    """The last state shown of the feature the path names (whatever its spelling)."""
    named = feature_named(context.exchange.request.path)
    return context.session.features.get(named.member) if named and named.member else None


def _compared(before: FeatureState, answered: dict[str, Any]) -> list[str]:
    """The attributes an answer and the earlier state both show. A feature's own answer shows all its
    attributes (one it lacks is absent); a list item may leave some out, so only those it shows count."""
    names = (set(before.attributes) | set(answered)) if before.complete else set(before.attributes)
    return sorted(names)


def _sent_attributes(context: CheckContext) -> dict[str, Any] | None:
    sent = dig(context.request_json, "data", "attributes")
    return sent if isinstance(sent, dict) else None


def _answered_attributes(context: CheckContext) -> dict[str, Any] | None:
    answered = dig(context.response_json, "data", "attributes")
    return answered if isinstance(answered, dict) else None


def _malformed(context: CheckContext, document: str, place: str) -> bool:
    """Whether the value at `place` (or inside it) breaks its field's own documented shape. That shape's
    rule reports the value; a rule comparing it with another value (what was sent, the path, the state
    before) stays quiet, so one wrong value is one finding."""
    shape = "feature" if document == "response" else "feature-update"
    if shape not in context.shapes:
        return False
    inside = (f"{place}.", f"{place}[")
    return any(
        item.violation.where == place or item.violation.where.startswith(inside)
        for item in context.shape_violations(shape, document)
    )


ABSENT = object()  # a key the object does not have (as null, a removed attribute, for equality)


def _changes(place: str, old: Any, new: Any, keys_of_old: bool = False) -> Iterator[tuple[str, Any, Any]]:
    """Each deepest place where `new` differs from `old`, with the two values there: objects are
    compared key by key (on `old`'s keys alone with `keys_of_old`: extra fields of the service's own
    are allowed in what it answers), arrays of one length item by item; absent equals null, and a
    number equals the same number however spelled (`1`, `1.0`, `1E0`), never `true`."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = list(old) if keys_of_old else [*old, *(key for key in new if key not in old)]
        for key in keys:
            yield from _changes(f"{place}.{key}", old.get(key, ABSENT), new.get(key, ABSENT), keys_of_old)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (was, now) in enumerate(zip(old, new, strict=True)):
            yield from _changes(f"{place}[{index}]", was, now, keys_of_old)
    elif not same_value(None if old is ABSENT else old, None if new is ABSENT else new):
        yield place, old, new


def _value(value: Any) -> str:
    return "absent" if value is ABSENT else shown(value)


@check("feature_id_matches_path")
def feature_id_matches_path(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Update a feature: the feature returned is the one in the path (`data.id`, when present)."""
    returned = dig(context.response_json, "data", "id")
    wanted = context.hit.params.get(FEATURE_ID)
    if (
        isinstance(returned, str)
        and wanted
        and returned.lower() != wanted.lower()
        and not _malformed(context, "response", "data.id")
    ):
        yield Violation("data.id", f"{wanted!r} (the path's feature_uuid)", repr(returned))


@check("configuration_in_published_shape", judges="note")
def configuration_in_published_shape(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """api-notes, Features: a promotion configuration may hold its tags in `promotions[]` with no
    top-level `tag`, a shape the published schema allows and commerce-api.md does not list (noted, so a
    reader knows the tag rules looked inside it)."""
    places = []
    for side, document in (("request", context.request_json), ("response", context.response_json)):
        configuration = dig(document, "data", "attributes", "configuration")
        if (
            isinstance(configuration, dict)
            and configuration.get("type") == "promotion"
            and isinstance(configuration.get("promotions"), list)
            and "tag" not in configuration
        ):
            places.append((side, len(configuration["promotions"])))
    if places:
        yield Violation(
            ", ".join(f"{side}: data.attributes.configuration" for side, _ in places),
            "type and tag (the documented shape)",
            f"type promotion with promotions[] ({places[0][1]}), the tags inside (the published shape)",
        )


@check("timestamps_in_order")
def timestamps_in_order(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Feature fields: `updated_at` is the last update, so it is never before `created_at`."""
    stamps = dig(context.response_json, "data", "meta", "timestamps")
    created = timestamp_key(dig(stamps, "created_at"))
    updated = timestamp_key(dig(stamps, "updated_at"))
    if created is not None and updated is not None and updated < created:
        yield Violation(
            "data.meta.timestamps.updated_at",
            f"not before created_at {stamps['created_at']}",
            str(stamps["updated_at"]),
        )


@check("success_status", integer_parameters("status"))
def success_status(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """api-notes, Errors: the real service answers a successful update with one status (200)."""
    if context.succeeded and context.status != params["status"]:
        yield Violation("status", str(params["status"]), str(context.status))


@check("update_applies_sent_attributes")
def update_applies_sent_attributes(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Update a feature rule 1: every attribute sent comes back with the value sent (reported at
    each deepest place that differs inside an object sent; extra fields of the service's own inside
    it are allowed: api-notes, Features). A null sent is no value to echo: at the top it is a removal
    (update_null_removes'), and inside an object (a configuration key) the documentation gives it no
    meaning, so what comes back there is not judged."""
    sent, answered = _sent_attributes(context), _answered_attributes(context)
    if sent is None or answered is None:
        return
    for name, value in sent.items():
        if value is None:
            continue  # removal: update_null_removes
        if _malformed(context, "request", f"data.attributes.{name}"):
            continue  # an invalid value sent is the payload's finding, and need not be applied
        for place, wanted, found in _changes(
            f"data.attributes.{name}", value, answered.get(name, ABSENT), True
        ):
            if wanted is not None and not _malformed(context, "response", place):
                yield Violation(place, f"{_value(wanted)} (as sent)", _value(found))


@check("update_null_removes")
def update_null_removes(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Update a feature rule 3: sending null for external_ref or description removes it."""
    sent, answered = _sent_attributes(context), _answered_attributes(context)
    if sent is None or answered is None:
        return
    for name in REMOVABLE:
        place = f"data.attributes.{name}"
        if (
            name in sent
            and sent[name] is None
            and answered.get(name) is not None
            and not _malformed(context, "response", place)
        ):
            yield Violation(place, "absent or null (null was sent)", shown(answered[name]))


def _changed_attributes(
    before: FeatureState, answered: dict[str, Any], sent: Mapping[str, Any]
) -> Iterator[tuple[str, Any, Any]]:
    """Each deepest place where an attribute not sent differs from the state before (see `_compared`)."""
    for name in _compared(before, answered):
        if name not in sent:
            was, now = before.attributes.get(name, ABSENT), answered.get(name, ABSENT)
            yield from _changes(f"data.attributes.{name}", was, now)


@check("update_keeps_other_attributes")
def update_keeps_other_attributes(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Update a feature rule 1: attributes not sent keep the values they had before the update
    (each deepest place that changed is one finding, as for the attributes sent)."""
    sent, answered = _sent_attributes(context), _answered_attributes(context)
    before = _before(context)
    if sent is None or answered is None or before is None or not sent:
        return  # an empty update is empty_update_changes_nothing's
    for place, old, new in _changed_attributes(before, answered, sent):
        if not _malformed(context, "response", place):
            since = before.attribute_shown_at(place.split(".")[2])
            yield Violation(place, f"{_value(old)} (unchanged since exchange {since}: not sent)", _value(new))


@check("empty_update_changes_nothing")
def empty_update_changes_nothing(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Update a feature rule 2: with empty `attributes` the feature, `updated_at` included, stays.
    The fact is one, the feature was updated: one finding naming every place that changed."""
    sent, answered = _sent_attributes(context), _answered_attributes(context)
    before = _before(context)
    if sent != {} or answered is None or before is None:
        return
    changes = list(_changed_attributes(before, answered, {}))
    updated = dig(context.response_json, "data", "meta", "timestamps", "updated_at")
    if updated != before.updated_at and (before.complete or before.updated_at is not None):
        changes.append(("data.meta.timestamps.updated_at", before.updated_at, updated))
    changes = [change for change in changes if not _malformed(context, "response", change[0])]
    if changes:
        yield Violation(
            ", ".join(place for place, _, _ in changes),
            "; ".join(_value(old) for _, old, _ in changes)
            + f" (as at exchange {before.exchange}: empty update)",
            "; ".join(_value(new) for _, _, new in changes),
        )


def _shows_features(method: str, path: str, hit: EndpointHit, query: str) -> bool:
    return method in ("GET", "PUT", "POST") and feature_named(path) is not None


@observer(watches=_shows_features)
def remember_feature(context: CheckContext) -> None:
    """Keep the state each successful answer shows of a feature, for the next update of it: a read or
    update (keyed on the path's id), a create (on `data.id`), or each item of the features list (on its
    `id`, as an incomplete state)."""
    request = context.exchange.request
    named = feature_named(request.path)
    if named is None or not context.succeeded:  # (before the body: `observe` parses only what it needs)
        return
    data = dig(context.response_json, "data")
    if named.member is not None and request.method in ("GET", "PUT"):
        _learn(context, named.member, data, complete=True)
    elif named.member is None and request.method == "POST":
        _learn(context, _id_of(data), data, complete=True)
    elif named.member is None and request.method == "GET" and isinstance(data, list):
        for record in data:
            _learn(context, _id_of(record), record, complete=False)


def _id_of(record: Any) -> str | None:
    found = dig(record, "id")
    return found.lower() if isinstance(found, str) and found else None


def _learn(context: CheckContext, key: str | None, record: Any, complete: bool) -> None:
    """Keep what `record` shows of the feature: a feature's own answer replaces the state (an attribute
    it lacks is absent); a list item is merged into it (an attribute it does not show is unknown, and
    keeps the value an earlier answer showed). A state older than the one known (an earlier
    `updated_at`: the spec warns that a list may show records as they were) replaces nothing."""
    attributes = dig(record, "attributes")
    if key is None or not isinstance(attributes, dict):
        return
    before = context.session.features.get(key)
    updated = dig(record, "meta", "timestamps", "updated_at")
    if before is not None and _older(updated, before.updated_at):
        return
    shown_at = dict.fromkeys(attributes, context.index)
    if before is not None and not complete:
        attributes = {**before.attributes, **attributes}
        shown_at = {**{name: before.attribute_shown_at(name) for name in before.attributes}, **shown_at}
        complete = before.complete
        updated = before.updated_at if updated is None else updated
    state = FeatureState(dict(attributes), updated, context.index, complete, shown_at)
    context.session.features.put(key, state)


def _older(updated: Any, known: Any) -> bool:
    mine, newest = timestamp_key(updated), timestamp_key(known)
    return mine is not None and newest is not None and mine < newest
