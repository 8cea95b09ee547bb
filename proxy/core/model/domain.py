"""What a stored exchange may say: every field's domain, judged by one function that every reader's
exchange passes through (the cassette document, the fast readers, the parse cache, the journal) and that
every writer asks first (the journal, edits, imports), so nothing outside it is loaded, written or
replayed. docs/cassette-format.md states the same domains.

Pure: the time it is now is handed in (a recording made in the future is outside the domain, and the
core has no clock); None leaves that one comparison out.
"""

from __future__ import annotations

import binascii
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from proxy.core.model.exchange import Body, Exchange, Headers, Response
from proxy.core.model.heads import (
    FIELD_TEXT_FORBIDDEN,
    TOKENS,
    header_problem,
    headers_problem,
    method_problem,
    path_problem,
    query_problem,
    reason_problem,
    target_fine,
)
from proxy.errors import CassetteFormatError

# RFC 3339: a date, a time to the second (a fraction allowed; 60, a leap second) and a zone, `T` and `Z`
# in either case (RFC 3339 5.6): what `record` writes, and what the RFC lets a hand write.
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
)
_BASE64_BLANKS = str.maketrans("", "", " \t\r\n")  # what a YAML writer may fold a long string at
SKEW_SECONDS = 300.0  # how far ahead of this machine's clock a recording's clock may have been
MOST_DURATION_MS = 600_000.0  # ten minutes, as `--latency` allows: no upstream answer takes longer
FINAL_STATUSES = range(200, 600)  # a 1xx is interim (101 an upgrade): never a recorded answer


@dataclass(frozen=True, slots=True)
class Fault:
    """A field outside its domain: where in the exchange (`("response", "status")`) and the problem."""

    where: tuple[str, ...]
    problem: str

    def __str__(self) -> str:  # a header name is the file's: one holding a line break is quoted
        return (
            f"{'.'.join(part if part.isprintable() else repr(part) for part in self.where)}: {self.problem}"
        )


def status_problem(status: object) -> str | None:
    """A recorded answer's status is a final one: an integer 200-599 (RFC 9110 15)."""
    if type(status) is not int or status not in FINAL_STATUSES:
        return f"expected a final HTTP status 200-599 (1xx is never a recorded answer), found {status!r}"
    return None


def duration_problem(duration: object) -> str | None:
    """How long the upstream took, in milliseconds: a finite number from 0 to MOST_DURATION_MS."""
    if type(duration) not in (int, float):
        return f"expected a number of milliseconds, found {duration!r}"
    if not 0 <= duration <= MOST_DURATION_MS:  # type: ignore[operator]  # also NaN, inf, 400 digits
        return f"expected milliseconds from 0 to {MOST_DURATION_MS:.0f}, found {duration!r}"
    return None


def timestamp_seconds(stamp: str) -> float | None:
    """An RFC 3339 timestamp (`2026-11-22T00:19:20.723373Z`, or with an offset) as seconds since the
    epoch; None when it is not one, or names a day, hour or offset that does not exist."""
    found = _TIMESTAMP.fullmatch(stamp)
    if found is None:
        return None
    days = _day_number(stamp[:10])  # the pattern puts the date, then the time, at these places
    hour, minute, second = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    if days is None or hour > 23 or minute > 59 or second > 60:  # 60: a leap second
        return None
    offset = 0
    if found[8]:
        hours, minutes = int(found[9]), int(found[10])
        if hours > 23 or minutes > 59:
            return None
        offset = (hours * 3600 + minutes * 60) * (-1 if found[8] == "-" else 1)
    whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset
    return whole + float(found[7]) if found[7] else float(whole)


@functools.lru_cache(maxsize=4096)  # a cassette's exchanges share a few days
def _day_number(date: str) -> int | None:
    """`YYYY-MM-DD` as days since 1970-01-01; None for a day that does not exist."""
    year, month, day = int(date[:4]), int(date[5:7]), int(date[8:10])
    if year < 1 or not 1 <= month <= 12:
        return None
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= _MONTH_DAYS[month] + leap:
        return None
    return _days_since_epoch(year, month, day)


_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil): the
    arithmetic `calendar.timegm` does, without building a tuple and a date a timestamp."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146_097 + of_era_days - 719_468


def base64_problem(text: object) -> str | None:
    """A `base64:` body is strict base64 (RFC 4648 4: A-Z a-z 0-9 + /, `=` padding to a multiple of
    four), blanks a YAML writer folded it at aside: anything else would be served as other bytes."""
    if not isinstance(text, str):
        return f"expected base64 text, found {text!r:.60}"
    folded = " " in text or "\n" in text or "\t" in text or "\r" in text
    letters = text.translate(_BASE64_BLANKS) if folded else text
    try:
        if len(letters) % 4:  # strict mode lets `=` past the last group of four through
            raise binascii.Error("not a multiple of four characters")
        binascii.a2b_base64(letters, strict_mode=True)
    except (binascii.Error, ValueError) as error:  # ValueError: a character past ASCII
        return f"expected base64 (A-Z, a-z, 0-9, + and / with = padding), found {text[:40]!r} ({error})"
    return None


def upstream_problem(upstream: object) -> str | None:
    """A cassette's `upstream` is an origin URL: a string with no space, control or unprintable
    character (it is printed, logged and put in links)."""
    if not isinstance(upstream, str):
        return f"expected a URL string, found {upstream!r:.60}"
    if not target_fine(upstream):
        return f"expected an origin URL without spaces or control characters, found {upstream[:60]!r}"
    return None


def _body_fault(side: str, body: Body) -> Fault | None:
    if body.kind == "base64":
        problem = base64_problem(body.value)
        if problem is not None:
            return Fault((side, "base64"), problem)
    return None


