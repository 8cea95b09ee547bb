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

from proxy.core.rules.endpoints import routed_path

FEATURES = re.compile(r"/v2/subscriptions/features(?:/(?P<id>[^/]+))?")  # matched in the routed spelling
ENTRIES = re.compile(r"/v2/extensions/(?P<slug>[^/]+)(?:/(?P<id>[^/]+))?")


class Named(NamedTuple):
    """A collection's path (`member` None) or one member's: `scope` is an entry's custom API slug ("" for
    a feature), `member` the id the path names (a feature's in lower case: it is a UUID)."""

    scope: str
    member: str | None


def feature_named(path: str) -> Named | None:
    """The features collection or one feature, when the path is one of theirs."""
    found = FEATURES.fullmatch(routed_path(path))
    if found is None:
        return None
    member = found["id"]
    return Named("", member.lower() if member else None)


def entry_named(path: str) -> Named | None:
    """A custom API's entries (its slug) or one entry (slug and id), when the path is one of theirs."""
    found = ENTRIES.fullmatch(routed_path(path))
    return None if found is None else Named(found["slug"], found["id"])
