"""What a stored request or response head may hold: the one set of rules that the cassette reader, the
journal writer, the importers and the edits share, so nothing is written that cannot be read back or
that would be sent as something else (a CR or LF in a header ends it and starts another).

Each function returns the problem as a short phrase, or None; callers add where it was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# RFC 9110 5.6.2: a method and a header name are tokens.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# A target (path and query) as it goes on the request line: no spaces, no control characters.
TARGET_FORBIDDEN = _TARGET_FORBIDDEN = re.compile(r"[\x00-\x20\x7f]")
# A header value or reason phrase holds no control character but HTAB (RFC 9110 5.5): CR and LF would
# end the line it stands on, NUL and the rest are refused by strict clients.
FIELD_TEXT_FORBIDDEN = _LINE_BREAKING = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def method_problem(method: str) -> str | None:
    """A method is a token (GET, PUT, ...)."""
    if not _TOKEN.fullmatch(method):
        return f"expected an HTTP method (a token), found {method[:40]!r}"
    return None


def path_problem(path: str) -> str | None:
    """A stored path is origin-form: it starts with '/', without spaces or control characters."""
    if not path.startswith("/"):
        return f"expected a path starting with '/', found {path[:60]!r}"
    return _target_characters(path, "path")


def query_problem(query: str) -> str | None:
    """A stored query goes on the request line after '?': no spaces or control characters."""
    return _target_characters(query, "query") if query else None


def _target_characters(text: str, what: str) -> str | None:
    bad = _TARGET_FORBIDDEN.search(text)
    if bad is None:
        return None
    return f"a {what} cannot hold {bad.group()!r} (a space or control character), found {text[:60]!r}"


def reason_problem(reason: str) -> str | None:
    """A reason phrase stands on the status line: no control character but HTAB."""
    if _LINE_BREAKING.search(reason):
        what = "CR, LF or NUL (nor another control character but tab)"
        return f"a reason phrase cannot hold {what}, found {reason[:60]!r}"
    return None


def header_problem(name: str, value: str) -> str | None:
    """A header name is a token; its value holds no control character but HTAB."""
    if not _TOKEN.fullmatch(name):
        return f"expected a header name (a token), found {name[:40]!r}"
    if _LINE_BREAKING.search(value):
        what = "CR, LF or NUL (nor another control character but tab)"
        return f"header {name} cannot hold {what} in its value, found {value[:60]!r}"
    return None


TOKENS = _TOKENS = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?::[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*")


def headers_problem(headers: Sequence[tuple[str, str]]) -> str | None:
    """The first problem of any header, or None."""
    if not headers:
        return None
    # The common case, nothing wrong, in two regular expression calls rather than two a header (the
    # journal writer asks this of every recorded exchange).
    names = ":".join(name for name, _ in headers)  # a name holding ":" would read as two: counted
    names_fine = names.count(":") == len(headers) - 1 and _TOKENS.fullmatch(names) is not None
    if names_fine and not _LINE_BREAKING.search("\t".join(value for _, value in headers)):
        return None
    for name, value in headers:
        problem = header_problem(name, value)
        if problem is not None:
            return problem
    return None
