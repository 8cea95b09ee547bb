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

_BROKEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PARSED_AUTHORITY = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^/?#]*[:\[\]]")  # a port, user, IPv6


def is_link(value: str) -> bool:
    """Whether `value` is a URI reference as the service writes one (brackets allowed). Called for
    every link of every answer: a host without a port, user or IPv6 brackets needs no parsing."""
    if not value.isprintable() or " " in value:  # a control character, a separator (space, line)
        return False
    if "%" in value and _BROKEN_ESCAPE.search(value) is not None:
        return False
    if _PARSED_AUTHORITY.match(value) is None:
        return True
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises on a port that is not a number in range
    except ValueError:
        return False
    return True


VALIDATED = frozenset({"uuid", "date-time", "uri", "uri-reference"})
CUSTOM: Mapping[str, Callable[[str], bool]] = {"uri": is_link, "uri-reference": is_link}