def recorded_at_problem(stamp: object, now: float | None) -> str | None:
    """When the answer arrived: an RFC 3339 timestamp with a time and a zone, not after `now` (give or
    take SKEW_SECONDS)."""
    if not isinstance(stamp, str):
        return f"expected a timestamp, found {stamp!r}"
    seconds = timestamp_seconds(stamp) if stamp.isascii() else None
    if seconds is None:
        example = "2026-11-22T00:19:20.723373Z"
        return f"expected a timestamp like {example} (date, time and zone), found {stamp[:60]!r}"
    if now is not None and seconds > now + SKEW_SECONDS:
        allowed = f"this machine's clock, give or take {SKEW_SECONDS:.0f} s"
        return f"expected a time before now ({allowed}), found {stamp!r} in the future"
    return None


def response_fault(response: Response) -> Fault | None:
    """The first field of a recorded answer outside its domain, or None: what replay may send."""
    problem = status_problem(response.status)
    if problem is not None:
        return Fault(("response", "status"), problem)
    if response.reason is not None:
        problem = _text_problem(response.reason) or reason_problem(response.reason)
        if problem is not None:
            return Fault(("response", "reason"), problem)
    return _headers_fault("response", response.headers) or _body_fault("response", response.body)


def exchange_fault(exchange: Exchange, now: float | None) -> Fault | None:
    """The first field of an exchange outside its domain, or None (`now`: seconds since the epoch)."""
    return None if _inside(exchange, now) else _first_fault(exchange, now)


def _first_fault(exchange: Exchange, now: float | None) -> Fault | None:
    """The field-by-field search: slower than `_inside`, and it names the field."""
    if exchange.recorded_at is not None:
        problem = recorded_at_problem(exchange.recorded_at, now)
        if problem is not None:
            return Fault(("recorded_at",), problem)
    if exchange.duration_ms is not None:
        problem = duration_problem(exchange.duration_ms)
        if problem is not None:
            return Fault(("duration_ms",), problem)
    request = exchange.request
    for field, value, judge in (
        ("method", request.method, method_problem),
        ("path", request.path, path_problem),
        ("query", request.query, query_problem),
    ):
        problem = _text_problem(value) or judge(value)
        if problem is not None:
            return Fault(("request", field), problem)
    if request.method != request.method.upper():
        return Fault(("request", "method"), f"expected a method in upper case, found {request.method!r}")
    return (
        _headers_fault("request", request.headers)
        or _body_fault("request", request.body)
        or response_fault(exchange.response)
    )


def _inside(exchange: Exchange, now: float | None) -> bool:
    """Whether every field is inside its domain, in a few calls at C speed: a warm load of 50,000
    exchanges from the parse cache judges each one, and the field-by-field search is three times the
    cost of reading the entry. False sends the caller to that search, which names the field."""
    request, response = exchange.request, exchange.response
    status, duration, stamp = response.status, exchange.duration_ms, exchange.recorded_at
    if type(status) is not int or not 200 <= status <= 599:
        return False
    if duration is not None and (type(duration) not in (int, float) or not 0 <= duration <= MOST_DURATION_MS):
        return False
    if stamp is not None:
        seconds = timestamp_seconds(stamp) if type(stamp) is str else None
        if seconds is None or (now is not None and seconds > now + SKEW_SECONDS):
            return False
    try:
        flat = tuple(chain.from_iterable((*request.headers, *response.headers)))
        names = ":".join((request.method, *flat[0::2]))
        texts = "\t".join(flat[1::2]) + "\t" + (response.reason or "")
        target = request.path + request.query
    except TypeError:  # not strings, or not pairs: the search says which
        return False
    return (
        len(flat) % 2 == 0
        and names.count(":") == len(flat) // 2
        and TOKENS.fullmatch(names) is not None
        and FIELD_TEXT_FORBIDDEN.search(texts) is None
        and request.path.startswith("/")
        and target_fine(target)
        and request.method == request.method.upper()
        and (request.body.kind != "base64" or base64_problem(request.body.value) is None)
        and (response.body.kind != "base64" or base64_problem(response.body.value) is None)
    )


def exchange_problem(exchange: Exchange, now: float | None = None) -> str | None:
    """`exchange_fault` as one phrase naming the field, for writers that refuse an exchange whole."""
    fault = exchange_fault(exchange, now)
    return None if fault is None else str(fault)


def refuse_outside(exchange: Exchange, now: float | None, source: str, position: int) -> None:
    """The gate every exchange read from a file passes: one line naming the file, the entry and the
    field when it is outside its domain (what `import-har` and the UI's readers say alike)."""
    if not _inside(exchange, now):
        fault = _first_fault(exchange, now)
        if fault is not None:
            raise CassetteFormatError(f"{source}: exchange {position} of the file: {fault}")


def admitted(exchanges: Iterable[Exchange], source: str, now: float | None) -> Iterator[Exchange]:
    """A reader's exchanges, each through `refuse_outside` as it is taken."""
    for position, exchange in enumerate(exchanges):
        refuse_outside(exchange, now, source, position)
        yield exchange


def _headers_fault(side: str, headers: Headers) -> Fault | None:
    try:
        if headers_problem(headers) is None:  # the common case, in two regular expression calls
            return None
        for name, value in headers:
            problem = header_problem(name, value)
            if problem is not None:
                return Fault((side, "headers", name), problem)
    except (TypeError, ValueError):  # not pairs of strings: no reader builds these
        return Fault((side, "headers"), f"expected header names and values, found {headers!r:.80}")
    return None


def _text_problem(value: object) -> str | None:
    return None if isinstance(value, str) else f"expected a string, found {value!r}"
