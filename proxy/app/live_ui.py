"""A live server's UI (`record`, `spy`, `replay`): its view of the traffic and what its actions may do,
made by this one use case so the three commands show the same things with the same rules.

The CLI wires it to its server: a recording session tells `checked` of each exchange it keeps, replay
hands `answered` each answer it serves, and the server's UI routes read `view()` and `actions()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proxy.app.traffic_view import Answered, LiveView
    from proxy.app.ui_action_cases import ActionSetting, Send
    from proxy.core.model.exchange import Exchange
    from proxy.core.redaction.policy import RedactionPolicy
    from proxy.core.rules.engine import Checked
    from proxy.core.rules.findings import Finding
    from proxy.store.rule_files import RulesInForce


@dataclass(frozen=True, slots=True)
class LiveUiRequest:
    """What a live server's UI is made of: its mode, the rules it runs with (loaded once, by the
    command), the redaction its exchanges get, where its traffic comes from (`sources`, as `api/info`
    names them), the cassette its rows name (record), and for a resend its upstream and client."""

    mode: str  # "record" | "spy" | "replay"
    in_force: RulesInForce
    policy: RedactionPolicy
    sources: Sequence[str] = ()
    cassette: str | None = None
    upstream: str | None = None
    send: Send | None = None
    sends_authorization: bool = False


@dataclass
class LiveUi:
    """A live server's UI: its view, fed by `checked` (a follower) and `answered` (replay's hook)."""

    asked: LiveUiRequest
    _view: LiveView | None = field(default=None, init=False)

    def view(self) -> LiveView:
        if self._view is None:
            from proxy.app.traffic_view import live_view

            asked = self.asked
            self._view = live_view(
                asked.mode,
                None,
                asked.in_force,
                sources=asked.sources,
                policy=asked.policy,
                cassette=asked.cassette,
            )
        return self._view

    def checked(self, checked: Checked) -> None:
        """A recording session's follower: one exchange kept, redacted, with its findings."""
        indexer = self.view().indexer
        if indexer is not None:
            indexer.checked(checked)

    def answered(self, exchange: Exchange, findings: list[Finding], answered: Answered) -> None:
        """Replay's hook: one answer served, with how it was made."""
        self.view().add_answered(exchange, findings, answered)

    def setting(self) -> ActionSetting:
        """What the UI's actions may do here."""
        from proxy.app.ui_action_cases import ActionSetting

        asked = self.asked
        return ActionSetting(
            asked.mode,
            asked.in_force,
            upstream=asked.upstream,
            send=asked.send,
            policy=asked.policy,
            sends_authorization=asked.sends_authorization,
        )

    def close(self) -> None:
        if self._view is not None:
            self._view.close()


def live_ui(asked: LiveUiRequest) -> LiveUi:
    """The UI of a live server."""
    ui = LiveUi(asked)
    ui.view()
    return ui
