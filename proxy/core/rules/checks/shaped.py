"""The generic check behind every rule that is a part of a documented shape (a JSON Schema)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from proxy.core.rules.checks.context import CheckContext
from proxy.core.rules.checks.registry import check
from proxy.core.rules.findings import Violation

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


SHAPE_CHECK = "shape"


def shape_document(check_name: str, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (shape, document) a rule reports on when its check is `shape`: such a rule finds nothing
    when that document conforms, so the engine need not run it then."""
    if check_name != SHAPE_CHECK:
        return None
    return params["shape"], params.get("document", "response")


@check(SHAPE_CHECK, SHAPE_PARAMETERS)
def shape_part(context: CheckContext, params: Mapping[str, Any]) -> Iterator[Violation]:
    """The request or response body breaks a part of a shape (every part when `part` is not given):
    one violation naming every place, so a rule makes one finding of an exchange."""
    wanted = params.get("part")
    found = [
        item.violation
        for item in context.shape_violations(params["shape"], params.get("document", "response"))
        if wanted is None or item.part == wanted
    ]
    if len(found) == 1:
        yield found[0]
    elif found:
        yield Violation(
            where=", ".join(dict.fromkeys(violation.where for violation in found)),
            expected="; ".join(dict.fromkeys(violation.expected for violation in found)),
            found="; ".join(dict.fromkeys(violation.found for violation in found)),
        )
