"""Custom API entries read and changed offline, with an ETag that always equals `W/"<etag_id>"`.

Spec, "Get a custom API entry through the extensions endpoint" rules 1-2; api-notes, "Custom API
entries" (fields on `data`, `data.meta.etag_id`, `resource_version`, If-Match and 412). The service's
own formula for `etag_id` and `data_size` is not documented: a simulated change computes `etag_id` as a
SHA-256 of the entry's id, fields and version, and `data_size` as the JSON size of its fields.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from proxy.core.model.exchange import Exchange, Request, header_value
from proxy.core.replay.simulation.answers import (
    Simulated,
    invalid,
    json_answer,
    not_json,
    refusal,
    stamp_like,
)
from proxy.core.rules.checks.context import dig, is_integer
from proxy.core.rules.endpoints import routed_path

ENTRY_PATH = re.compile(r"^/v2/extensions/(?P<slug>[^/]+)/(?P<id>[^/]+)$")
RESERVED = ("id", "type", "links", "meta")
EntryKey = tuple[str, str]


@dataclass(slots=True)
class KnownEntry:
    """An entry's current state, its ETag, the recording it came from, and whether the session changed it."""

    data: dict[str, Any]
    etag: str | None
    number: int
    changed: bool = False


def entry_key(request: Request) -> EntryKey | None:
    """(slug, entry id) of a request on `/v2/extensions/{slug}/{id}`, else None."""
    found = ENTRY_PATH.match(unquote(routed_path(request.path)))
    return (found["slug"], found["id"]) if found else None


def learned_entry(number: int, exchange: Exchange) -> tuple[EntryKey, KnownEntry] | None:
    """The entry a successful GET or PUT answer shows, with its ETag."""
    key = entry_key(exchange.request)
    response = exchange.response
    data = dig(response.body.value, "data") if response.body.kind == "json" else None
    method = exchange.request.method.upper()
    if key is None or method not in ("GET", "PUT") or not 200 <= response.status < 300:
        return None
    if not isinstance(data, dict):
        return None
    return key, KnownEntry(copy.deepcopy(data), header_value(response.headers, "ETag"), number)


def etag_of(entry: KnownEntry) -> str | None:
    """Rule 2: `W/"<etag_id>"`; the recorded header when the entry carries no etag_id (published GET)."""
    etag_id = dig(entry.data, "meta", "etag_id")
    return f'W/"{etag_id}"' if isinstance(etag_id, str) else entry.etag


def fields_of(data: dict[str, Any]) -> dict[str, Any]:
    """The custom fields of an entry: everything on `data` but id, type, links and meta."""
    return {name: value for name, value in data.items() if name not in RESERVED}


def read(entry: KnownEntry, template: Exchange, request: Request) -> Simulated:
    """GET: the entry as it stands, with its ETag."""
    etag = etag_of(entry)
    extra = (("ETag", etag),) if etag else ()
    response = json_answer(200, {"data": entry.data}, template, extra)
    return Simulated(response, (entry.number,), entry.number, f"GET {request.target}: current state")


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if is_integer(value):
        return "integer"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def payload_problems(entry: KnownEntry, payload: Any) -> list[tuple[str | None, str]]:
    """Fields the entry does not have, or values of another JSON type than the recorded ones."""
    data = dig(payload, "data")
    if not isinstance(data, dict):
        return [("data", "the body must be a JSON object with a 'data' object")]
    problems: list[tuple[str | None, str]] = []
    kind = entry.data.get("type")
    if data.get("type") != kind:
        problems.append(("data.type", f"data.type must be '{kind}', found {data.get('type')!r}"))
    known = fields_of(entry.data)
    for name, value in data.items():
        if name in ("type", "id"):
            continue
        if name not in known:
            problems.append((f"data.{name}", f"{name} is not a field of this custom API"))
        elif known[name] is not None and value is not None and _json_kind(value) != _json_kind(known[name]):
            problems.append((f"data.{name}", f"{name} must be of type {_json_kind(known[name])}"))
    return problems


def restamp(data: dict[str, Any], now: str) -> None:
    """A new version after a change: resource_version + 1, updated_at, etag_id and data_size."""
    meta = data.get("meta")
    if not isinstance(meta, dict):
        return
    if is_integer(meta.get("resource_version")):
        meta["resource_version"] += 1
    timestamps = meta.get("timestamps")
    if isinstance(timestamps, dict) and "updated_at" in timestamps:
        timestamps["updated_at"] = stamp_like(timestamps["updated_at"], now)
    fields = fields_of(data)
    content = json.dumps([data.get("id"), fields, meta.get("resource_version")], sort_keys=True)
    meta["etag_id"] = hashlib.sha256(content.encode()).hexdigest()
    if "data_size" in meta:
        meta["data_size"] = len(json.dumps(fields))


def update(entry: KnownEntry, template: Exchange, request: Request, now: str) -> Simulated:
    """PUT: If-Match guards the version (412 on a mismatch); valid fields change and the ETag with them."""
    target = request.target
    expected, current = header_value(request.headers, "If-Match"), etag_of(entry)
    if expected is not None and expected != current:
        detail = f"The provided ETag {expected} does not match the current ETag {current}"
        return refusal(412, "Precondition Failed", [(None, detail)], f"PUT {target}: 412, stale If-Match")
    if request.body.kind != "json":
        return not_json(f"PUT {target}")
    problems = payload_problems(entry, request.body.value)
    if problems:
        return invalid(problems, f"PUT {target}")
    sent: dict[str, Any] = dig(request.body.value, "data")
    data = copy.deepcopy(entry.data)
    for name, value in sent.items():
        if name not in ("type", "id"):
            data[name] = copy.deepcopy(value)
    restamp(data, now)
    entry.data, entry.changed = data, True
    etag = etag_of(entry)
    entry.etag = etag
    extra = (("ETag", etag),) if etag else ()
    response = json_answer(200, {"data": data}, template, extra)
    return Simulated(response, (entry.number,), entry.number, f"PUT {target}: new version {etag}")
