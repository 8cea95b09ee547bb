"""The heads the published specs speak of, compared between two answers (`verify` and `cassette diff`
with `--spec`). No I/O.

Without a spec the comparison (`proxy.core.drift.compare`) looks at the Content-Type's media type, the
ETag and the Date alone: other heads change by call (request ids, rate limits) and say nothing. A spec
says more, so given one every head it documents for the newer answer's response is compared too, and
the Content-Type with its parameters as far as the response's `content` keys tell them apart
(`application/json; charset=utf-8` documented, `application/json` not). The differences made here get
the comparison's tiers (a head gone is breaking, a head that appeared additive, another value of a head
volatile, a Content-Type another key documents data); `SpecTiers` then tiers them with the rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from proxy.core.contract import media_types
from proxy.core.contract.judge import Contract, DeclaredHeader
from proxy.core.contract.operations import Operation
from proxy.core.drift.compare import ABSENT, Difference, Tier
from proxy.core.model.exchange import Response, header_value

CONTENT_TYPE = "headers.Content-Type"


def declared(contract: Contract, operation: Operation, status: int) -> dict[str, DeclaredHeader]:
    """The heads the operation's response for `status` declares, by their place (`headers.x-name`,
    lower-case)."""
    documented = contract.documented_response(operation, status)
    if documented is None:
        return {}
    return {
        f"headers.{header.name}".lower(): header
        for header in contract.declared_headers(documented.name, documented.pointer, documented.node)
    }


def head_differences(
    contract: Contract,
    operations: Sequence[Operation],
    recorded: Response,
    live: Response,
    found: Sequence[Difference],
) -> list[Difference]:
    """The differences of the heads the specs document for the newer answer (each spec that knows
    the operation) that the comparison, `found`, did not make already."""
    said = {item.where.lower() for item in found if item.kind == "header"}
    made: list[Difference] = []
    for operation in operations:
        for item in _differences(contract, operation, recorded, live):
            if item.where.lower() not in said:
                said.add(item.where.lower())
                made.append(item)
    return made


def _differences(
    contract: Contract, operation: Operation, recorded: Response, live: Response
) -> Iterator[Difference]:
    for header in declared(contract, operation, live.status).values():
        old, new = header_value(recorded.headers, header.name), header_value(live.headers, header.name)
        if old != new:
            tier: Tier = "breaking" if new is None else "additive" if old is None else "volatile"
            yield Difference(tier, f"headers.{header.name}", _side(old), _side(new), kind="header")
    documented = contract.documented_response(operation, live.status)
    content = documented.node.get("content") if documented is not None else None
    old, new = header_value(recorded.headers, "Content-Type"), header_value(live.headers, "Content-Type")
    if (
        isinstance(content, Mapping)
        and old is not None
        and new is not None
        and media_types.documenting(content, old) != media_types.documenting(content, new)
    ):
        yield Difference("data", CONTENT_TYPE, old, new, kind="header")


def _side(value: str | None) -> Any:
    return ABSENT if value is None else value
