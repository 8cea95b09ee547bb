"""What a simulated answer is, and the pieces every simulated answer shares (error bodies, timestamps)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from proxy.core.model.exchange import Body, Exchange, Headers, Response, header_value, is_bearer

SIMULATED_HEADER = ("X-Commerce-Proxy", "simulated")
FRACTION = re.compile(r"\.(\d+)Z$")


@dataclass(frozen=True, slots=True)
class Simulated:
    """A simulated answer, the recordings it rests on (they count as used), and one line for the log."""

    response: Response
    sources: tuple[int, ...]
    template: int | None  # the recording whose latency and headers it copies
    summary: str


@dataclass(frozen=True, slots=True)
class Unanswerable:
    """The simulator knows the resource but cannot answer without inventing data."""

    detail: str


def json_answer(
    status: int, document: Any, template: Exchange | None = None, extra: Headers = ()
) -> Response:
    """A JSON response with the recording's Content-Type (else application/json), marked simulated."""
    content_type = header_value(template.response.headers, "Content-Type") if template else None
    headers = (("Content-Type", content_type or "application/json"), *extra, SIMULATED_HEADER)
    return Response(status=status, headers=headers, body=Body("json", document))


def error_document(status: int, title: str, problems: list[tuple[str | None, str]]) -> dict[str, Any]:
    """The service's `{"errors": [...]}` shape (api-notes, Errors): one item per problem."""
    errors = []
    for source, detail in problems:
        error: dict[str, Any] = {"status": str(status), "title": title, "detail": detail}
        if source:
            error["source"] = source
        errors.append(error)
    return {"errors": errors}


def refusal(status: int, title: str, problems: list[tuple[str | None, str]], summary: str) -> Simulated:
    """A simulated refusal in the service's error shape."""
    return Simulated(json_answer(status, error_document(status, title, problems)), (), None, summary)


def not_json(summary: str) -> Simulated:
    """A body that is not JSON: 400 Bad Request."""
    return refusal(400, "Bad Request", [(None, "the request body is not valid JSON")], f"{summary}: refused")


def invalid(problems: list[tuple[str | None, str]], summary: str) -> Simulated:
    """A payload the documented rules refuse: 400 Validation Error, one item per problem."""
    return refusal(400, "Validation Error", problems, f"{summary}: refused ({len(problems)} problem(s))")


def missing_bearer(headers: Headers) -> bool:
    """Spec, Authentication: the documented operations need `Authorization: Bearer <token>`."""
    return not is_bearer(header_value(headers, "Authorization"))


def stamp_like(recorded: Any, now: str) -> str:
    """`now` (ISO 8601, microseconds, Z) with as many fraction digits as the recorded timestamp."""
    if not isinstance(recorded, str) or not recorded.endswith("Z"):
        return now
    found = FRACTION.search(recorded)
    digits = len(found[1]) if found else 0
    head, _, fraction = now.removesuffix("Z").partition(".")
    return f"{head}.{(fraction + '0' * digits)[:digits]}Z" if digits else f"{head}Z"
