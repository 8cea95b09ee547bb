"""What `commerce-proxy ui PATH...` opens: cassettes, folders of cassettes, recording journals and HAR
files, each as a named stream of exchanges in order, read one at a time where the format allows; and
`verify` JSON reports, which hold differences, not exchanges (compared with a cassette in the UI)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from proxy.app.importing import read_har
from proxy.app.verify_results import is_verify_report
from proxy.core.interchange.har import exchanges_from_har
from proxy.core.model.domain import admitted
from proxy.core.model.exchange import Exchange
from proxy.errors import CommerceProxyError
from proxy.store import clock
from proxy.store.cassette_folders import cassette_files, once_each
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.cassette_reader.streaming import stream_cassette
from proxy.store.journal import JOURNAL_SUFFIX, journal_path, read_journal

HAR_SUFFIX = ".har"


@dataclass(frozen=True, slots=True)
class Source:
    """One file of traffic: a cassette (with its journal, if one is beside it), a journal, a HAR."""

    path: Path
    kind: str  # "cassette" | "journal" | "har" | "verify"

    def exchanges(self) -> Iterator[Exchange]:
        """Its exchanges in recorded order (a cassette's as `check` streams them; a report has none),
        each through the cassette-domain gate: a field no cassette may hold is one error line naming
        the file and the entry, whatever the file's kind, as `import-har` refuses it. A cassette's
        reader judges each exchange by the same gate (`exchange_fault`) as it builds it: not twice."""
        if self.kind == "cassette":
            return self._read()
        return admitted(self._read(), str(self.path), clock.now())

    def _read(self) -> Iterator[Exchange]:
        if self.kind == "verify":
            return iter(())
        if self.kind == "har":
            return (imported.exchange for imported in exchanges_from_har(read_har(self.path), str(self.path)))
        if self.kind == "journal":
            return iter(read_journal(self.path).exchanges)
        return stream_cassette(self.path).exchanges

    def identity(self) -> list[Path]:
        """The files whose size and time say whether it changed: itself, and a cassette's journal."""
        beside = journal_path(self.path) if self.kind == "cassette" else None
        return [self.path] + ([beside] if beside is not None and beside.exists() else [])


def journaled(cassette: Path, index: int) -> bool:
    """Whether a cassette's exchange at `index`, as a view lists it, is one of its journal's (a reader
    of the cassette folds in the journal beside it): past the exchanges the file holds."""
    if not journal_path(cassette).exists():
        return False
    try:
        return index >= len(read_cassette_file(cassette).exchanges)
    except CommerceProxyError:
        return False  # the edit reads the file again and says what is wrong with it


def sent_to(name: str, number: int | None) -> str | None:
    """Where the exchange numbered `number` of the source `name` was sent (the base its request's path
    and query go below): a cassette's recorded upstream (its journal's when it names none), a journal's,
    a HAR entry's own origin; None when the file names none. The one answer for curl, resend and export
    offline and in replay."""
    path = Path(name)
    try:
        found = sources_of([path])
        stat = path.stat()
    except (CommerceProxyError, OSError):
        return None
    if len(found) != 1:
        return None
    upstream, origins = _sent_to(found[0], stat.st_size, stat.st_mtime_ns)
    if origins and number is not None and 0 <= number < len(origins):
        return origins[number]
    return upstream


@functools.lru_cache(maxsize=64)
def _sent_to(source: Source, size: int, mtime_ns: int) -> tuple[str | None, tuple[str, ...]]:
    """(the file's upstream, each exchange's origin when they have their own); `size` and `mtime_ns`
    key the cache, so a changed file is read again."""
    try:
        if source.kind == "har":
            imported = exchanges_from_har(read_har(source.path), str(source.path))
            return None, tuple(item.origin for item in imported)
        if source.kind == "journal":
            return read_journal(source.path).upstream, ()
        if source.kind == "cassette":
            beside = journal_path(source.path)
            upstream = read_cassette_file(source.path).upstream
            if upstream is None and beside.exists():
                upstream = read_journal(beside).upstream
            return upstream, ()
    except CommerceProxyError:
        pass
    return None, ()


def sources_of(paths: Sequence[Path]) -> list[Source]:
    """Every source the paths name: a folder's cassettes (as `check` finds them), or a file by its
    suffix; a folder with none is an error."""
    found: list[Source] = []
    for given in paths:
        if given.is_dir():
            files = cassette_files(given)
            if not files:
                raise CommerceProxyError(f"{given}: no cassettes (*.yaml) in this folder")
            found.extend(Source(file, "cassette") for file in files)
        elif given.suffix.lower() == HAR_SUFFIX:
            found.append(Source(given, "har"))
        elif is_verify_report(given):
            found.append(Source(given, "verify"))
        elif given.name.endswith(JOURNAL_SUFFIX):
            found.append(Source(given, "journal"))
        elif not given.exists():
            raise CommerceProxyError(f"{given}: no such file or folder")
        else:
            found.append(Source(given, "cassette"))
    return once_each(found, lambda source: source.path)
