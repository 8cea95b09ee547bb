"""A live server's UI (`record`, `spy`, `replay`): its view of the traffic and what its actions may do,
made by this one use case so the three commands show the same things with the same rules.

The CLI wires it to its server: a recording session tells `checked` of each exchange it keeps, replay
hands `answered` each answer it serves, and the server's UI routes read `view()` and `setting()`.
Nothing is made at start but this object: the view (its temporary index, its indexer, the
traffic index's modules) is made by the first UI request, so a server nobody looks at (most test
servers) starts as fast as with `--no-ui`. Until then the exchanges wait, the latest
`ui_backlog.BACKLOG` of them (replay's answers unmade, a recording's as its journal line), and
the view is handed them first (`ui_backlog.py`): a server nobody looks at serves at its `--no-ui` speed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from proxy.app.ui_backlog import Backlog
from proxy.core.cassette.journal_line import journal_entry, parse_json_line
from proxy.core.model.exchange import held_lightly, source_text, with_source_text
from proxy.core.rules.engine import Checked
from proxy.core.rules.findings import Finding
from proxy.store import clock

if TYPE_CHECKING:
    from proxy.app.live_traffic import LiveView, Made
    from proxy.app.ui_action_cases import ActionSetting, Send
    from proxy.core.redaction.policy import RedactionPolicy
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
    # asks the live checker's process to make each exchange's index entry (`checker_entries`), once a
    # view is made: the cassette its rows name
    checker_entries: Callable[[str | None], None] | None = None


@dataclass(frozen=True, slots=True)
class Journaled:
    """A recorded exchange held as its journal line and its JSON bodies' texts as they came (the journal
    writes a JSON body as its document): bytes and strings, which the cyclic collector never walks, and
    no exchange copied on the serving loop. Made again, the same exchange, only if a page is opened."""

    sequence: int
    line: bytes
    texts: tuple[str | None, str | None]  # the request's and the response's JSON text, when it has one
    findings: list[Finding]

    @classmethod
    def of(cls, checked: Checked, line: bytes) -> Journaled:
        exchange = checked.exchange
        texts = (source_text(exchange.request.body), source_text(exchange.response.body))
        return cls(checked.sequence, line, texts, checked.findings)

    @property
    def size(self) -> int:
        """Its bodies' bytes, as the backlog's bound counts them: the line's (the texts are the same
        bodies as they came, so the memory held is at most twice the bound)."""
        return len(self.line)

    def checked(self) -> Checked:
        _, exchange = journal_entry(parse_json_line(self.line), clock.now())
        request, response = exchange.request, exchange.response
        request_text, response_text = self.texts
        exchange = replace(
            exchange,
            request=replace(request, body=with_source_text(request.body, request_text)),
            response=replace(response, body=with_source_text(response.body, response_text)),
        )
        return Checked(self.sequence, exchange, self.findings, self.line)


@dataclass
class LiveUi:
    """A live server's UI: its view, made when first needed, fed by `checked` (a follower) and
    `answered` (replay's hook)."""

    asked: LiveUiRequest
    _view: LiveView | None = field(default=None, init=False)
    _closed: bool = field(default=False, init=False)
    # What the server saw until a page asks: replay's `Made` answers, a recording's `Checked` exchanges.
    _backlog: Backlog[Journaled | Checked | Made] = field(default_factory=Backlog, init=False)
    _making: threading.Lock = field(default_factory=threading.Lock, init=False)

    def view(self) -> LiveView | None:
        """The view, made now if it was not; None once closed (a late UI request: no index, no thread
        is made at shutdown)."""
        return self._made()

    @property
    def closed(self) -> bool:
        return self._closed

    def checked(self, checked: Checked) -> None:
        """A recording session's follower: one exchange kept, redacted, with its findings. Until the
        first UI request, and while what it held is handed to the view, it waits in the backlog."""
        if self._backlog.holding:
            held: Journaled | Checked
            if checked.line is not None:
                held = Journaled.of(checked, checked.line)
                size = held.size
            else:
                light, size = held_lightly(checked.exchange)
                held = Checked(checked.sequence, light, checked.findings)
            if self._backlog.hold(held, size):
                return
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
                try:  # made by the server's loop (its first UI request): indexed by that loop
                    loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
                except RuntimeError:
                    loop = None
                self._view = live_view(
                    asked.mode,
                    None,
                    asked.in_force,
                    sources=asked.sources,
                    policy=asked.policy,
                    cassette=asked.cassette,
                    loop=loop,
                )
                self._view.left_out = self._backlog.left_out
                if asked.checker_entries is not None:
                    asked.checker_entries(asked.cassette)
                self._backlog.hand_to(self._hand_held)
            return self._view

    def _hand_held(self, item: Journaled | Checked | Made) -> None:
        """One exchange held before the view was made, to the view."""
        view = self._view
        if view is None:
            return
        if isinstance(item, Journaled):
            view.add_checked(item.checked())
        elif isinstance(item, Checked):
            view.add_checked(item)
        else:
            view.add_answered_later(item)

    def handed_over(self, timeout: float) -> bool:
        """Wait until the exchanges held before the view was made reached it (at most `timeout` s)."""
        return self._backlog.wait(timeout)

    def settled(self, timeout: float) -> None:
        """Wait (at most `timeout` s) until what was held before the view was made is handed to it and
        indexed: the first UI request answers with every exchange before it, not the first few."""
        view = self._view
        if view is not None and self._backlog.wait(timeout):
            view.flush()

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
