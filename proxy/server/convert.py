"""Converting between wire messages and core values, at the adapter boundary only."""

from __future__ import annotations

from proxy.core.bodies import body_from_bytes
from proxy.core.exchange import Response
from proxy.server.wire import Outgoing

ADMIN_PREFIX = "/_proxy/"


def core_response(answer: Outgoing) -> Response:
    """The core value of an answer we built (replay's), to check what a client was really served."""
    return Response(
        status=answer.status,
        headers=answer.headers,
        body=body_from_bytes(answer.body, answer.headers),
        reason=answer.reason,
    )
