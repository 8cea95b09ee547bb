"""Checks of authentication and of what the documentation covers at all.

Spec (`commerce-api.md`), "Authentication", "Errors" (not shown) and "What the service does".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.model.exchange import is_bearer
from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.registry import check
from proxy.core.rules.findings import Violation


@check("bearer_token_sent", judges="request")
def bearer_token_sent(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Authentication: documented operations require `Authorization: Bearer <ACCESS_TOKEN>`
    (a token the cassette shows redacted still counts as sent)."""
    header = context.request_header("Authorization")
    if not is_bearer(header):
        yield Violation(
            "headers.Authorization", "Bearer <ACCESS_TOKEN>", repr(header) if header else "absent"
        )


@check("undocumented_endpoint", judges="note")
def undocumented_endpoint(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, What the service does: only three operations are documented; others are not checked."""
    request = context.exchange.request
    yield Violation("request", "an operation the documentation describes", f"{request.method} {request.path}")


@check("error_body", judges="note")
def error_body(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """Spec, Errors: not shown, so an error answer's body cannot be checked."""
    if context.status >= 400:
        yield Violation("body", "a documented error format (there is none)", f"status {context.status}")
