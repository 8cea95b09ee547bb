"""What the fixtures yield: the server's base URL as a `str` (every use of a URL keeps working) that also
holds the exchanges of this test, as vcrpy's `cassette.requests` and WireMock's `verify` offer.

The requests are kept as the client sent them, secrets included, in this process's memory only: they
are never written to a file, a report or a log, and their `repr` (what pytest prints for a failing
assertion, and what JUnit XML keeps) shows them redacted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from proxy.core.model.bodies import body_to_bytes
from proxy.core.model.exchange import Headers, Request, source_text
from proxy.core.redaction.book import KNOWN
from proxy.server.watching import Seen


@dataclass(frozen=True, slots=True)
class SentRequest:
    """One request the test's client sent, and what answered it."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]  # the query's parameters in the order sent, decoded
    headers: Headers  # as sent: names in their case, in order, repeats kept
    body: bytes  # decoded from any Content-Encoding
    answered_by: int | str  # a recording's index in `cassette`, "simulated", "missed" or "forwarded"
    cassette: str | None
    status: int
    shown: str  # the request line with secrets redacted: what repr and failure messages show
    shown_headers: Headers  # the headers with secrets redacted
    test: str | None = None  # the node id of the test running when it was sent (None: between tests)

    @classmethod
    def of(cls, seen: Seen, test: str | None = None) -> SentRequest:
        request = seen.request
        return cls(
            request.method,
            request.path,
            tuple(parse_qsl(request.query, keep_blank_values=True)),
            request.headers,
            _body_bytes(request),
            seen.answered_by,
            seen.cassette,
            seen.status,
            f"{seen.shown.method} {seen.shown.target}",
            seen.shown.headers,
            test,
        )

    def header(self, name: str) -> str | None:
        """The first value of header `name` (any case), or None when it was not sent."""
        values = self.header_values(name)
        return values[0] if values else None

    def header_values(self, name: str) -> list[str]:
        """Every value of header `name` (any case), in the order sent."""
        wanted = name.lower()
        return [value for key, value in self.headers if key.lower() == wanted]

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"<SentRequest {self.shown} answered by {self.answered_by!r}>"


def _body_bytes(request: Request) -> bytes:
    text = source_text(request.body)
    return text.encode("utf-8") if text is not None else body_to_bytes(request.body)


class Exchanges:
    """The requests one fixture's server answered, added from the server's thread as they come, each
    filed under the test running when it came (`current`: the plugin's, None between tests and while a
    fixture of a wider scope is set up)."""

    def __init__(self, current: Callable[[], str | None] = lambda: None) -> None:
        self._sent: list[SentRequest] = []
        self._lock = threading.Lock()
        self.current = current

    def seen(self, seen: Seen) -> None:
        sent = SentRequest.of(seen, self.current())
        with self._lock:
            self._sent.append(sent)

    def all(self) -> list[SentRequest]:
        with self._lock:
            return list(self._sent)

    def of_current_test(self) -> list[SentRequest]:
        """Those sent while the running test ran (all of them when no test is running)."""
        test = self.current()
        every = self.all()
        return every if test is None else [sent for sent in every if sent.test == test]


class CommerceServer(str):
    """The base URL of a fixture's server (a `str`), with what the test sent it.

    `requests` lists each request the running test sent (in its setup, body or teardown), in the order
    answered, also from a module's fixture; `all_requests` every request the server answered (for a
    module's fixture, the module's so far); `answered_by` says for each of `requests` what answered it
    (a recording's index in its cassette, "simulated", "missed", or "forwarded" to the upstream without
    being recorded); `play_count` counts those a recording answered; `assert_header_sent` checks that a
    request of the test carried a header.
    """

    _exchanges: Exchanges

    def __new__(cls, url: str, exchanges: Exchanges | None = None) -> CommerceServer:
        server = super().__new__(cls, url)
        server._exchanges = exchanges if exchanges is not None else Exchanges()
        return server

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        """Pickled (or copied) as the plain URL: what the client sent never leaves this process."""
        return (str, (self.url,))

    @property
    def url(self) -> str:
        """The base URL as a plain `str`."""
        return str.__str__(self)

    @property
    def requests(self) -> list[SentRequest]:
        """The requests the running test sent this server so far, in order (outside a test: all)."""
        return self._exchanges.of_current_test()

    @property
    def all_requests(self) -> list[SentRequest]:
        """Every request this server answered so far, whichever test sent it, in order."""
        return self._exchanges.all()

    @property
    def answered_by(self) -> list[int | str]:
        """What answered each request, in order: an index, "simulated", "missed" or "forwarded"."""
        return [sent.answered_by for sent in self.requests]

    @property
    def play_count(self) -> int:
        """How many requests a recording answered."""
        return sum(1 for sent in self.requests if isinstance(sent.answered_by, int))

    def assert_header_sent(
        self, name: str, value: str | None = None, *, method: str | None = None, path: str | None = None
    ) -> SentRequest:
        """Assert that a request (of `method` and `path`, when given) carried header `name` (with exactly
        `value`, when given); returns the first that did. The failure lists what was sent, with the
        values of credentials redacted."""
        __tracebackhide__ = True
        candidates = [
            sent
            for sent in self.requests
            if (method is None or sent.method.upper() == method.upper())
            and (path is None or sent.path == path)
        ]
        for sent in candidates:
            values = sent.header_values(name)
            if values and (value is None or value in values):
                return sent
        wanted = f"{name}: {value}" if value is not None else name
        which = " ".join(part for part in (method, path) if part) or "any request"
        sent_lines = [f"  {sent.shown}: {_headers_shown(sent)}" for sent in candidates] or ["  (none)"]
        text = "\n".join([f"no request ({which}) sent header {wanted}; requests sent:", *sent_lines])
        raise AssertionError(KNOWN.scrub(text))  # a value asked for may be a secret the client sent


def _headers_shown(sent: SentRequest) -> str:
    """The headers a request carried, credentials redacted."""
    return "; ".join(f"{key}: {value}" for key, value in sent.shown_headers) or "no headers"
