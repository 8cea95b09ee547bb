"""What replay moves to today: a recorded token answer's `expires` (an epoch second) becomes now plus its
`expires_in`, and its `Date` now, so a client that signs in again whenever `expires` is past does not
loop on a week-old cassette. Both are edited in place: every other byte of the answer stays as recorded.
Pure: the time is handed in.
"""

from __future__ import annotations

import re
from email.utils import formatdate
from typing import Any

from proxy.core.model.exchange import Exchange, Headers
from proxy.core.redaction.redact import is_token_request

EXPIRES = re.compile(rb'("expires"\s*:\s*)(-?[0-9]+)(?![0-9.eE])')


def moves_to_now(exchange: Exchange) -> bool:
    """A token answer whose `expires` can be moved: numeric `expires` and `expires_in`."""
    body = exchange.response.body
    if not is_token_request(exchange.request) or body.kind != "json" or not isinstance(body.value, dict):
        return False
    return _whole(body.value.get("expires")) and _whole(body.value.get("expires_in"))


def token_answer_now(exchange: Exchange, headers: Headers, body: bytes, now: float) -> tuple[Headers, bytes]:
    """The answer's headers and body bytes with `expires` = now + expires_in and `Date` = now."""
    document = exchange.response.body.value
    assert isinstance(document, dict)
    lifetime = document["expires_in"]
    assert isinstance(lifetime, int)
    expires = str(int(now) + lifetime).encode()
    recorded = str(document["expires"]).encode()
    moved = EXPIRES.sub(lambda found: found[1] + expires if found[2] == recorded else found[0], body, count=1)
    date = formatdate(now, usegmt=True)
    dated = tuple((name, date) if name.lower() == "date" else (name, value) for name, value in headers)
    return dated, moved


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
