"""A recorded request walks server -> app -> core/store and never back: the record server and its
admin routes reach the journal, the clock and the checker process only through the use case."""

from __future__ import annotations

from tests.paths import ROOT
from tests.unit.test_layering import imports_of

SERVERS = ("proxy/server/record.py", "proxy/server/admin.py")


def test_the_record_server_goes_through_the_use_case() -> None:
    for name in SERVERS:
        below = {
            module
            for module in imports_of(ROOT / name)
            if module.split(".")[:2] in (["proxy", "store"], ["proxy", "processes"])
        }
        assert not below, f"{name} imports {below}: the recording use case (proxy/app) hands it what it needs"
