"""`--commerce-ui`: the servers the fixtures start serve the web UI at /_proxy/ui/, as `record`, `spy`
and `replay` do, through the commands' one way of opening it (cli/serving.live_ui_on).

Off by default: a test server nobody looks at needs no page. When asked, each server's address with
its access token is written to the terminal as the server starts, with pytest's capture suspended (no
`-s` needed) and never into a captured section, a log record or a report, so no junit XML or report
file holds the token. An xdist worker's stdout goes nowhere and its stderr is the run's terminal: a
worker writes its servers' lines there. The UI is closed (its indexing thread stopped, its nameless
temporary index gone) when its server stops, however the run ends.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from proxy.core.model.access import ui_address

if TYPE_CHECKING:
    from proxy.app.live_ui import LiveUi
    from proxy.app.project_rules import RulesInForce
    from proxy.server.record import RecordProxy
    from proxy.server.replay import Replayer

UI_OPTION = "--commerce-ui"


def add_ui_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    group.addoption(
        UI_OPTION,
        action="store_true",
        default=False,
        help="every server the fixtures start serves the web UI at /_proxy/ui/; its address, with its "
        "access token, is printed as it starts",
    )
    parser.addini("commerce_ui", "true: as --commerce-ui", type="bool", default=False)


@dataclass(frozen=True, slots=True)
class Opened:
    """A server's UI: closed after its server stops (the server's cleanup closes it too, unless an
    earlier cleanup step raised)."""

    live: LiveUi
    token: str
    what: str  # the mode and the test (or module) the server is for


class RunUi:
    """The run's UI: opened on each server the fixtures start, its address shown as it starts."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config

    def attach(
        self,
        what: str,
        mode: str,
        served: RecordProxy | Replayer,
        in_force: RulesInForce,
        sources: Sequence[str],
        cassette: str | None = None,
    ) -> Opened:
        """The commands' live UI, opened on `served` before it starts; `what`: whose server it is."""
        from proxy.cli.serving import live_ui_on

        return Opened(
            live_ui_on(mode, served, in_force, sources, cassette), served.door.token, f"{mode}, {what}"
        )

    def show(self, opened: Opened, url: str) -> None:
        """One line, `commerce-proxy ui (MODE, TEST): ADDRESS`, on the terminal, outside any capture."""
        line = f"commerce-proxy ui ({opened.what}): {ui_address(url, opened.token)}"
        manager = self._config.pluginmanager
        capture = manager.getplugin("capturemanager")
        reporter = manager.getplugin("terminalreporter")
        worker = hasattr(self._config, "workerinput")  # its stdout is /dev/null, its stderr the terminal
        with capture.global_and_fixture_disabled() if capture is not None else nullcontext():
            if reporter is not None and not worker:
                reporter.ensure_newline()
                reporter.write_line(line)
            else:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()


def run_ui(config: pytest.Config) -> RunUi | None:
    """The run's UI when the option or the ini file asks for the UI, else None."""
    asked = config.getoption("commerce_ui") or config.getini("commerce_ui")
    return RunUi(config) if asked else None
