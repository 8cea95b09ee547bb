"""What the unseen corpus is made of: the Unseen record with its classification, and the builders the
sources share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proxy.core.model.exchange import Exchange
from tests.unit.core.exchanges import BEARER, exchange

TRUE, NOTE = "true", "note"
MOLTIN = "https://api.moltin.com"
USEAST = "https://useast.api.elasticpath.com"
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)


@dataclass(frozen=True)
class Unseen:
    """Exchanges from one source, their expected findings (exchange, rule, where, TRUE or NOTE), and
    how the tool on main differed from them: (kind, defect class, what)."""

    source: str
    exchanges: list[Exchange]
    findings: list[tuple[int, str, str, str]] = field(default_factory=list)
    on_main: list[tuple[str, str, str]] = field(default_factory=list)


def token() -> Exchange:
    """RB: every cassette starts with the client_credentials grant (secrets left out here)."""
    answer = {
        "expires": 1491385999,
        "identifier": "client_credentials",
        "expires_in": 3600,
        "access_token": "<redacted>",
        "token_type": "Bearer",
    }
    return exchange("POST", "/oauth/access_token", body=answer, request_headers=FORM)


def get(path: str, query: str, body: Any, status: int = 200) -> Exchange:
    return exchange("GET", path, query, status=status, body=body, request_headers=BEARER)


def error(title: str, detail: str | None = None, **extra: Any) -> dict[str, Any]:
    """An error body as the source has it: `status` (int or string) only where it has one."""
    one: dict[str, Any] = {"title": title, **extra}
    if detail is not None:
        one["detail"] = detail
    return {"errors": [one]}
