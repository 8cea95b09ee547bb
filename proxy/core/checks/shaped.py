"""The generic check behind every rule that is a part of a documented shape (a JSON Schema)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.checks.context import CheckContext
from proxy.core.checks.registry import check
from proxy.core.findings import Violation

SHAPE_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "shape": {"type": "string"},
        "part": {"type": "string"},
        "document": {"enum": ["request", "response"]},
    },
    "required": ["shape"],
    "additionalProperties": False,
}


@check("shape", SHAPE_PARAMETERS)
def shape_part(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """The request or response body breaks a part of a shape (every part when `part` is not given)."""
    wanted = params.get("part")
    for item in context.shape_violations(params["shape"], params.get("document", "response")):
        if wanted is None or item.part == wanted:
            yield item.violation
