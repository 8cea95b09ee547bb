"""`sandbox --break RULE_ID`: the sandbox misbehaves in one documented way, for demos and end-to-end tests.

Most breaks rewrite a correct answer (a field, a link, a header); a few change behaviour (accepting what
must be refused). Keys are rule ids of commerce-proxy's shipped rules; the sandbox imports nothing of the
rule in_force, so a test checks every key here is a real rule and that breaking it is detected.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from proxy.sandbox.features import sent_attributes

Document = dict[str, Any]
Headers = dict[str, str]


@dataclass(frozen=True, slots=True)
class Asked:
    """What the broken answer may depend on: the request's query and JSON body."""

    query: dict[str, str]
    payload: Any


Rewrite = Callable[[Document, Headers, Asked], Any]


def _parent(document: Document, place: str) -> tuple[Any, str]:
    """The object holding a dotted place, and the last key."""
    *parents, last = place.split(".")
    node: Any = document
    for step in parents:
        node = node[step]
    return node, last


def _set(place: str, value: Any) -> Rewrite:
    """A rewrite that puts `value` at a dotted place (a callable value is called with the old one)."""

    def rewrite(document: Document, headers: Headers, asked: Asked) -> Any:
        node, last = _parent(document, place)
        node[last] = value(node.get(last)) if callable(value) else value
        return document

    return rewrite


def _delete(place: str) -> Rewrite:
    def rewrite(document: Document, headers: Headers, asked: Asked) -> Any:
        node, last = _parent(document, place)
        node.pop(last, None)
        return document

    return rewrite


def _reverse_sorted(document: Document, headers: Headers, asked: Asked) -> Any:
    if asked.query.get("sort"):
        document["data"] = document["data"][::-1]
    return document


def _wrong_prev(document: Document, headers: Headers, asked: Asked) -> Any:
    links = document["links"]
    links["prev"] = links["first"] if links["prev"] is None else None
    return document


def _shifted_first(document: Document, headers: Headers, asked: Asked) -> Any:
    first = document["links"]["first"]
    if first:
        document["links"]["first"] = first.replace(
            "page[offset]=0", f"page[offset]={document['meta']['page']['limit']}"
        )
    return document


def _total_below_seen(document: Document, headers: Headers, asked: Asked) -> Any:
    seen = document["meta"]["page"]["offset"] + len(document["data"])
    if seen:
        document["meta"]["results"]["total"] = seen - 1
    return document


def _no_next(document: Document, headers: Headers, asked: Asked) -> Any:
    document["links"]["next"] = None if document["links"]["next"] else document["links"]["current"]
    return document


def _strong_etag(document: Document, headers: Headers, asked: Asked) -> Any:
    headers["ETag"] = headers["ETag"].removeprefix("W/")
    return document


def _other_hash(document: Document, headers: Headers, asked: Asked) -> Any:
    headers["ETag"] = 'W/"' + hashlib.sha256(headers["ETag"].encode()).hexdigest() + '"'
    return document


def _no_etag(document: Document, headers: Headers, asked: Asked) -> Any:
    headers.pop("ETag", None)
    return document


def _etag_of(version_key: Callable[[int], int]) -> Rewrite:
    """An ETag header, and the body's etag_id with it, made from the entry id and a key of its
    resource_version: a service whose version tag does not follow the entry (were the body's etag_id
    left true, the header would contradict it: entry.etag.matches-etag-id's finding, not these)."""

    def rewrite(document: Document, headers: Headers, asked: Asked) -> Any:
        version = document["data"]["meta"].get("resource_version", 0)
        tag = hashlib.sha256(f"{document['data'].get('id')}:{version_key(version)}".encode()).hexdigest()
        headers["ETag"] = f'W/"{tag}"'
        document["data"]["meta"]["etag_id"] = tag
        return document

    return rewrite


def _unapplied_name(document: Document, headers: Headers, asked: Asked) -> Any:
    sent = sent_attributes(asked.payload) or {}
    if "name" in sent:
        document["data"]["attributes"]["name"] = f"{sent['name']} (not applied)"
    return document


def _unsent_description_dropped(document: Document, headers: Headers, asked: Asked) -> Any:
    sent = sent_attributes(asked.payload) or {}
    if sent and "description" not in sent:
        document["data"]["attributes"].pop("description", None)
    return document


def _null_ignored(document: Document, headers: Headers, asked: Asked) -> Any:
    sent = sent_attributes(asked.payload) or {}
    for name in ("description", "external_ref"):
        if name in sent and sent[name] is None:
            document["data"]["attributes"][name] = "still here"
    return document


def _empty_update_touches(document: Document, headers: Headers, asked: Asked) -> Any:
    if sent_attributes(asked.payload) == {}:
        document["data"]["meta"]["timestamps"]["updated_at"] = "2099-01-01T00:00:00.000Z"
    return document


