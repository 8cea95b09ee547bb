"""Any page window of a list, answered from recorded pages of the same list (never invented records).

Spec, "Paginated list envelope" and "List endpoints that support pagination" rules 1-6, and "Limits".
Recorded pages of one list (same path and same query apart from the page parameters) place records at
absolute positions. A window whose every position is known, or lies past a known end, is answered in an
envelope that copies the recordings' style: their total method, extra keys, and link spelling (absolute
or relative, parameter order, encoded brackets).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

from proxy.core.model.exchange import Exchange, Request
from proxy.core.model.integers import integer_parameter, significant_digits
from proxy.core.rules.checks.context import dig, is_integer
from proxy.core.rules.checks.requests import TOTAL_METHODS
from proxy.core.rules.endpoints import routed_path

PAGE_PARAMETERS = ("page[limit]", "page[offset]", "page[total_method]")
MAX_LIMIT = 100  # Limits: maximum page length
OFFSET_LIMIT = 10_000  # Limits: offset limit
HARD_OFFSET_PATHS = ("/v2/orders", "/v2/files")  # Limits: hard on /v2/orders and /v2/files
INTEGER = re.compile(r"-?[0-9]+")
DIGITS_READ = 12  # a page parameter with more digits is out of range: never converted (int() of 5,000
# digits raises, and arithmetic on it is slow), refused with a 400
ListKey = tuple[str, tuple[tuple[str, str], ...]]

LOWER_BOUND_CAP = 10_000  # api-notes, Pagination: lower_bound counts up to 10,000


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request the service refuses: the status, the parameter at fault, and why."""

    status: int
    source: str
    detail: str


@dataclass(frozen=True, slots=True)
class Uncovered:
    """A window the recordings cannot answer without inventing records."""

    detail: str


@dataclass(frozen=True, slots=True)
class Window:
    """A simulated page: the envelope, and the recordings it was built from."""

    document: dict[str, Any]
    template: int  # the recording whose headers and style it copies
    sources: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PageAsk:
    """The page parameters of a list request."""

    limit: int | None
    offset: int
    total_method: str | None


def list_key(request: Request) -> ListKey:
    """Which list a request reads: its path and its query less the page parameters."""
    pairs = parse_qsl(request.query, keep_blank_values=True)
    rest = tuple(sorted((name, value) for name, value in pairs if name not in PAGE_PARAMETERS))
    return unquote(routed_path(request.path)), rest


def page_ask(request: Request) -> PageAsk | Refusal:
    """Read page[limit], page[offset] and page[total_method]; Pagination rule 1: integers only."""
    values = dict(parse_qsl(request.query, keep_blank_values=True))
    numbers: dict[str, int | None] = {}
    for name in ("page[limit]", "page[offset]"):
        raw = values.get(name)
        if raw is None:
            numbers[name] = None
        elif not INTEGER.fullmatch(raw.strip()) or (number := integer_parameter(raw)) is None:
            return Refusal(400, name, f"{name} must be an integer, found {_shown(raw)}")
        elif significant_digits(raw) > DIGITS_READ:
            return Refusal(400, name, f"{name} is out of range, found {_shown(raw)}")
        else:
            numbers[name] = number
    limit, offset = numbers["page[limit]"], numbers["page[offset]"] or 0
    if limit is not None and limit < 1:
        return Refusal(400, "page[limit]", f"page[limit] must be at least 1, found {limit}")
    if offset < 0:
        return Refusal(400, "page[offset]", f"page[offset] must not be negative, found {offset}")
    if offset > OFFSET_LIMIT and unquote(routed_path(request.path)) in HARD_OFFSET_PATHS:
        return Refusal(
            400,
            "page[offset]",
            f"page[offset] must not exceed {OFFSET_LIMIT} on this endpoint, found {offset}; "
            "use sort and filter to reach further records",
        )
    method = values.get("page[total_method]")
    if method is not None and method not in TOTAL_METHODS:
        return Refusal(
            400,
            "page[total_method]",
            f"page[total_method] must be one of {', '.join(TOTAL_METHODS)}, found {method!r}",
        )
    return PageAsk(limit, offset, method)


def _shown(raw: str) -> str:
    """A parameter's value quoted in a refusal, cut short when long."""
    return repr(raw) if len(raw) <= 40 else f"{raw[:40]!r}... ({len(raw)} characters)"


