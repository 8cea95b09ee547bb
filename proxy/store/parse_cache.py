"""A cache of parsed cassettes, so checking or replaying a large cassette again skips the YAML parse.

PyYAML's safe loader builds Python objects in Python and reads about 1 MB/s; a cassette of 50,000
exchanges takes minutes. The cache holds the validated cassette document in `marshal` form (exact types,
tens of MB/s), keyed by a hash of the file's bytes, so an edited cassette is simply a miss. Entries live
in a private folder (0700) of the user's cache; an unreadable entry is a miss, never an error. Small
cassettes parse fast enough and are not cached. COMMERCE_PROXY_CACHE=off turns the cache off and
COMMERCE_PROXY_CACHE=DIR moves it.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
from pathlib import Path

from proxy import __version__
from proxy.core.cassette import FORMAT_VERSION, Cassette, cassette_from_document, cassette_to_document

log = logging.getLogger(__name__)

SMALLEST_CACHED = 1024 * 1024  # bytes of YAML
CACHE_LIMIT = 2 * 1024**3  # bytes in the cache folder; the oldest entries go first


def cache_folder() -> Path | None:
    """Where parsed cassettes are kept, or None when the cache is off."""
    setting = os.environ.get("COMMERCE_PROXY_CACHE", "")
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "commerce-proxy" / "parsed"


def _entry(raw: bytes) -> Path | None:
    folder = cache_folder()
    if folder is None or len(raw) < SMALLEST_CACHED:
        return None
    digest = hashlib.sha256(raw).hexdigest()
    return folder / f"{digest}-v{FORMAT_VERSION}-{__version__}.marshal"


def cached_cassette(raw: bytes) -> Cassette | None:
    """The cassette parsed earlier from exactly these bytes, if the cache has it."""
    entry = _entry(raw)
    if entry is None:
        return None
    try:
        document = marshal.loads(entry.read_bytes())
        return cassette_from_document(document)
    except FileNotFoundError:
        return None
    except Exception as error:
        log.debug("ignoring cache entry %s: %s", entry, error)
        return None


def remember_cassette(raw: bytes, cassette: Cassette) -> None:
    """Keep a parsed cassette for the next load of the same bytes; failing to is not an error."""
    entry = _entry(raw)
    if entry is None:
        return
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = entry.with_name(f".{entry.name}.{os.getpid()}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as stream:
            marshal.dump(cassette_to_document(cassette), stream)
        os.replace(temporary, entry)
        _evict(entry.parent)
    except OSError as error:
        log.debug("cannot cache %s: %s", entry, error)


def _evict(folder: Path) -> None:
    entries = sorted(folder.glob("*.marshal"), key=lambda path: path.stat().st_mtime, reverse=True)
    total = 0
    for path in entries:
        total += path.stat().st_size
        if total > CACHE_LIMIT:
            path.unlink(missing_ok=True)
