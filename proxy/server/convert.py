"""Converting between wire messages and core values, at the adapter boundary only."""

from __future__ import annotations

from proxy.core.model.bodies import body_from_bytes, error_document
from proxy.core.model.browser import browser_icon_request
from proxy.core.model.exchange import Request, Response
from proxy.errors import BodyTooLarge
from proxy.server.wire import Incoming, Outgoing, json_answer


def core_response(answer: Outgoing) -> Response:
    """The core value of an answer we built (replay's), to check what a client was really served."""
    return Response(
        status=answer.status,
        headers=answer.headers,
        body=body_from_bytes(answer.body, answer.headers),
        reason=answer.reason,
    )


def core_request(incoming: Incoming, path: str, query: str) -> Request | Outgoing:
    """The request as the core sees it, or the 413 for a compressed body that inflates past the limit
    (a gzip bomb is never inflated whole); such a request is neither forwarded nor recorded."""
    try:
        body = body_from_bytes(incoming.body, incoming.headers)
    except BodyTooLarge as error:
        return json_answer(413, error_document(413, "Payload Too Large", f"{error}; not served"))
    return Request(incoming.method, path, query, incoming.headers, body)


def served_here(incoming: Incoming, path: str) -> Outgoing | None:
    """The answer to a request no client of the API made (a browser's own icon fetch, provoked by a page
    of ours), which record, spy and replay give themselves: never forwarded, recorded or matched."""
    if browser_icon_request(incoming.method, path, incoming.headers):
        detail = f"{path[:80]}: a browser's own icon request; commerce-proxy neither forwards nor records it"
        return json_answer(404, error_document(404, "Not Found", detail))
    return None