@dataclass(slots=True)
class RecordedPage:
    """One recorded page: which recording, what it asked, and its envelope."""

    number: int
    asked_method: str | None
    asked_limit: int | None
    document: dict[str, Any]


@dataclass(slots=True)
class ListKnowledge:
    """What the recordings tell of one list: records by position, and how many there are."""

    records: dict[int, Any] = field(default_factory=dict)
    source_of: dict[int, int] = field(default_factory=dict)
    count: int | None = None  # known exactly
    at_least: int = 0
    lowest_bound: int | None = None  # the smallest lower_bound total recorded
    pages: list[RecordedPage] = field(default_factory=list)

    def learn(self, number: int, request: Request, document: dict[str, Any]) -> None:
        """Place a recorded page's records and what its envelope says about the count."""
        data = document["data"]
        offset = dig(document, "meta", "page", "offset")
        limit = dig(document, "meta", "page", "limit")
        total = dig(document, "meta", "results", "total")
        method = dig(document, "meta", "results", "total_method")
        for position, record in enumerate(data):
            self.records[offset + position] = record
            self.source_of[offset + position] = number
        seen = offset + len(data)
        self.at_least = max(self.at_least, seen)
        links = document.get("links")
        no_next = isinstance(links, dict) and "next" in links and links["next"] is None
        if (data or offset == 0) and (len(data) < limit or no_next):
            self.count = seen
        if is_integer(total):
            if method == "exact" or method is None:
                self.count = total
            elif method == "lower_bound":
                self.at_least = max(self.at_least, total)
                self.lowest_bound = total if self.lowest_bound is None else min(self.lowest_bound, total)
            elif method == "observed":
                self.at_least = max(self.at_least, total)
        ask = page_ask(request)
        asked = ask if isinstance(ask, PageAsk) else PageAsk(None, 0, None)
        self.pages.append(RecordedPage(number, asked.total_method, asked.limit, document))

    def template(self, ask: PageAsk) -> RecordedPage:
        """The recorded page whose style a window copies: the same total method asked, else the first."""
        for page in self.pages:
            if page.asked_method == ask.total_method:
                return page
        return self.pages[0]

    def default_limit(self) -> int:
        """The page length used when none is asked: what the recordings got when they asked none."""
        for page in self.pages:
            if page.asked_limit is None:
                return int(page.document["meta"]["page"]["limit"])
        return 25  # Limits: default page length

    def window(self, ask: PageAsk, shown_target: str) -> Window | Uncovered:
        """The envelope for one window, or why the recordings cannot answer it."""
        limit = min(ask.limit if ask.limit is not None else self.default_limit(), MAX_LIMIT)
        offset = ask.offset
        end = offset + limit if self.count is None else min(offset + limit, self.count)
        missing = [position for position in range(offset, end) if position not in self.records]
        if missing:
            return Uncovered(
                f"{shown_target} asks for records {offset}-{offset + limit - 1}; the recordings of this "
                f"list hold {_spans(sorted(self.records))}{self._count_text()}, not record {missing[0]}"
            )
        window = [self.records[position] for position in range(offset, max(end, offset))]
        more = self._more_after(offset + len(window))
        if more is None:
            return Uncovered(
                f"{shown_target}: the recordings do not tell whether records follow position "
                f"{offset + len(window) - 1}"
            )
        template = self.template(ask)
        method = dig(template.document, "meta", "results", "total_method")
        shown = (min(offset, self.count) if self.count is not None else offset) + len(window)
        total: int | None
        if method == "observed":
            total = shown + (1 if more else 0)
        elif method == "lower_bound":
            # api-notes: lower_bound counts up to 10,000, so a recorded 10,000 is the service's cap and
            # stays 10,000 even past it; a lower bound never counts fewer records than were shown.
            capped = self.lowest_bound == LOWER_BOUND_CAP
            total = LOWER_BOUND_CAP if capped else max(self.lowest_bound or 0, shown)
        else:
            total = self.count
            if total is None:
                return Uncovered(f"{shown_target}: the recordings report an exact total but hold no count")
        document = _envelope(template, window, limit, offset, total, more)
        start = template.document["meta"]["page"]["offset"]
        held = range(start, start + len(template.document["data"]))
        used = {
            template.number if position in held else self.source_of[position]
            for position in range(offset, offset + len(window))
        }
        return Window(document, template.number, tuple(sorted(used | {template.number})))

    def _more_after(self, position: int) -> bool | None:
        if self.count is not None:
            return position < self.count
        if self.at_least > position or any(known >= position for known in self.records):
            return True
        return None

    def _count_text(self) -> str:
        if self.count is not None:
            return f" of {self.count}"
        return f" of at least {self.at_least}"


