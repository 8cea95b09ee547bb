"""Which feature or custom API entry a request names, however its path is spelled.

The stateful rules remember a resource by its identity, not by the request path: the service routes
`/v2/extensions/w/ID`, `/v2/extensions/w/ID/` and `//V2/extensions//w/ID` alike, and one feature or entry
is shown by its read, its update, its create and its list. These patterns read the path itself, not the
endpoint groups of rules/endpoints.yaml, so the observers learn from operations the documentation does not
describe (the entries list, a feature read) while `coverage.undocumented-endpoint` still reports those.
"""

from __future__ import annotations

import re
from typing import NamedTuple

FEATURES = re.compile(r"/+[vV]2/+subscriptions/+features(?:/+(?P<id>[^/]+))?/*")
ENTRIES = re.compile(r"/+[vV]2/+extensions/+(?P<slug>[^/]+)(?:/+(?P<id>[^/]+))?/*")
REPEATED_SLASHES = re.compile(r"//+")


class Named(NamedTuple):
    """A collection's path (`member` None) or one member's: `scope` is an entry's custom API slug ("" for
    a feature), `member` the id the path names (a feature's in lower case: it is a UUID)."""

    scope: str
    member: str | None


def feature_named(path: str) -> Named | None:
    """The features collection or one feature, when the path is one of theirs."""
    found = FEATURES.fullmatch(path)
    if found is None:
        return None
    member = found["id"]
    return Named("", member.lower() if member else None)


def entry_named(path: str) -> Named | None:
    """A custom API's entries (its slug) or one entry (slug and id), when the path is one of theirs."""
    found = ENTRIES.fullmatch(path)
    return None if found is None else Named(found["slug"], found["id"])


def same_route(path: str) -> str:
    """The path a memory is keyed on: repeated slashes as one, no trailing slash, `/v2` in lower case
    (spellings the service routes alike: the memory must not split on them)."""
    if "//" in path:
        path = REPEATED_SLASHES.sub("/", path)
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    if path.startswith("/V2"):
        path = "/v2" + path[3:]
    return path
