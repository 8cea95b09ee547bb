"""JSON values compared as JSON means them: a number by its value however it is spelled (`1`, `1.0`, `1E0`,
`-0`), and `true` never equal to `1` (Python says it is). Pure: no I/O, no state.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core.model.json_text import is_integral


def canonical(value: Any) -> Any:
    """The value with every number as the plainest number of its value (an integral float as an int, a
    number read with its spelling as a plain int or float) and booleans kept as booleans."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return int(value) if is_integral(value) else float(value)
    if isinstance(value, dict):
        return {str(key): canonical(part) for key, part in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(part) for part in value]
    return value


def canonical_text(value: Any) -> str:
    """The value's JSON in one spelling for every spelling of it (keys sorted, numbers canonical)."""
    return json.dumps(canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def same_value(first: Any, second: Any) -> bool:
    """Whether two JSON values are one value: numbers by value, `true` not `1`, objects by members."""
    if first is second:
        return True
    if isinstance(first, str) or isinstance(second, str):
        return bool(first == second)
    return canonical_text(first) == canonical_text(second)
