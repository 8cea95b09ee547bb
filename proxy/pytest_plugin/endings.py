"""When a recording is kept: only when the run that made it ended well.

Every test that runs while a recording fixture is live is judged here, and so is the run: a test that
failed, was expected to fail (xfail, strict or not, marker or `pytest.xfail()`), skipped itself part
way, or a run stopped by Ctrl-C, `pytest.exit()`, an internal error or `-x`, marks each live server,
and so does a failing setup or teardown of any fixture of that test. A recording whose fixture ends in a
test's teardown is kept or discarded (unless `--commerce-failed-recordings=keep`) only once that whole
teardown has run: fixtures end last in first out, so one set up before `commerce_record` ends after it. A
run killed outright leaves its journal beside the cassette: the plugin never folds such a leftover
in (locally or in CI) and never writes over it; replay serves the cassette as committed and recording
stops with a one-line choice for the user.

Keeping is a positive decision (`may_keep`), taken last: the run must be seen going well (the teardown
ending the recording ran through, or the test loop ran to its end), not merely not seen failing. So an
interrupt that lands anywhere before it (a second Ctrl-C while pytest reports the first, during a
teardown, or during the discard itself) leaves the cassette as it was: the recording is held
(`RecordingSession.hold`) and only `approve` lets it be written.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from proxy.pytest_plugin.state import PluginState

if TYPE_CHECKING:  # the cassette reader is imported when a fixture first serves, not at load
    from proxy.app.committed import Loaded


def judge_report(state: PluginState, report: pytest.TestReport) -> None:
    """A test's report (its final outcome) marks every live server when the test did not pass: it
    failed, or its body stopped early as a skip or an expected failure."""
    if report.failed:
        why = "a test failed"
    elif report.skipped and report.when == "call":
        why = "a test failed as expected (xfail)" if hasattr(report, "wasxfail") else "a test skipped itself"
    else:
        return
    mark_live(state, f"{why} ({report.nodeid})")


def mark_live(state: PluginState, why: str) -> None:
    for served in state.live:
        if not served.failed:
            served.failed = True
            served.why = why


def may_keep(state: PluginState) -> bool:
    """Whether the run is seen going well where a recording ends now: in a test's teardown that ran
    through, or after the run's test loop ended normally (a fixture ending at the session's end)."""
    return state.teardown_ran or state.loop_ran


def end_after_teardown(state: PluginState, end: Callable[[], None]) -> None:
    """`end` a recording once the test's teardown is over (at once outside one: the session's end)."""
    if state.tearing_down:
        state.endings.append(end)
    else:
        end()


def end_abandoned(state: PluginState) -> None:
    """Recordings whose fixture never ended (a second interrupt skipped its teardown): each discarded,
    its journal removed, when the run ends or, at the latest, when the process exits."""
    for end in list(state.unended):
        try:
            end(abandoned=True)
        except BaseException:  # the last resort at exit: the next recording ends still
            continue


def _end_recordings(state: PluginState) -> None:
    """Every recording that ended in this teardown: each ended, the first error raised after all."""
    endings, state.endings = state.endings, []
    errors: list[BaseException] = []
    for end in endings:
        try:
            end()
        except BaseException as error:
            errors.append(error)
    if errors:
        raise errors[0]


class RunEndings:
    """The run's own ending: an interrupt, `pytest.exit()`, an internal error or a stop after a failure
    marks every server still live before the session's teardown writes anything."""

    def __init__(self, state: PluginState) -> None:
        self.state = state
        atexit.register(self.end_abandoned)  # a teardown an interrupt skipped: its journal goes still

    def end_abandoned(self) -> None:
        end_abandoned(self.state)

    def pytest_unconfigure(self) -> None:
        end_abandoned(self.state)
        atexit.unregister(self.end_abandoned)

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        stopped = isinstance(excinfo.value, pytest.exit.Exception)
        mark_live(self.state, "pytest.exit() stopped the run" if stopped else "the run was interrupted")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        """Every fixture's teardown runs in here: one that fails marks the recordings still live or
        waiting, which end only after the last fixture's teardown."""
        self.state.tearing_down = True
        self.state.teardown_ran = False
        try:
            result = yield
            self.state.teardown_ran = True
            return result
        except BaseException:
            mark_live(self.state, f"a fixture's teardown failed ({item.nodeid})")
            raise
        finally:
            self.state.tearing_down = False
            try:
                _end_recordings(self.state)
            finally:
                self.state.teardown_ran = False

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """The loop ran to its end (no interrupt, no stop): fixtures ending at the session's end may
        keep their recordings."""
        result = yield
        self.state.loop_ran = not (session.shouldfail or session.shouldstop)
        return result

    def pytest_internalerror(self) -> None:
        mark_live(self.state, "the run stopped on an internal error")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.shouldfail or session.shouldstop:
            mark_live(self.state, f"the run stopped early ({session.shouldfail or session.shouldstop})")


def leftover_choice(journal: Path, cassette: Path) -> str:
    """What the user can do with a leftover journal: the plugin itself never decides."""
    return (
        f"{journal} was left by a recording that did not end (a killed run) and is not folded in: "
        f"`commerce-proxy cassette list {cassette}` folds it into the cassette, deleting it drops it"
    )


def as_committed(path: Path) -> Loaded:
    """A cassette for replay as it is on disk: a leftover journal is left where it is, unread (named in a
    note with the user's choice); a live recording's journal is read along, without writing."""
    from proxy.app.committed import load_committed

    return load_committed(path, lambda journal: f"{leftover_choice(journal, path)}; replaying without it")