LIST_REWRITES: dict[str, Rewrite] = {
    "pagination.envelope.present": lambda document, headers, asked: document["data"],
    "pagination.envelope.data": _set("data", lambda data: {"records": data}),
    "pagination.envelope.links": _delete("links.last"),
    "pagination.envelope.meta": _set("meta", "none"),
    "pagination.envelope.page": _set("meta.page.current", str),
    "pagination.envelope.results": _set("meta.results.total", str),
    "pagination.results.all": _set("meta.results.all", str),
    "pagination.results.all-not-below-total": _set("meta.results.all", lambda count: -1),
    "pagination.total-method.value": _set("meta.results.total_method", "approximate"),
    "pagination.page.limit-max": _set("meta.page.limit", lambda limit: 150),
    "pagination.page.limit-requested": _set("meta.page.limit", lambda limit: limit + 1),
    "pagination.page.data-within-limit": _set("meta.page.limit", lambda limit: 1),
    "pagination.page.offset-requested": _set("meta.page.offset", lambda offset: offset + 1),
    "pagination.page.current": _set("meta.page.current", lambda current: current + 1),
    "pagination.page.total": _set("meta.page.total", lambda pages: pages + 1),
    "pagination.results.total-method-consistent": _total_below_seen,
    "pagination.links.prev": _wrong_prev,
    "pagination.links.next": _no_next,
    "pagination.links.targets": _shifted_first,
    "pagination.sort.honoured": _reverse_sorted,
}
ENTRY_REWRITES: dict[str, Rewrite] = {
    "entry.etag.present": _no_etag,
    "entry.etag.weak": _strong_etag,
    "entry.etag.matches-etag-id": _other_hash,
    "entry.etag.changes-with-entry": _etag_of(lambda version: 0),  # one ETag whatever the version
    "entry.etag.identifies-version": _etag_of(lambda version: version % 2),  # version 2 reuses 0's
}
FEATURE_REWRITES: dict[str, Rewrite] = {
    "feature.envelope": lambda document, headers, asked: document["data"],
    "feature.id.uuid": _set("data.id", "not-a-uuid"),
    "feature.id.matches-path": _set("data.id", "00000000-0000-4000-8000-000000000000"),
    "feature.type": _set("data.type", "feature"),
    "feature.attributes": _set("data.attributes", "none"),
    "feature.name.length": _set("data.attributes.name", "ab"),
    "feature.description.length": _set("data.attributes.description", "d" * 1025),
    "feature.external-ref.length": _set("data.attributes.external_ref", "r" * 2049),
    "feature.configuration.present": _delete("data.attributes.configuration"),
    "feature.configuration.type": _set("data.attributes.configuration.type", "bonus"),
    "feature.configuration.tag": _set("data.attributes.configuration.tag", "not ok!"),
    "feature.meta.present": _delete("data.meta"),
    "feature.meta.owner": _set("data.meta.owner", "nobody"),
    "feature.timestamps.format": _set(
        "data.meta.timestamps.updated_at", lambda stamp: stamp.split(".")[0] + "Z"
    ),
    "feature.timestamps.order": _set("data.meta.timestamps.updated_at", "2000-01-01T00:00:00.000Z"),
    "feature.update.sent-applied": _unapplied_name,
    "feature.update.others-kept": _unsent_description_dropped,
    "feature.update.null-removes": _null_ignored,
    "feature.update.empty-unchanged": _empty_update_touches,
}
# Breaks that change behaviour rather than rewrite an answer.
BEHAVIOURS = frozenset(
    {
        "auth.bearer.accepted-without",  # no token needed
        "pagination.offset.hard-limit-accepted",  # offsets past 10,000 served on orders and files
        "pagination.filter.honoured",  # the filter is ignored
        "feature.update.invalid-accepted",  # payloads are not validated
    }
)
BREAKABLE = frozenset(LIST_REWRITES) | frozenset(ENTRY_REWRITES) | frozenset(FEATURE_REWRITES) | BEHAVIOURS


def rewrite_for(kind: str, broken: Iterable[str]) -> Rewrite | None:
    """The rewrite of answers of this kind (list, entry, feature) that breaking every rule in `broken`
    needs: each rule's own rewrite in turn, in rule order."""
    table = {"list": LIST_REWRITES, "entry": ENTRY_REWRITES, "feature": FEATURE_REWRITES}[kind]
    rewrites = [table[rule] for rule in sorted(broken) if rule in table]
    if not rewrites:
        return None
    if len(rewrites) == 1:
        return rewrites[0]

    def all_of(document: Document, headers: Headers, asked: Asked) -> Any:
        for rewrite in rewrites:
            document = rewrite(document, headers, asked)
        return document

    return all_of
