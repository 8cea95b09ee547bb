"""The UI's actions over the exchanges a traffic view shows, named by their ids: what each may do where,
and the use cases of `proxy/app/ui_actions.py` it calls. The server decodes a request and encodes the
answer; every decision (which source may be edited, in which mode a resend is allowed, how many
exchanges an export takes) is made here, as one of the refusals below.

The exchanges are rebuilt from what the view's index keeps of them: already redacted, so nothing here
can show or send a secret the index never had.
"""

from __future__ import annotations

import base64
import binascii
from array import array
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from proxy.app import ui_actions
from proxy.app.cassette_edits import MOVED, Moved
from proxy.app.command_inputs import RuleChoice
from proxy.app.traffic_rows import finding_document, row_identity, shown_identity
from proxy.app.traffic_sources import journaled, sent_to, sources_of
from proxy.app.traffic_view import TrafficView, offline_state, offline_view
from proxy.app.verify_results import read_verify_report, verify_diff_document
from proxy.core.cassette.cache_line import exchange_of_entry
from proxy.core.drift.compare import Tiering
from proxy.core.interchange.curl import curl_command
from proxy.core.model.exchange import Exchange, JSONValue, Request, Response
from proxy.core.redaction.placeholders import redacted_places
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.redaction.redact import is_token_request, redact_exchange
from proxy.core.rules.endpoints import routed_path
from proxy.core.ui.query import Query
from proxy.errors import CommerceProxyError, UsageError
from proxy.store.rule_files import RulesInForce

EXPORT_MOST = 100_000  # exchanges one export takes
PAGE = 500  # rows read from the view at a time
Send = Callable[[Request], Awaitable[Response]]  # the server's upstream client, for a resend
UNKNOWN_UPSTREAM = "http://localhost"  # curl's base when the source names none (a cassette without one)


class Refused(CommerceProxyError):
    """An action refused, with one line saying why. Its kind is the subclass."""


class NotFound(Refused):
    """No such exchange or source."""


class WrongMode(Refused):
    """Not in this server's mode (an edit while recording, a resend offline)."""


class Conflict(Refused):
    """The thing cannot take it: a journal edited, no baseline configured, a credential redacted."""


class TooMany(Refused):
    """More exchanges than one answer takes."""


class Stopping(Refused):
    """The server is stopping: an action not done by then is given up, not left to hold the exit."""


@dataclass
class ActionSetting:
    """What the actions know of their server: its mode, rules, the upstream it forwards to (record,
    spy) and how to send there, and the redaction a live answer gets before it is shown."""

    mode: str
    in_force: RulesInForce | None = None
    upstream: str | None = None
    send: Send | None = None
    policy: RedactionPolicy = field(default_factory=RedactionPolicy)
    rules: RuleChoice = field(default_factory=RuleChoice)
    sends_authorization: bool = False  # the upstream client adds its own Authorization when none is sent
    tiering: Tiering | None = None  # the specs the server was started with, which tier a cassette diff


NAMING = ("cassette", "method", "path", "status", "time")  # what tells a row's exchange from another's


