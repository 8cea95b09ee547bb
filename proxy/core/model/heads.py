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
# A target (path and query) as it goes on the request line: no spaces, no control characters (C0, DEL,
# C1); a character past ASCII must also be printable (`target_fine`): no U+2028, no-break space, format
# character or lone surrogate, which a terminal, a log or a client would show or read as something else.
_TARGET_FORBIDDEN = re.compile(r"[\x00-\x20\x7f-\x9f]")
# A header value or reason phrase is what RFC 9110 5.5 allows on the wire, sent one byte a character:
# HTAB, SP, VCHAR and obs-text (bytes 0x80-0xFF, stored one character a byte: a UTF-8 value such as a
# file name with "€" is bytes 0xE2 0x82 0xAC, so every one of them is kept and sent back as it came; a
# report shows them escaped). CR, LF, NUL and the other C0 controls would end or break the line it stands
# on; a character past Latin-1 cannot be sent as one byte, so it would not go out as it reads.
FIELD_TEXT_FORBIDDEN = re.compile(r"[^\t\x20-\x7e\x80-\xff]")
_FIELD_TEXT = "CR, LF or NUL, another control character (but tab) or one past Latin-1"


def target_fine(text: str) -> bool:
    """Whether a path or query may stand on a request line (see _TARGET_FORBIDDEN)."""
    return _TARGET_FORBIDDEN.search(text) is None and (text.isascii() or text.isprintable())


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
    if target_fine(text):
        return None
    bad = next(char for char in text if _TARGET_FORBIDDEN.match(char) or not char.isprintable())
    kind = f"U+{ord(bad):04X}, a space, control or unprintable character"
    return f"a {what} cannot hold {bad!r} ({kind}), found {text[:60]!r}"


def reason_problem(reason: str) -> str | None:
    """A reason phrase stands on the status line: the characters of a header value (RFC 9112 4)."""
    bad = FIELD_TEXT_FORBIDDEN.search(reason)
    if bad:
        return f"a reason phrase cannot hold {_FIELD_TEXT}: found U+{ord(bad.group()):04X} in {reason[:60]!r}"
    return None


def header_problem(name: str, value: str) -> str | None:
    """A header name is a token; its value holds tab, printable ASCII and obs-text (bytes 0x80-0xFF)."""
    if not _TOKEN.fullmatch(name):
        return f"expected a header name (a token), found {name[:40]!r}"
    bad = FIELD_TEXT_FORBIDDEN.search(value)
    if bad:
        found = f"U+{ord(bad.group()):04X} in {value[:60]!r}"
        return f"header {name} cannot hold {_FIELD_TEXT} in its value: found {found}"
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
    if names_fine and not FIELD_TEXT_FORBIDDEN.search("\t".join(value for _, value in headers)):
        return None
    for name, value in headers:
        problem = header_problem(name, value)
        if problem is not None:
            return problem
    return None
