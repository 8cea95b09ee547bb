"""A request a fixture's server could not answer fails the test that sent it, as vcrpy's
CannotOverwriteExistingCassetteException does: the server answers the client 404 (which the client may
swallow), and the test's setup, body or teardown, whichever was running, ends in `UnmatchedRequest`,
whose text names the request, the cassette(s), the closest recordings and how they differ, and how to
record it. That text is the failure's own error, shown once (the server logs nothing of it)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest
from _pytest._code.code import ReprEntry, ReprExceptionInfo, ReprFileLocation, ReprTraceback

from proxy.core.redaction.book import KNOWN
from proxy.pytest_plugin.exchanges import Exchanges
from proxy.pytest_plugin.state import PluginState
from proxy.server.watching import MISSED, Seen, Watch

if TYPE_CHECKING:
    from proxy.core.replay.book import NearMiss

DIFFERENCES_SHOWN = 5
MISSES_SHOWN = 10


class UnmatchedRequest(Exception):
    """A request the test's commerce-proxy server had no recording for. Its first line names the
    request and the cassette, and the short test summary shows that line alone (not this class's
    qualified name, which would fill an 80-column line)."""


def record_it(state: PluginState, mode: str) -> str:
    """The command that records a miss: the record mode and the upstream option this run used
    (--commerce-sandbox, --commerce-upstream URL, or none when the ini file names the upstream)."""
    upstream = f" {state.upstream_option}" if state.upstream_option else ""
    return f"`pytest --commerce-record-mode={mode}{upstream}`"


@dataclass(slots=True)
class Misses:
    """Explanations of the misses not yet reported, added from the servers' threads."""

    pending: list[tuple[str, str]] = field(default_factory=list)  # (the request and cassette, all)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, miss: tuple[str, str]) -> None:
        with self.lock:
            self.pending.append(miss)

    def take(self) -> list[tuple[str, str]]:
        with self.lock:
            taken, self.pending = self.pending, []
        return taken


MISSES = pytest.StashKey[Misses]()


def watcher(
    config: pytest.Config, exchanges: Exchanges, cassettes: list[str], remedy: str, absent: str | None
) -> Watch:
    """What a fixture's server tells of each request: kept for the test, and a miss explained."""
    misses = config.stash.setdefault(MISSES, Misses())

    def watch(seen: Seen) -> None:
        exchanges.seen(seen)
        if seen.answered_by == MISSED:
            misses.add(explain(seen, cassettes, remedy, absent))

    return watch


def explain(seen: Seen, cassettes: list[str], remedy: str, absent: str | None) -> tuple[str, str]:
    """One miss: the request (redacted) and its cassette in a line, then the whole explanation: why
    nothing answered it and what would record it."""
    request = f"{seen.shown.method} {seen.shown.target}"
    lines = [f"{request} matched no recording"]
    if absent is not None:
        lines.append(f"  {absent}")
        return KNOWN.scrub(f"{request}: {absent.split(': ')[0]}"), KNOWN.scrub("\n".join(lines))
    head = f"{request} matched no recording in {', '.join(cassettes) or '(no cassette)'}"
    lines.append(f"  cassette: {', '.join(cassettes) or '(none)'}")
    miss = seen.miss
    if miss is not None and miss.reason:
        lines.append(f"  not simulated either: {miss.reason}")
    near = miss.near if miss is not None else []
    lines.extend(_closest(one) for one in near)
    if not near:
        lines.append("  closest: none (the cassette holds no recording)")
    lines.append(f"  {remedy}")
    return KNOWN.scrub(head), KNOWN.scrub("\n".join(lines))


def _closest(near: NearMiss) -> str:
    recorded = near.recording.exchange.request
    lines = [f"  closest: #{near.recording.index} {recorded.method} {recorded.target}, which differs in"]
    for difference in near.differences[:DIFFERENCES_SHOWN]:
        lines.append(f"    {difference.where}: recorded {difference.expected}; sent {difference.found}")
    more = len(near.differences) - DIFFERENCES_SHOWN + near.unnamed
    if more > 0:
        lines.append(f"    and {more} more")
    return "\n".join(lines)


def remedy(fixture: str, state: PluginState) -> str:
    """How the request would be recorded, by the fixture that served it and the record mode."""
    add_it = record_it(state, "new_episodes")
    if fixture.startswith("commerce_replay"):
        return f"commerce_replay only replays: record it with commerce_record and {add_it}"
    if state.record_mode == "none":
        where = f"without {state.ci}" if state.ci else "locally"
        return f"record mode none replays only: record it {where} with {add_it}"
    return f"record mode {state.record_mode} does not add to an existing cassette: record it with {add_it}"


