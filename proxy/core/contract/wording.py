"""What a finding of the schema says, from one error of the validator: the one place its words become
the finding's `expected` and `found`. No I/O.

The validator's own message is kept where it reads as what the traffic had (`"x" is not of type
"integer"`, `"id" is a required property`); where it would read backwards or name no value, the two
halves are said plainly: `const` (expected `"thing"`, found `"other"`, where the validator says
`"thing" was expected`) and a `false` schema (expected no value, found the value).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs

MAX_SHOWN = 120  # characters of a value quoted in a finding


def worded(error: Any, keyword: str) -> tuple[str, str]:
    """The finding's `expected` and `found` for one validator error at the spec's `keyword`."""
    kind = error.kind
    if keyword == "discriminator":  # its value's check (`schemas._Bundle._discriminate`): an enum or required
        return "a value the schema's `discriminator` maps to a branch", str(error.message)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Constant):
        return f"{shown(kind.expected_value)} (the schema's `const`)", shown(error.instance)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.FalseSchema):
        return "no value here (the schema is `false`)", shown(error.instance)
    return f"the schema's `{keyword}` met", str(error.message)


def shown(value: Any) -> str:
    """A value as compact JSON, cut at `MAX_SHOWN` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
