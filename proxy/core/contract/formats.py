"""The formats the contract validates, judged as the service writes them. No I/O.

`uuid` and `date-time` are the validator's own (strict). `uri` and `uri-reference` are this module's:
the service writes its links with `[` and `]` unencoded in the query (`...?page[offset]=0&page[limit]=25`)
and the specs' own examples of `format: uri` are often relative (`/v2/settings/custom-apis?...`,
`?page[offset]=0`), so RFC 3986's absolute URI would fail every paginated answer. A value is a link when it
parses as a URI reference: no whitespace nor control character, well-formed percent escapes, and an
authority (if any) that parses, its port a number in a port's range.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

_UNFIT = re.compile(r"[\s\x00-\x1f\x7f-\x9f]|%(?![0-9A-Fa-f]{2})")


def is_link(value: str) -> bool:
    """Whether `value` is a URI reference as the service writes one (brackets allowed)."""
    if _UNFIT.search(value) is not None:
        return False
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises on a port that is not a number in range
    except ValueError:
        return False
    return True


VALIDATED = frozenset({"uuid", "date-time", "uri", "uri-reference"})
CUSTOM: Mapping[str, Callable[[str], bool]] = {"uri": is_link, "uri-reference": is_link}
