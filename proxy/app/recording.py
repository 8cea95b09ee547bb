"""A recording session: settings, the cassette it adds to, its crash-safe journal, live checking.

No network: the adapters (`record`'s proxy on the wire server, the mitmproxy addon) hand it exchanges as they
complete; it redacts, journals, checks, and writes the cassette atomically when the session ends.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app.recording_defaults import DEFAULT_MODE as DEFAULT_MODE
from proxy.app.recording_defaults import MAX_BODY_BYTES as MAX_BODY_BYTES
from proxy.app.recording_defaults import RECORD_MODES as RECORD_MODES
from proxy.app.recording_defaults import TOKEN_VARIABLE as TOKEN_VARIABLE
from proxy.app.recording_defaults import UPSTREAM_TIMEOUT as UPSTREAM_TIMEOUT
from proxy.app.recording_defaults import RecordMode as RecordMode
from proxy.core.cassette.document import Cassette
from proxy.core.contract.findings import ContractJudge
from proxy.core.drift.origins import SAME, Origins
from proxy.core.drift.pairing import ReRecorded, re_recorded
from proxy.core.model.confirmation import confirmation
from proxy.core.model.exchange import Exchange
from proxy.core.model.links import credential_parts
from proxy.core.model.withheld import WITHHELD_HEADER, withheld_in
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.config import RuleConfig
from proxy.core.rules.engine import Checked, Checker, Listener, LiveChecker, LiveChecking
from proxy.core.rules.findings import FindingsLog
from proxy.core.rules.ruleset import RuleSet
from proxy.errors import CommerceProxyError, JournalError, UsageError
from proxy.store.cassette_reader.loading import load_cassette, read_cassette_file
from proxy.store.clock import now
from proxy.store.journal import JournalMode, JournalWriter, is_locked, journal_path, read_journal
from proxy.store.locks import cassette_lock
from proxy.store.regular_files import read_regular_file
from proxy.store.rule_files import RuleSource
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock, open_folder, remove_made_folders

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordSettings:
    """Everything a recording is told (by `record`, `spy`, the pytest plugin, the mitmproxy addon, the
    demo), built only by `proxy.app.record_setup.record_settings`."""

    upstream: str  # never with credentials: it is written to the cassette and logged
    cassette: Path | None  # None: `spy`, which checks traffic and writes nothing
    mode: RecordMode = DEFAULT_MODE
    # `all`: write every exchange anew, even one whose answer changed only in volatile values.
    fresh: bool = False
    redaction: RedactionPolicy = field(default_factory=RedactionPolicy)
    match: MatchPolicy = field(default_factory=MatchPolicy)
    upstream_timeout: float = UPSTREAM_TIMEOUT
    max_body_bytes: int = MAX_BODY_BYTES
    ca_bundle: Path | None = None  # a private CA's certificates; None: the system's
    # Credentials the --upstream URL carried, sent to the upstream when a request has no Authorization.
    upstream_authorization: str | None = None
    rules: RuleSet | None = None  # None: no live checking
    rule_config: RuleConfig = field(default_factory=RuleConfig)
    contract: ContractJudge | None = None  # the published specs each exchange is judged against too
    findings_kept: int = 1000
    # Set: the proxy checks in a child process that loads the same rules from here (record, spy).
    rule_source: RuleSource | None = None
    # The process logs in the commands' format (`command_log.py`, `record` and `spy`): the findings'
    # lines of a checker process's answers are then written as lines a batch at once, not log records.
    lines_direct: bool = False
    # How the caller's user spells the settings a message names (`mode`, `max_body_bytes`): the
    # command line `--mode`, the mitmproxy addon `cassette_mode`; unnamed: the setting's own name.
    spellings: Mapping[str, str] = field(default_factory=dict)

    def spelled(self, setting: str) -> str:
        """`setting` as the caller's user writes it, for a message."""
        return spellings_of(self.spellings, setting)


