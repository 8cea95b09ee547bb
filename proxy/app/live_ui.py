"""A live server's UI (`record`, `spy`, `replay`): its view of the traffic and what its actions may do,
made by this one use case so the three commands show the same things with the same rules.

The CLI wires it to its server: a recording session tells `checked` of each exchange it keeps, replay
hands `answered` each answer it serves, and the server's UI routes read `view()` and `setting()`.
Nothing is made at start but this object: the view (its temporary index, its indexing thread, the
traffic index's modules) is made by the first exchange or the first UI request, whichever comes first,
so a server nobody looks at (most test servers) starts as fast as with `--no-ui`, and the page still
shows every exchange from the first one. Replay's answers wait for the first UI request instead, the
latest `ui_backlog.BACKLOG` of them, unmade (`ui_backlog.py`): a replay nobody looks at serves at its
`--no-ui` speed.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from proxy.app.ui_backlog import Backlog

if TYPE_CHECKING:
    from proxy.app.live_traffic import LiveView, Made
    from proxy.app.ui_action_cases import ActionSetting, Send
    from proxy.core.redaction.policy import RedactionPolicy
    from proxy.core.rules.engine import Checked
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
    """A live server's UI: its view, made when first needed, fed by `checked` (a follower) and
    `answered` (replay's hook)."""

    asked: LiveUiRequest
    _view: LiveView | None = field(default=None, init=False)
    _closed: bool = field(default=False, init=False)
    _backlog: Backlog = field(default_factory=Backlog, init=False)  # replay's answers until a page asks
    _making: threading.Lock = field(default_factory=threading.Lock, init=False)

    def view(self) -> LiveView | None:
        """The view, made now if it was not; None once closed (a late UI request: no index, no thread
        is made at shutdown)."""
        return self._made()

    @property
    def closed(self) -> bool:
        return self._closed

    def checked(self, checked: Checked) -> None:
        """A recording session's follower: one exchange kept, redacted, with its findings."""
        view = self._made()
        if view is not None and view.indexer is not None:
            view.indexer.checked(checked)

    def answered(self, made: Made, size: int = 0) -> None:
        """Replay's hook: how to make one answer served, its findings and how it was answered, called
        off the serving path (the serving path only appends it). Until the first UI request, and while
        what it held is handed to the view, it waits in the backlog (`size`: its bodies' bytes)."""
        if self._backlog.hold(made, size):
            return
        view = self._made()
        if view is not None:
            view.add_answered_later(made)

    def _made(self) -> LiveView | None:
        """The view, made now if it was not (an exchange may come from a checker's thread while the
        first UI request comes from the server's loop: one of them makes it); None once closed."""
        view = self._view
        if view is not None and not self._closed:
            return view
        with self._making:
            if self._closed:
                return None
            if self._view is None:
                from proxy.app.live_traffic import live_view

                asked = self.asked
                self._view = live_view(
                    asked.mode,
                    None,
                    asked.in_force,
                    sources=asked.sources,
                    policy=asked.policy,
                    cassette=asked.cassette,
                )
                self._view.left_out = self._backlog.left_out
                self._backlog.hand_to(self._view.add_answered_later)
            return self._view

    def handed_over(self, timeout: float) -> bool:
        """Wait until replay's answers held before the view was made reached it (tests)."""
        return self._backlog.wait(timeout)

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
        """Close the view, if it was made (its temporary index is removed); later exchanges are dropped
        and no view is made again."""
        self._backlog.close()
        with self._making:
            self._closed = True
            view = self._view
        if view is not None:
            view.close()


def live_ui(asked: LiveUiRequest) -> LiveUi:
    """The UI of a live server; its view is made when first needed."""
    return LiveUi(asked)
