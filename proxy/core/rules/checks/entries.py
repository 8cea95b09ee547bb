"""Checks of the custom API entry read: the weak ETag, its hash, and how it follows the entry's changes.

Spec (`commerce-api.md`), "Get a custom API entry through the extensions endpoint", rules 1 and 2.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext, dig
from proxy.core.rules.checks.registry import check, observer
from proxy.core.rules.checks.session import EntryState
from proxy.core.rules.endpoints import EndpointHit
from proxy.core.rules.findings import Violation

WEAK_ETAG = re.compile(r'W/"([^"]*)"')
ENTRY_ID = "custom_api_entry_id"
ETAGS_REMEMBERED = 64  # per entry


def _etag_id(context: CheckContext) -> Any:
    return dig(context.response_json, "data", "meta", "etag_id")


def _digest(context: CheckContext) -> str:
    """A fingerprint of the representation: the JSON body with keys sorted, else the raw value."""
    body = context.exchange.response.body
    value = context.response_json if body.kind == "json" else body.value
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{body.kind}:{text}".encode()).hexdigest()


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


@check("etag_changes_with_entry")
def etag_changes_with_entry(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: when the entry changes, its ETag changes."""
    before = context.session.entries.get(context.exchange.request.path)
    etag = context.response_header("ETag")
    if before is None or etag is None or before.etag != etag:
        return
    if before.digest != _digest(context):
        yield Violation(
            "headers.ETag",
            f"a new ETag: the entry differs from exchange {before.exchange}",
            f"the same ETag {etag}",
        )


@check("etag_identifies_version")
def etag_identifies_version(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Get a custom API entry rule 1: an ETag identifies one version, so it never comes back
    with another representation (the last read is etag_changes_with_entry's)."""
    before = context.session.entries.get(context.exchange.request.path)
    etag = context.response_header("ETag")
    if before is None or etag is None or before.etag == etag:
        return
    earlier = before.digests_by_etag.get(etag)
    if earlier is not None and earlier[0] != _digest(context):
        yield Violation(
            "headers.ETag",
            f"the representation of exchange {earlier[1]}, which had this ETag",
            f"{etag} on a different representation",
        )


def _entry_read(method: str, hit: EndpointHit, query: str) -> bool:
    return method == "GET" and ENTRY_ID in hit.params


@observer(watches=_entry_read)
def remember_entry(context: CheckContext) -> None:
    """Keep each entry's last ETag and representation, and which representation each ETag named."""
    if not context.succeeded:
        return
    path = context.exchange.request.path
    etag = context.response_header("ETag")
    digest = _digest(context)
    before = context.session.entries.get(path)
    by_etag = dict(before.digests_by_etag) if before else {}
    if etag is not None:
        by_etag.setdefault(etag, (digest, context.index))
        while len(by_etag) > ETAGS_REMEMBERED:
            del by_etag[next(iter(by_etag))]
    context.session.entries.put(path, EntryState(etag, digest, context.index, by_etag))