class RecordingSession:
    """A recording in progress: the base it adds to, the journal, and what arrived so far.

    Shared by `record` (`server/record.py`) and the mitmproxy addon, so both redact, journal and check alike.
    """

    def __init__(self, settings: RecordSettings, live: LiveChecking | None = None) -> None:
        """`live` checks the exchanges; by default a LiveChecker in this process (when there are rules)."""
        self.settings = settings
        self._made: list[Path] = []  # folders made for the cassette: removed if it is never written
        self.journal: JournalWriter | None = None
        try:
            self._start(settings, live)
        except BaseException:  # refused (the cassette exists, `--mode once`...): nothing is left
            self._let_go()
            raise

    def _start(self, settings: RecordSettings, live: LiveChecking | None) -> None:
        self.base = prepare_base(settings, self._made)
        self.previous = _previous_recording(settings)
        self.origins = _added_at(settings, self.base)
        journal_mode: JournalMode = "append" if settings.mode == "new_episodes" else "replace"
        if settings.cassette is not None:
            upstream = self.origins.recorded or settings.upstream  # what the journal's exchanges are at
            self.journal = JournalWriter(journal_path(settings.cassette), journal_mode, upstream)
        replayed_from = [(settings.cassette.name, self.base)] if settings.cassette is not None else []
        self.book = ReplayBook.build(
            replayed_from if settings.mode == "new_episodes" else [],
            settings.match,
            settings.redaction,
        )
        self.live = live
        if live is None and settings.rules is not None:
            checker = Checker(settings.rules, settings.rule_config, contract=settings.contract)
            self.live = LiveChecker(checker, settings.findings_kept)
        self._sent_secrets = credential_parts(settings.upstream_authorization)
        self.recorded = 0  # exchanges journaled by this session
        self.re_recorded: ReRecorded | None = None  # --mode all over a cassette: what it kept
        self.checked = 0  # exchanges handed to the live checker (spy journals nothing)
        self._followers: list[Listener] = []  # told of each exchange kept when nothing checks them
        self.replayed = 0
        self.kept: list[Exchange] | None = None  # a list: every exchange kept here too (an HTML report)
        self._said_withheld = False
        self._discarded = False
        self._held = False  # written only once `approve` says so (the pytest plugin)

    def keep(self, exchange: Exchange) -> int:
        """Journal a redacted exchange before its answer goes out, so an acknowledged one survives;
        returns its index in the cassette.

        The index is given here, when the exchange is journaled, and the cassette keeps the journal's
        order (the order answers completed): so the index the live log shows is the one `check`,
        `cassette list` and `cassette show FILE N` use, and the live checker sees the exchanges in the
        order `check` will. A request that fails, or is answered from the cassette, takes no index.
        Only the journal holds the exchange: memory stays flat however long the recording runs. A
        `JournalError` (disk full) means it was not recorded, and its answer must say so.
        """
        return self.keep_redacted(self.redacted(exchange))

    def redacted(self, exchange: Exchange) -> Exchange:
        """The exchange as it may be written: pure and thread-safe, so a server may run it off its event
        loop for a large exchange while other clients are answered. An episode added to a cassette
        recorded from another address of the service is written at the cassette's origin."""
        return self.origins.exchange(redact_exchange(exchange, self.settings.redaction, self._sent_secrets))

    def keep_redacted(self, redacted: Exchange) -> int:
        """`keep` for an exchange `redacted` already gave; called on one thread, in answer order."""
        if not self._said_withheld and (reason := withheld_in(redacted)):
            log.warning(
                "%s %s: %s (said once; see %s)",
                redacted.request.method,
                redacted.request.path,
                reason,
                WITHHELD_HEADER,
            )
            self._said_withheld = True
        line = None
        if self.journal is not None:
            index = len(self.base.exchanges) + self.recorded
            line = self.journal.append(index, redacted)
            self.recorded += 1
        else:
            index = self.checked
        if self.kept is not None:
            self.kept.append(redacted)
        if self.live is not None:
            self.live.check(redacted, index, line)  # a checker process reads the journal's line
        elif self._followers:
            kept = Checked(index, redacted, [])
            for listener in self._followers:
                listener(kept)
        self.checked += 1
        return index

    def follow(self, listener: Listener) -> None:
        """`listener` is told of each exchange kept, with its findings, in order: through the live
        checker when there is one (`follow_findings`), else as kept, with none (`record --no-check`)."""
        if self.live is not None:
            self.live.follow(listener)
        else:
            self._followers.append(listener)

    @property
    def findings(self) -> FindingsLog:
        """What live checking found so far (empty when not checking)."""
        return self.live.log if self.live is not None else FindingsLog(0)

    def discard(self) -> None:
        """Keep nothing of this session: at finish the journal goes and the cassette stays as it was
        (the pytest plugin, when a test failed while recording)."""
        self._discarded = True

    def hold(self) -> None:
        """Write nothing at finish unless `approve` is called first: a caller that judges how its run
        ended (the pytest plugin) keeps a recording by a positive decision, so an interrupt or error
        anywhere before that decision leaves the cassette as it was and removes the journal."""
        self._held = True

    def approve(self) -> None:
        """The run that made this held recording ended well: finish writes it."""
        self._held = False

    def let_go_if_empty(self) -> None:
        """A run interrupted before it recorded anything (while it started): its journal holds a
        header and nothing else to keep, so it goes, with the folders made for it."""
        if self.journal is not None and self.settings.cassette is not None and not self.recorded:
            self._let_go()

    def _let_go(self) -> None:
        """Keep nothing of this session: its journal and the folders made for it go (the cassette, if
        there was one, stays as it was)."""
        if self.journal is not None:
            self.journal.close(remove=True)
            self.journal = None
        remove_made_folders(self._made)

    def finish(self) -> Cassette | None:
        """Write the cassette atomically in the journal's order and drop the journal.

        With nothing new recorded PATH is left as it was (None): a run that failed to bind its port,
        or saw no traffic, neither creates an empty cassette nor rewrites an old one.
        """
        if self.journal is None or self.settings.cassette is None:
            return None  # spy: nothing to write
        if self._discarded or self._held:
            self._let_go()
            return None
        cassette = None
        if self.recorded:
            new = read_journal(self.journal.path).exchanges  # in the order they were journaled
            upstream = self.origins.recorded or self.settings.upstream
            if self.previous is not None:  # re-recording: unchanged answers keep their old entries
                # ... and the cassette its origin: the same service at another address is no change
                upstream = self.previous.upstream or upstream
                origins = Origins(upstream, self.settings.upstream)
                self.re_recorded = re_recorded(self.previous.exchanges, new, self.settings.match, origins)
                new = self.re_recorded.exchanges
            try:  # the journal says which file absorbs it before that file replaces the cassette
                with folder_lock(self.settings.cassette):  # the lock every writer of the cassette takes
                    base = self._base_now()
                    exchanges = base.exchanges + new
                    cassette = Cassette(exchanges, upstream, self._confirmed_at(base, exchanges))
                    save_cassette(self.settings.cassette, cassette, self._seal)
            except CommerceProxyError as error:
                raise CommerceProxyError(
                    f"{error}; all {len(new)} recorded exchanges are kept in {self.journal.path}, "
                    "and the next command that reads the cassette adds them to it"
                ) from None
        self.journal.close(remove=True)
        if cassette is None:  # nothing recorded: no empty folder is left for a cassette never written
            remove_made_folders(self._made)
        return cassette

    def _confirmed_at(self, base: Cassette, exchanges: tuple[Exchange, ...]) -> str | None:
        """`--mode all` sent every request of the cassette again, so it confirms all it keeps (an
        unchanged answer keeps its old entry): today, when that is later than their recording. Adding
        episodes confirms nothing old: the cassette keeps the date it had."""
        if self.settings.mode == "all":
            return confirmation(exchanges, now())
        return base.confirmed_at

    def _base_now(self) -> Cassette:
        """What the recording adds to, read again under the lock: an edit made while it ran is kept."""
        path = self.settings.cassette
        if self.settings.mode != "new_episodes" or path is None or not path.exists():
            return self.base
        return read_cassette_file(path)

    def _seal(self, saved_digest: str) -> None:
        assert self.journal is not None
        try:
            self.journal.seal(saved_digest)
        except JournalError:  # no room at the last moment: the cassette is left as it was
            raise CommerceProxyError(
                f"{self.settings.cassette}: cannot write the cassette: its journal could not note the "
                "save first (a full disk or a file size limit)"
            ) from None


