"""mitmproxy flows to exchanges, and flow files read with mitmproxy's own `io.FlowReader`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from mitmproxy import http, io
from mitmproxy.exceptions import FlowReadException

from proxy.core.interchange.imports import Imported
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.model.links import origin_of
from proxy.errors import CassetteFormatError


def flow_headers(fields: tuple[tuple[bytes, bytes], ...]) -> Headers:
    """Header bytes as text, order, case and repeats kept (latin-1 cannot fail, as in HTTP/1.1)."""
    return tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in fields)


def stamp(timestamp: float | None) -> str | None:
    """A flow's epoch timestamp in the cassette's `recorded_at` form."""
    if not timestamp:
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def exchange_from_flow(flow: http.HTTPFlow) -> Imported | None:
    """One HTTP flow as an exchange and its origin; None when it got no response."""
    response = flow.response
    if response is None:
        return None
    request = flow.request
    response_headers = flow_headers(response.headers.fields)
    duration = None
    if response.timestamp_end and request.timestamp_start:
        duration = round((response.timestamp_end - request.timestamp_start) * 1000, 3)
    exchange = Exchange(
        request_from_flow(flow),
        Response(
            response.status_code,
            response_headers,
            body_from_bytes(response.raw_content or b"", response_headers),
            response.reason or None,
        ),
        stamp(request.timestamp_start),
        duration,
    )
    return Imported(flow_origin(flow), exchange)


def flow_origin(flow: http.HTTPFlow) -> str:
    """The origin a flow's request went to."""
    request = flow.request
    return origin_of(f"{request.scheme}://{_host(request.host)}:{request.port}")


def request_from_flow(flow: http.HTTPFlow) -> Request:
    """A flow's request as the core sees it (`BodyTooLarge` for a body inflating past the limit)."""
    request = flow.request
    path, _, query = request.path.partition("?")
    headers = flow_headers(request.headers.fields)
    return Request(
        request.method.upper(),
        path or "/",
        query,
        headers,
        body_from_bytes(request.raw_content or b"", headers),
    )


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def read_flows(handle: BinaryIO, path: Path) -> Iterator[Imported]:
    """The HTTP exchanges of a mitmproxy flow file (`mitmdump -w`) opened as `handle`, in file order."""
    try:
        for flow in io.FlowReader(handle).stream():
            if isinstance(flow, http.HTTPFlow):
                imported = exchange_from_flow(flow)
                if imported is not None:
                    yield imported
    except FlowReadException as error:
        raise CassetteFormatError(f"{path}: not a mitmproxy flow file: {error}") from None
    except ValueError as error:
        raise CassetteFormatError(f"{path}: not a mitmproxy flow file: {error}") from None
