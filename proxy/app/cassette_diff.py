"""`cassette diff`: two versions of a cassette read and compared by meaning. A missing side (git's
/dev/null for a cassette added or deleted) is an empty cassette."""

from __future__ import annotations

import os
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.core.drift.origins import Origins
from proxy.core.drift.pairing import CassetteDiff, pair_cassettes
from proxy.core.replay.matching import MatchPolicy
from proxy.store.cassette_reader.loading import load_cassette


def read_version(path: Path) -> Cassette:
    if str(path) == os.devnull:
        return Cassette()
    return load_cassette(path).cassette


def diff_cassettes(a: Path, b: Path, policy: MatchPolicy | None = None) -> CassetteDiff:
    """Exchanges paired by request as replay matches them (`policy`: the project's `match` table, so
    a request id the client generates anew does not make a changed exchange look removed and added).
    Links that differ only in the origin each version was recorded from are no change."""
    before, after = read_version(a), read_version(b)
    origins = Origins(before.upstream, after.upstream)
    return pair_cassettes(before.exchanges, after.exchanges, policy, origins)