def _spans(positions: list[int]) -> str:
    """0-29, 40-49 style text for a sorted list of positions."""
    if not positions:
        return "no records"
    spans = []
    start = previous = positions[0]
    for position in positions[1:]:
        if position != previous + 1:
            spans.append((start, previous))
            start = position
        previous = position
    spans.append((start, previous))
    return "records " + ", ".join(f"{first}-{last}" for first, last in spans)


def _envelope(
    template: RecordedPage, window: list[Any], limit: int, offset: int, total: int, more: bool
) -> dict[str, Any]:
    """The template's envelope with this window's records, numbers and links."""
    document = {key: copy.deepcopy(value) for key, value in template.document.items() if key != "data"}
    document["data"] = window  # recorded records are shared, never changed: nothing writes into answers
    pages = math.ceil(total / limit)
    meta = document["meta"]
    meta["page"].update(limit=limit, offset=offset, current=offset // limit + 1, total=pages)
    meta["results"]["total"] = total
    links = document.get("links")
    if isinstance(links, dict):
        style = LinkStyle.of(links)
        targets = {
            "current": offset,
            "first": 0,
            "last": max(pages - 1, 0) * limit,
            "prev": max(offset - limit, 0) if offset > 0 else None,
            "next": offset + limit if more else None,
        }
        for name, target in targets.items():
            if name in links or style is not None:
                links[name] = None if target is None or style is None else style.link(limit, target)
    return document


@dataclass(frozen=True, slots=True)
class LinkStyle:
    """How the recordings spell a page link: the part before `?` and the parameters in their order."""

    base: str
    parameters: tuple[tuple[str, str], ...]  # (raw name, raw value), page values replaced per link

    @classmethod
    def of(cls, links: dict[str, Any]) -> LinkStyle | None:
        """The style of the first link the recording has (current first)."""
        for name in ("current", "first", "last", "next", "prev"):
            link = links.get(name)
            if isinstance(link, str):
                base, _, query = link.partition("?")
                pieces = tuple(_split(piece) for piece in query.split("&") if piece)
                return cls(base, pieces)
        return None

    def link(self, limit: int, offset: int) -> str:
        """The link to the page at `offset`, spelled like the recordings."""
        pieces = []
        placed = set()
        for name, value in self.parameters:
            meaning = unquote(name)
            if meaning == "page[limit]":
                value = str(limit)
            elif meaning == "page[offset]":
                value = str(offset)
            placed.add(meaning)
            pieces.append(f"{name}={value}")
        if "page[limit]" not in placed:
            pieces.append(f"page[limit]={limit}")
        if "page[offset]" not in placed and offset:
            pieces.append(f"page[offset]={offset}")
        return f"{self.base}?{'&'.join(pieces)}" if pieces else self.base


def _split(piece: str) -> tuple[str, str]:
    name, _, value = piece.partition("=")
    return name, value


def is_envelope(document: Any) -> bool:
    """A paginated envelope whose numbers are integers (else it cannot place records)."""
    return (
        isinstance(dig(document, "data"), list)
        and isinstance(dig(document, "meta", "results"), dict)
        and all(is_integer(dig(document, "meta", "page", name)) for name in ("limit", "offset"))
        and dig(document, "meta", "page", "limit") > 0
    )


def learn_lists(numbered: Iterable[tuple[int, Exchange]]) -> dict[ListKey, ListKnowledge]:
    """Every list the recordings show, from their successful GETs with a paginated envelope."""
    lists: dict[ListKey, ListKnowledge] = {}
    for number, exchange in numbered:
        request, response = exchange.request, exchange.response
        if request.method.upper() != "GET" or response.status != 200 or response.body.kind != "json":
            continue
        document = response.body.value
        if is_envelope(document):
            assert isinstance(document, dict)
            lists.setdefault(list_key(request), ListKnowledge()).learn(number, request, document)
    return lists