def absent_cassette(fixture: str, missing: str, state: PluginState) -> str:
    """The explanation of every request sent to a fixture whose cassette does not exist."""
    how = f"record it with {record_it(state, 'once')}"
    if fixture.startswith("commerce_replay"):
        how += " and the commerce_record fixture"
    elif state.ci and state.record_mode == "none":
        how += f" without {state.ci}"
    return f"no cassette {missing}: {how}"


def _failure(misses: list[tuple[str, str]]) -> str:
    """The failure's text: its first line (the short summary's) names the first request and its
    cassette, and how many more there were; then each distinct miss explained."""
    texts = [text for _, text in misses]
    counted = Counter(texts)
    total = len(texts)
    more = f", and {total - 1} more request{'s' if total > 2 else ''}" if total > 1 else ""
    head = f"commerce-proxy: {misses[0][0]}{more} (answered 404):"
    blocks = [text + (f"  ({count}x)" if count > 1 else "") for text, count in counted.items()]
    shown = blocks[:MISSES_SHOWN]
    if len(blocks) > MISSES_SHOWN:
        shown.append(f"... and {len(blocks) - MISSES_SHOWN} more distinct requests")
    return "\n".join([head, *shown])


def _raise_misses(config: pytest.Config, cause: BaseException | None) -> None:
    """Raise `UnmatchedRequest` for the misses not yet reported. After the test's own error it takes
    that error's traceback (pytest shows where the test stopped, then this text) and names the error."""
    __tracebackhide__ = True
    misses = config.stash.get(MISSES, None)
    taken = misses.take() if misses is not None else []
    if not taken:
        return
    text = _failure(taken)
    if cause is None:
        raise UnmatchedRequest(text)
    own = f"{type(cause).__module__}.{type(cause).__qualname__}: {cause}".removeprefix("builtins.")
    raise UnmatchedRequest(f"{text}\nthe test's own error: {own}").with_traceback(
        cause.__traceback__
    ) from None


class MissReporter:
    """Each test phase (setup, call, teardown) ends in `UnmatchedRequest` when a request sent during it
    matched nothing: after the test's own error when it raised one (the client's 404), else in its
    place (the client swallowed the 404)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        config.stash.setdefault(MISSES, Misses())

    def _phase(self) -> Iterator[None]:
        __tracebackhide__ = True
        try:
            result = yield
        except (Exception, pytest.fail.Exception) as error:
            _raise_misses(self.config, error)
            raise
        _raise_misses(self.config, None)
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """A miss the test itself did not see (its client swallowed the 404) has no traceback in the
        test: its failure is the explanation alone, each line an E line, and the short summary's line
        its text, as pytest's own failures read (`FAILED id - commerce-proxy: 1 request ...`)."""
        report = yield
        error = call.excinfo.value if call.excinfo is not None else None
        if isinstance(error, UnmatchedRequest):
            if not _in_test(error):
                report.longrepr = explanation_only(item, str(error))
            elif (crash := getattr(report.longrepr, "reprcrash", None)) is not None:
                crash.message = str(error)  # the short summary's line: no class name first
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        __tracebackhide__ = True
        self.config.stash[MISSES].take()  # a miss between tests (a session fixture's) is not this test's
        return (yield from self._phase())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        __tracebackhide__ = True
        return (yield from self._phase())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        __tracebackhide__ = True
        return (yield from self._phase())


def explanation_only(item: pytest.Item, text: str) -> ReprExceptionInfo:
    """A failure whose body is `text` as E lines and whose one-line message (the short summary's) is
    `text`: pytest's own representation, so it reads the same through pytest-xdist."""
    lines = [f"E   {line}" for line in text.splitlines()]
    entry = ReprEntry(lines, None, None, None, "long")
    path, lineno, _ = item.location
    crash = ReprFileLocation(path, (lineno or 0) + 1, text)
    return ReprExceptionInfo(reprtraceback=ReprTraceback([entry], None, "long"), reprcrash=crash)


def _in_test(error: BaseException) -> bool:
    """Whether the error's traceback passes through code of the test (not only pytest and the plugin)."""
    tb = error.__traceback__
    while tb is not None:
        if not tb.tb_frame.f_globals.get("__name__", "").startswith(
            ("proxy.pytest_plugin", "_pytest", "pluggy")
        ):
            return True
        tb = tb.tb_next
    return False