def recorded_upstream(path: Path) -> str | None:
    """The upstream a cassette file says it was recorded from (its journal left aside): where
    re-recording it should forward."""
    return read_cassette_file(path).upstream


def recorded_text(path: Path) -> str:
    """A cassette file's text as written (the demo shows which secrets it holds: none)."""
    return read_regular_file(path).decode("utf-8")


def held_for_recording(cassette: Path) -> AbstractContextManager[None]:
    """The cassette's lock across processes (pytest-xdist workers) while one records it; another
    waits, then decides from what the first left."""
    return cassette_lock(cassette)


def prepare_base(settings: RecordSettings, made: list[Path] | None = None) -> Cassette:
    """What the new recording adds to, by mode; recovers a crashed recording's journal first. The
    folders made for the cassette are added to `made`."""
    path = settings.cassette
    if path is None:
        return Cassette(upstream=settings.upstream)
    _refuse_unwritable(path, made)
    if is_locked(journal_path(path)):  # before reading anything of a cassette another record is writing
        raise UsageError(f"{journal_path(path)}: another record is writing this cassette")
    if settings.mode == "once" and journal_path(path).exists():
        for note in load_cassette(path).notes:  # a first recording that crashed: keep what it got
            log.warning("%s", note)
    refuse_existing(path, settings.mode, settings.spellings)
    exists = path.exists() or journal_path(path).exists()
    if not exists or settings.mode == "all":
        return Cassette(upstream=settings.upstream)  # `all` replaces, so a broken old file is no obstacle
    loaded = load_cassette(path)
    for note in loaded.notes:
        log.warning("%s", note)
    return loaded.cassette