class UiActions:
    """The actions over one view."""

    def __init__(self, view: TrafficView, setting: ActionSetting) -> None:
        self.view = view
        self.setting = setting
        self.stopping = False  # set by the server's stop; a long action checks it as it goes
        # Ids that name another exchange than when the view first gave them out: an id is a position, so
        # a delete (from this view or from outside) moves every one after it. An action on one of them
        # must say which exchange it means (`identity`), or it could change one the user never saw.
        self._moved = bytearray()  # 1 at each such id: a byte an id, for a view of a million exchanges

    def check_going(self) -> None:
        """Refuse to go on once the server stops (an export of 100,000 exchanges takes seconds)."""
        if self.stopping:
            raise Stopping("the server is stopping: ask again once it is started again")

    # reads

    def sources(self) -> dict[str, Any]:
        """The view's sources, each with its kind (a live server's one: "live")."""
        if self.setting.mode != "offline":
            return {"sources": [{"name": name, "kind": "live"} for name in self.view.sources]}
        return {"sources": [{"name": str(s.path), "kind": s.kind} for s in _sources(self.view.sources)]}

    def curl(self, number: int) -> dict[str, Any]:
        """The exchange's request as a curl command line, at the upstream it was (or is) sent to."""
        row, exchange = self._exchange(number)
        return {"command": curl_command(exchange, self._base(row))}

    def diff(self, a: int, b: int, verbose: bool = False) -> dict[str, Any]:
        """Two exchanges compared by meaning (`verbose`: volatile differences too)."""
        return ui_actions.exchange_diff(self._exchange(a)[1], self._exchange(b)[1], verbose=verbose)

    def cassette_diff(self, a: str, b: str, verbose: bool = False) -> dict[str, Any]:
        """Two of the view's cassettes, as `cassette diff --format json` compares them; or a cassette
        and a `verify` report of it, in the same shape (`verbose`: volatile differences too)."""
        kinds = {str(s.path): s.kind for s in self._offline_sources() if s.kind in ("cassette", "verify")}
        for name in (a, b):
            if name not in kinds:
                raise NotFound(
                    f"{name[:120]!r} is not one of this view's cassettes or verify reports (see /api/sources)"
                )
        if kinds[a] == kinds[b] == "verify":
            raise UsageError("two verify reports: compare a report with a cassette it verified")
        if "verify" in (kinds[a], kinds[b]):
            live_is_b = kinds[b] == "verify"
            report, cassette = (b, a) if live_is_b else (a, b)
            try:
                document = read_verify_report(Path(report))
                exchanges = int(self.view.window(Query(cassette=cassette), 0, 0)["total"])
                others = [name for name, kind in kinds.items() if kind == "cassette" and name != cassette]
                return verify_diff_document(
                    document,
                    report,
                    cassette,
                    live_is_b=live_is_b,
                    verbose=verbose,
                    exchanges=exchanges,
                    others=others,
                )
            except CommerceProxyError as error:
                raise Conflict(str(error)) from None
        return ui_actions.cassette_diff_document(
            Path(a), Path(b), in_force=self.setting.in_force, verbose=verbose, tiering=self.setting.tiering
        )

    def export(self, query: Query, kind: str) -> tuple[bytes, str]:
        """The exchanges matching `query`, as a HAR or a cassette file, and the file's name."""
        if kind not in ui_actions.EXPORT_KINDS:
            raise UsageError(f"format={kind[:40]!r}: expected one of {', '.join(ui_actions.EXPORT_KINDS)}")
        total = int(self.view.window(query, 0, 0, wait=True)["total"])
        if total > EXPORT_MOST:
            raise TooMany(
                f"{total} exchanges match: an export takes at most {EXPORT_MOST}; narrow the filter"
            )
        exchanges: list[Exchange] = []
        origins: list[str | None] = []  # where each was sent, as curl names it
        for offset in range(0, total, PAGE):
            self.check_going()
            for row in self.view.window(query, offset, PAGE, wait=True)["exchanges"]:
                exchanges.append(self._exchange(int(row["id"]))[1])
                origins.append(self._sent_to(row))
        upstream = origins[0] if len(set(origins)) == 1 else None
        policy = self.setting.in_force.project.redaction if self.setting.in_force else None
        self.check_going()
        data = ui_actions.export_document(exchanges, kind, upstream, policy=policy, origins=origins)
        return data, f"commerce-proxy-export.{'har' if kind == 'har' else 'yaml'}"

    # changes

    def accept(self, number: int, rule: str) -> dict[str, Any]:
        """The exchange's findings of `rule` accepted into the project's baseline (offline, the view is
        indexed again without them)."""
        row, stored = self._stored(number)
        found = [doc for doc in stored["findings"] if doc["rule"] == rule]
        if not found:
            raise NotFound(f"exchange {number} has no finding of rule {rule[:80]!r}")
        if self.setting.in_force is None:
            raise Conflict("this server checks no rules: there is no baseline to accept into")
        path = routed_path(str(row["path"]).partition("?")[0])
        keys = [(rule, str(row["method"]), path, str(doc["where"])) for doc in found]
        try:
            result = ui_actions.accept_into_baseline(self.setting.in_force, keys)
        except UsageError as error:
            raise Conflict(str(error)) from None
        if self.setting.mode == "offline":
            self._reindex()  # the findings it accepts leave the view, as `check` leaves them out
        return {"path": str(result.path), "added": result.added, "total": result.total}

    def delete(self, number: int, identity: str | None = None) -> dict[str, Any]:
        """`cassette delete` of the exchange's cassette, re-checked; the view re-indexed. `identity`:
        the detail document's, of the exchange the caller means (see `_editable`)."""
        path, index, seen = self._editable(number, identity)
        rules = self.setting.rules
        return self._edited(path, lambda: ui_actions.delete_exchange(path, index, rules=rules, expected=seen))

    def edit(
        self,
        number: int,
        field_name: str,
        value: JSONValue,
        unset: bool = False,
        typed: bool = True,
        identity: str | None = None,
    ) -> dict[str, Any]:
        """`cassette set` (or `unset`) on the exchange, re-checked; the view re-indexed. `typed`: as
        `ui_actions.edit_exchange`'s; `identity`: as `delete`'s."""
        path, index, seen = self._editable(number, identity)
        return self._edited(
            path,
            lambda: ui_actions.edit_exchange(
                path,
                index,
                field_name,
                value,
                unset=unset,
                typed=typed,
                rules=self.setting.rules,
                expected=seen,
            ),
            kept=number,
        )

    async def resend(self, number: int) -> dict[str, Any]:
        """The recorded request sent to the upstream again (never recorded), and what changed."""
        if self.setting.mode not in ("record", "spy") or self.setting.send is None:
            raise WrongMode(
                f"resend sends to the upstream: only `record` and `spy` do (this is {self._mode})"
            )
        _, recorded = self._exchange(number)
        request = recorded.request
        if is_token_request(request):
            raise Conflict("the token request is never re-sent: its recording holds no secret")
        places = redacted_places(request)  # anywhere in it, as `verify` refuses to send it
        if self.setting.sends_authorization and "header authorization" in [p.lower() for p in places]:
            headers = tuple((n, v) for n, v in request.headers if n.lower() != "authorization")
            request = replace(request, headers=headers)  # the server's own credentials go
            places = [p for p in places if p.lower() != "header authorization"]
        if places:
            raise Conflict(f"its {places[0]} holds a redacted value the live service would refuse")
        response = await self.setting.send(request)
        live = redact_exchange(Exchange(request, response), self.setting.policy)
        return {"status": response.status, "diff": ui_actions.exchange_diff(recorded, live)}

    # helpers

    @property
    def _mode(self) -> str:
        return self.setting.mode

    def _stored(self, number: int) -> tuple[dict[str, Any], dict[str, Any]]:
        found = self.view.stored(number)
        if found is None:
            raise NotFound(f"no exchange {number}")
        return found

    def _exchange(self, number: int) -> tuple[dict[str, Any], Exchange]:
        row, stored = self._stored(number)
        return row, exchange_of(row, stored)

    def _offline_sources(self) -> list[Any]:
        if self.setting.mode != "offline":
            raise WrongMode(f"the view's files are compared offline only (this is {self._mode})")
        return _sources(self.view.sources)

    def _editable(self, number: int, identity: str | None) -> tuple[Path, int, str]:
        """The cassette file and index of an exchange an edit may change (offline, from a cassette), and
        its identity as indexed; a view whose files changed since it was indexed is indexed again and
        the action refused (the id may name another exchange now). So is an action whose `identity`
        is not the exchange's now, or that gives none for an id that has named another exchange."""
        if self.setting.mode != "offline":
            raise WrongMode(
                f"exchanges are edited offline only (`commerce-proxy ui CASSETTE`); this is {self._mode}"
            )
        if offline_state(self.view) != self.view.state:
            self._reindex()
            raise Conflict(MOVED)
        row, stored = self._stored(number)
        moved = number < len(self._moved) and self._moved[number] == 1
        stale = identity != shown_identity(row, stored) if identity is not None else moved
        if stale:
            raise Conflict(
                f"exchange {number} is not the exchange meant: the view changed since it was shown; "
                "reload (or give the detail document's identity)"
            )
        kinds = {str(s.path): s.kind for s in _sources(self.view.sources)}
        name, index = row.get("cassette"), row.get("index")
        kind = kinds.get(str(name))
        if kind != "cassette" or index is None:
            raise Conflict(f"exchange {number} is from a {kind or 'source'} file: edit the cassette instead")
        path = Path(str(name))
        if journaled(path, int(index)):
            raise Conflict(
                f"exchange {number} is in {path.name}'s journal, not yet in the cassette (a recording is "
                "going on, or stopped before it saved): edit it once the recording has saved it"
            )
        return path, int(index), row_identity(row, stored)

    def _reindex(self, kept: int | None = None) -> None:
        """Index the view's files again; every id that now names another exchange is `_moved` (`kept`:
        the id of the exchange an edit changed, still the same exchange)."""
        if self.setting.in_force is not None:
            before = self._named()
            rebuilt = offline_view([Path(name) for name in self.view.sources], self.setting.in_force)
            self.view.replace_with(rebuilt)
            after = self._named()
            if len(self._moved) < len(before):
                self._moved.extend(bytes(len(before) - len(self._moved)))
            for number in range(1, len(before)):
                shown = before[number]  # 0: no exchange had this id, so none moved from it
                if shown and number != kept and (number >= len(after) or after[number] != shown):
                    self._moved[number] = 1

    def _named(self) -> array[int]:
        """What each id of the view names (at its id; 0 for none), as a hash of its cassette, request
        line, status and recording time: 8 bytes an exchange, however many the view holds."""
        named = array("q", bytes(8 * (self.view.cursor + 1)))
        cursor = 0
        while (batch := self.view.changes(cursor)) is not None and batch["exchanges"]:
            for row in batch["exchanges"]:
                if row["id"] < len(named):
                    named[row["id"]] = hash(tuple(row.get(key) for key in NAMING)) or 1
            cursor = batch["cursor"]
        return named

    def _edited(
        self, path: Path, run: Callable[[], ui_actions.Edited], kept: int | None = None
    ) -> dict[str, Any]:
        before = self._findings_of(str(path))
        try:
            edited = run()
        except Moved as error:
            self._reindex()
            raise Conflict(str(error)) from None
        except ui_actions.BadEdit:  # the field or value asked for: bad input (400), whatever the cassette
            raise
        except UsageError as error:
            raise Conflict(str(error)) from None
        self._reindex(kept)
        remaining = Counter(_key(doc) for doc in self._findings_of(str(path)))
        removed = []
        for doc in before:  # each finding the cassette showed and shows no more, as often as it went
            if remaining[_key(doc)] > 0:
                remaining[_key(doc)] -= 1
            else:
                removed.append(doc)
        added = [finding_document(finding) for finding in edited.recheck.added] if edited.recheck else []
        return {"summary": edited.summary, "added": added, "removed": removed, "cursor": self.view.cursor}

    def _findings_of(self, cassette: str) -> list[dict[str, Any]]:
        """Every finding the view shows for one cassette's exchanges."""
        query = Query(cassette=cassette)
        found: list[dict[str, Any]] = []
        total = int(self.view.window(query, 0, 0, wait=True)["total"])
        for offset in range(0, total, PAGE):
            self.check_going()
            for row in self.view.window(query, offset, PAGE, wait=True)["exchanges"]:
                if any(row["findings"].values()):
                    found.extend(self._stored(int(row["id"]))[1]["findings"])
        return found

    def _base(self, row: dict[str, Any]) -> str:
        """Where curl sends the exchange's request: `_sent_to`, else a placeholder origin."""
        return self._sent_to(row) or UNKNOWN_UPSTREAM

    def _sent_to(self, row: dict[str, Any]) -> str | None:
        """Where the exchange's request goes: the upstream (record, spy), or where its source says it
        was sent (offline: its cassette's or journal's upstream, its HAR entry's origin; replay: the
        recording that answered); None when nothing says."""
        if self.setting.mode in ("record", "spy") and self.setting.upstream:
            return self.setting.upstream
        name, number = row.get("cassette"), row.get("index")
        answered = row.get("answered") or {}
        if answered.get("recording"):
            name, _, index = str(answered["recording"]).rpartition("#")
            number = int(index) if index.isdigit() else None
        return sent_to(str(name), number) if name else None


