"""What the run learned about its cassettes, told once at its end, however it ended: the recordings no
test used, and the recordings discarded.

A cassette's use is counted over every fixture that served it (tests sharing it through a marker, a
module's fixture) and every pytest-xdist worker: each process notes what its servers saw, a worker
sends its notes to the controller when it finishes (xdist's `workeroutput`), and the controller
alone judges and reports. Recordings never used are listed only when the run ran every test to a
pass: no `-k`, `-m`, `--lf`, `--deselect`, file, node id or `--ignore` narrowing what was collected,
no early stop, and no test using a commerce fixture skipped or failing in its setup (a test skipped
on this platform still needs its recordings on another); a cassette one of whose tests failed or
xfailed is not judged. Otherwise the tests not run may be the ones that use them, and they are only
counted, not listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from proxy.core.replay.usage import listed_unused
from proxy.pytest_plugin.state import COMMERCE_FIXTURES, PluginState

USAGE_KEY = "commerce_usage"
DISCARDED_KEY = "commerce_discarded"
UNUSED_HINT = (
    "delete recordings no test needs with `commerce-proxy cassette delete CASSETTE INDEX...`, or "
    "allow them with --commerce-unused=ignore"
)
DISCARD_HINT = (
    "record them again in a run that ends well, or write what such a run records with "
    "--commerce-failed-recordings=keep"
)


def usage_note(
    cassette: str,
    recorded: Iterable[tuple[int, str, str]],
    used: Iterable[int],
    tests: Iterable[str],
    judged: bool,
) -> dict[str, Any]:
    """What one fixture's server saw of one cassette (the recordings it holds, those used, the tests
    that ran while it served, and whether they all passed), as plain data that travels through xdist."""
    return {
        "cassette": cassette,
        "recorded": [list(one) for one in recorded],
        "used": sorted(set(used)),
        "tests": sorted(tests),
        "judged": judged,
    }


def unused_lines(notes: list[dict[str, Any]]) -> tuple[list[str], int]:
    """The lines naming each cassette's recordings never used (its uses merged over every note), and
    how many cassettes with unused recordings were not judged (a test using them did not pass)."""
    merged: dict[str, dict[str, Any]] = {}
    for note in notes:
        entry = merged.setdefault(
            note["cassette"], {"recorded": {}, "used": set(), "tests": set(), "judged": True}
        )
        for index, method, target in note["recorded"]:
            entry["recorded"][index] = (method, target)
        entry["used"].update(note["used"])
        entry["tests"].update(note["tests"])
        entry["judged"] = entry["judged"] and note["judged"]
    lines = []
    unjudged = 0
    for cassette, entry in sorted(merged.items()):
        unused = [
            {"index": index, "method": method, "target": target}
            for index, (method, target) in sorted(entry["recorded"].items())
            if index not in entry["used"]
        ]
        if not unused:
            continue
        if not entry["judged"]:
            unjudged += 1
            continue
        count = len(entry["tests"])
        by = "its test" if count == 1 else f"any of its {count} tests"
        lines.append(
            f"{cassette}: {len(unused)} of {len(entry['recorded'])} recordings never used by {by}: "
            f"{listed_unused(unused)}"
        )
    return lines, unjudged


def partial_run(config: pytest.Config, state: PluginState, session: pytest.Session) -> str | None:
    """Why this run did not run every test (so a recording unused here may be used by one not run)."""
    option = config.option
    reasons = [
        ("-k", getattr(option, "keyword", "")),
        ("-m", getattr(option, "markexpr", "")),
        ("--lf", getattr(option, "lf", False)),
        ("--sw", getattr(option, "stepwise", False)),
        ("--deselect", getattr(option, "deselect", None)),
        ("a node id", any("::" in str(arg) for arg in config.args)),
        ("--ignore", bool(getattr(option, "ignore", None) or getattr(option, "ignore_glob", None))),
        ("files or folders named", _narrowed_by_arguments(config)),
        ("deselected tests", state.deselected),
        (f"{state.not_passed} test(s) using a commerce fixture skipped or not set up", state.not_passed),
        ("an early stop", bool(session.shouldfail or session.shouldstop)),
        ("an interrupt", session.exitstatus == pytest.ExitCode.INTERRUPTED),
    ]
    named = [name for name, present in reasons if present]
    return ", ".join(named) or None


def _narrowed_by_arguments(config: pytest.Config) -> bool:
    """Whether paths on the command line collect less than a plain `pytest` would (the rootdir or
    the ini's `testpaths`)."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    root = config.rootpath.resolve()
    whole = {root, *((root / str(path)).resolve() for path in config.getini("testpaths"))}
    named = {(config.invocation_params.dir / str(arg).split("::")[0]).resolve() for arg in config.args}
    return not named <= whole


class Ledger:
    """Gathers the notes of every process and reports them in the summary (on the controller)."""

    def __init__(self, config: pytest.Config, state: PluginState) -> None:
        self.config = config
        self.state = state
        self.partial: str | None = None
        self.unused: list[str] = []
        self.unjudged = 0

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if items:
            self.state.deselected = True

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """The test running now (its fixtures' servers file what they see under it)."""
        self.state.running = nodeid

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.state.running = None

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Any:
        """What a fixture of a wider scope sends while it is set up is no one test's."""
        if fixturedef.scope == "function":
            return (yield)
        running, self.state.running = self.state.running, None
        try:
            return (yield)
        finally:
            self.state.running = running

    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        if call.when == "setup" and call.excinfo is not None:
            # Skipped (a skipif for another platform) or errored before its cassette was served: no
            # note says which recordings it needs. A test that fails later is judged per cassette.
            self.state.not_passed += bool(COMMERCE_FIXTURES & set(getattr(item, "fixturenames", ())))
        if call.when == "call":
            for served in self.state.live:
                served.tests.add(item.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker's notes reach the controller when it finishes."""
        output = getattr(node, "workeroutput", None) or {}
        self.state.usage.extend(output.get(USAGE_KEY, []))
        self.state.discarded.extend(output.get(DISCARDED_KEY, []))
        self.state.deselected = self.state.deselected or bool(output.get("commerce_deselected"))
        self.state.not_passed += int(output.get("commerce_not_passed", 0))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """After every fixture ended: a worker sends its notes; the controller judges them."""
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[USAGE_KEY] = list(self.state.usage)
            workeroutput[DISCARDED_KEY] = list(self.state.discarded)
            workeroutput["commerce_deselected"] = self.state.deselected
            workeroutput["commerce_not_passed"] = self.state.not_passed
            return
        if self.state.unused == "ignore" or not self.state.usage:
            return
        self.partial = partial_run(self.config, self.state, session)
        self.unused, self.unjudged = unused_lines(self.state.usage)
        if self.partial is not None:
            self.unjudged += len(self.unused)
            self.unused = []
        if self.unused and self.state.unused == "fail" and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.unused or (self.unjudged and self.partial is not None):
            failing = " (--commerce-unused=fail: the run fails)" if self.state.unused == "fail" else ""
            terminalreporter.section(f"commerce-proxy: recordings never used{failing if self.unused else ''}")
            for line in self.unused:
                terminalreporter.write_line(line)
            if self.unused:
                terminalreporter.write_line(UNUSED_HINT)
            if self.partial is not None:
                terminalreporter.write_line(
                    f"{self.unjudged} cassette(s) hold recordings the tests of this run did not use; not "
                    f"listed, as this run did not run every test ({self.partial}): a run of the whole "
                    "suite lists them"
                )
        if self.state.discarded:
            terminalreporter.section("commerce-proxy: recordings discarded")
            for note in self.state.discarded:
                what = "left as it was" if note["existed"] else "not created"
                terminalreporter.write_line(f"{note['cassette']} {what}: {note['why']}")
            terminalreporter.write_line(DISCARD_HINT)
