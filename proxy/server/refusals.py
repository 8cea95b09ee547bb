"""The requests the wire server refuses before serving them: the refusal, and the one for a target that
is not a path."""

from __future__ import annotations

from proxy.core.model.access import unreadable_target


class RequestRefused(Exception):
    """A request this server answers with an error status and then closes the connection."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status


def target_refusal(method: bytes, target: bytes) -> RequestRefused | None:
    """Only origin-form targets (`/path?query`) are served: these servers stand for one origin, and a
    stored request is a path; and only those a server reads one way (`access.unreadable_target`: no
    `#`, no escape left after the decoding limit). The target is not echoed: its query may carry a
    secret."""
    if target.startswith(b"/"):
        why = unreadable_target(target.decode("latin-1"))
        return None if why is None else RequestRefused(400, f"{why}; nothing was forwarded")
    advice = (
        "this server stands for one origin: make its address the client's base URL and send paths "
        "(forward-proxy clients: use the mitmproxy addon)"
    )
    if method == b"CONNECT":
        return RequestRefused(501, f"CONNECT (a tunnel through a forward proxy) is not served; {advice}")
    if target == b"*":
        return RequestRefused(501, f"a request for '*' (server-wide OPTIONS) is not served; {advice}")
    return RequestRefused(
        400, f"a request target that is not a path (an absolute URL?) is not served; {advice}"
    )