def _key(document: dict[str, Any]) -> tuple[str, str, str, str]:
    return (document["rule"], document["severity"], document["message"], document["where"])


@cache
def _sources_cached(names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(sources_of([Path(name) for name in names]))


def _sources(names: Sequence[str]) -> list[Any]:
    return list(_sources_cached(tuple(names)))


def exchange_of(row: dict[str, Any], stored: dict[str, Any]) -> Exchange:
    """The exchange an index row and its kept document describe (redacted, as it was indexed), read by
    the core's one decoder of a kept exchange (`cassette.cache_line`): headers in their order, a JSON
    body as its exact text, and the Content-Encoding a body was decoded from."""
    path, _, query = str(row["path"]).partition("?")
    request, response = stored["request"], stored["response"]
    entry = [
        row.get("time"),
        row.get("duration_ms"),
        [str(row["method"]), path, query, _flat(request["headers"]), _body_entry(request)],
        [int(response["status"]), response.get("reason"), _flat(response["headers"]), _body_entry(response)],
    ]
    try:
        return exchange_of_entry(entry, {}, None)
    except (TypeError, ValueError):
        detail = "the index keeps it in a shape this version cannot read"
        raise Conflict(f"exchange {row.get('id')}: {detail}") from None


def _flat(pairs: list[list[str]]) -> list[str]:
    return [str(part) for pair in pairs for part in pair]


def _body_entry(message: dict[str, Any]) -> list[Any] | None:
    """A kept body (`[kind, text]`: JSON as its exact text, text, binary as base64) as the codec's entry
    (`[kind, value, decoded_from]`)."""
    kind, text = message["body"]
    decoded_from = message.get("decoded_from")
    if kind == "binary":
        try:
            base64.b64decode(str(text), validate=True)
        except (binascii.Error, ValueError):
            return None
        return ["base64", str(text), decoded_from]
    if kind in ("json", "text"):
        return [kind, str(text), decoded_from]
    return None if decoded_from is None else ["empty", None, decoded_from]