def refuse_existing(path: Path, mode: RecordMode, spellings: Mapping[str, str]) -> None:
    """Mode `once` records only new cassettes: one that exists (or a crashed recording's journal) is
    refused, the modes that would take it named as the caller spells the `mode` setting."""
    if mode == "once" and (path.exists() or journal_path(path).exists()):
        named = spellings_of(spellings, "mode")
        raise UsageError(
            f"{path} exists and {named} once records only new cassettes: use {named} new_episodes "
            f"to add to it, {named} all to replace it, or `replay` to serve it"
        )


def spellings_of(spellings: Mapping[str, str], setting: str) -> str:
    """A setting as a caller's user spells it (its own name when the caller has no spelling)."""
    return spellings.get(setting, setting)


def _added_at(settings: RecordSettings, base: Cassette) -> Origins:
    """Where `new_episodes` writes what it adds: the same service at another address (a new sandbox
    port, staging instead of production) is the same service, so the cassette keeps its `upstream` and
    the new answers' links at the live origin are moved to it, as `--mode all` does for what it keeps."""
    if settings.mode != "new_episodes" or not base.upstream:
        return SAME
    origins = Origins(base.upstream, settings.upstream)
    if origins.moved:
        log.info(
            "%s was recorded from %s: episodes added from %s are written at %s",
            settings.cassette,
            base.upstream,
            settings.upstream,
            base.upstream,
        )
    return origins if origins.moved else SAME


def _previous_recording(settings: RecordSettings) -> Cassette | None:
    """What `--mode all` replaces, for the exchanges that come back unchanged; None when there is
    none, it cannot be read (all replaces it anyway), a crashed recording left its journal (reading
    would fold it in first), or `fresh` asks for everything anew."""
    path = settings.cassette
    if settings.mode != "all" or settings.fresh or path is None or not path.is_file():
        return None
    if journal_path(path).exists():
        return None
    try:
        return load_cassette(path).cassette
    except CommerceProxyError:
        return None


def _refuse_unwritable(path: Path, made: list[Path] | None = None) -> None:
    """Refuse at start, before any traffic, a cassette path no recording could be saved to: a folder,
    a FIFO or device, a symbolic link at it or on the way to it (`proxy.store.writing`)."""
    if path.is_symlink():
        raise UsageError(f"{path}: is a symbolic link; the cassette is never written through one")
    if path.is_dir():
        example = path / "NAME.yaml"
        raise UsageError(f"{path}: is a folder; --cassette names a cassette file, such as {example}")
    if path.exists() and not path.is_file():
        raise UsageError(f"{path}: not a regular file; a cassette is written only as one")
    if not path.parent.is_dir() and path.parent.exists():
        raise UsageError(f"{path.parent}: not a folder; the cassette cannot be written there")
    os.close(open_folder(path.parent, "the cassette", create=True, made=made))
