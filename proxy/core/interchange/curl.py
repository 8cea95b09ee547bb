"""A recorded request as one POSIX-shell `curl` command line (the UI's "copy as curl").

The command sends what the recording holds, as `verify` sends it (less the headers that belong to one
connection), and nothing curl would add on its own. Every argument is quoted so the shell gives back the
exact text; a body that is not plain printable text goes through `printf` on standard input, so any byte
(NUL included) arrives as recorded. The exchange given is already redacted: a placeholder stays a
placeholder. A method, target or header that could not be its one line of a request (a method or name
that is no token, a CR, LF or NUL in a value) is refused, not quoted: the readers' cassette-domain
gate keeps such exchanges out, and this is its second line. Pure: an exchange in, a string out.
"""

from __future__ import annotations

import shlex

from proxy.core.model.bodies import body_to_bytes
from proxy.core.model.exchange import Exchange, Headers
from proxy.core.model.heads import TOKENS, method_problem, path_problem, query_problem
from proxy.core.model.hop_by_hop import end_to_end
from proxy.errors import CommerceProxyError

NOT_SENT = frozenset({"host", "content-length"})  # curl writes these from the URL and the body
# Headers curl sends on its own unless told otherwise; `-H 'Name:'` tells it not to.
CURL_DEFAULTS = ("User-Agent", "Accept")
_PRINTABLE_ASCII = frozenset(range(0x20, 0x7F))
_LINE_BREAKERS = ("\r", "\n", "\0")  # in a header value, curl would send a line of their making


def curl_command(exchange: Exchange, base_url: str) -> str:
    """One command line sending `exchange`'s request to `base_url` plus the recorded path and query:
    its method, every end-to-end header (in order, repeats kept) and its body bytes."""
    request = exchange.request
    _refuse_unsendable(exchange)
    body = body_to_bytes(request.body)
    headers = _sent_headers(request.headers, request.body.decoded_from is not None)
    words = ["curl", "--globoff", "--path-as-is", "--silent", "--show-error"]
    if request.method == "HEAD" and not body:
        words.append("--head")  # `--request HEAD` would wait for a body that never comes
    else:
        words += ["--request", _word(request.method)]
    for name, value in headers:
        words += ["--header", _word(f"{name};" if value == "" else f"{name}: {value}")]
    names = {name.lower() for name, _ in headers}
    for name in CURL_DEFAULTS:
        if name.lower() not in names:
            words += ["--header", _word(f"{name}:")]
    stdin = None
    if body or request.method in ("POST", "PUT", "PATCH"):
        if "content-type" not in names:
            words += ["--header", _word("Content-Type:")]  # else curl says form-urlencoded
        if _plain(body):
            words += ["--data-binary", _word(body.decode("utf-8"))]
        else:
            stdin = body
            words += ["--data-binary", "@-"]
    words.append(_word(base_url.rstrip("/") + request.target))
    command = " ".join(words)
    return command if stdin is None else f"printf {shlex.quote(_printf_format(stdin))} | {command}"


class NotSendable(CommerceProxyError):
    """A request that no HTTP/1.1 request line and header lines can carry."""


def _refuse_unsendable(exchange: Exchange) -> None:
    request = exchange.request
    problem = (
        method_problem(request.method)
        or path_problem(request.path)
        or query_problem(request.query)
        or next(filter(None, (_header_line_problem(name, value) for name, value in request.headers)), None)
    )
    if problem is not None:
        raise NotSendable(f"this request cannot be a curl command: {problem}")


def _header_line_problem(name: str, value: str) -> str | None:
    if ":" in name or TOKENS.fullmatch(name) is None:
        return f"expected a header name (a token), found {name[:40]!r}"
    if any(breaker in value for breaker in _LINE_BREAKERS):
        return f"header {name} holds a CR, LF or NUL in its value: {value[:40]!r}"
    return None


def _sent_headers(headers: Headers, body_decoded: bool) -> Headers:
    """What the request carried end to end. A body stored decoded is sent decoded, so its
    Content-Encoding would lie about it and is left out."""
    also = NOT_SENT | ({"content-encoding"} if body_decoded else set())
    return end_to_end(headers, frozenset(also))


def _plain(body: bytes) -> bool:
    """Whether the body can be one shell word read as is: UTF-8 text of printable characters (new
    lines and tabs too) that curl will not take for a file name (`@...`)."""
    if body.startswith(b"@") or b"\0" in body:
        return False
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(character.isprintable() or character in "\n\t" for character in text)


def _word(text: str) -> str:
    """One shell word giving back `text`: single quotes, or `$'...'` with octal escapes when the text
    holds characters a terminal would act on (escapes, carriage returns) rather than show."""
    if all(character.isprintable() for character in text):
        return shlex.quote(text)
    spelled = "".join(
        chr(byte) if byte in _PRINTABLE_ASCII and chr(byte) not in "\\'" else f"\\{byte:03o}"
        for byte in text.encode("utf-8")
    )
    return f"$'{spelled}'"


def _printf_format(body: bytes) -> str:
    """A printf format printing exactly `body`: printable ASCII as is (`%` and `\\` doubled), every
    other byte as a three-digit octal escape, which POSIX printf understands; a leading `-` escaped too,
    or bash's and dash's printf would read the format as an option."""
    parts = []
    for position, byte in enumerate(body):
        if byte == 0x2D and position == 0:
            parts.append("\\055")
        elif byte == 0x25:
            parts.append("%%")
        elif byte == 0x5C:
            parts.append("\\\\")
        elif byte in _PRINTABLE_ASCII:
            parts.append(chr(byte))
        else:
            parts.append(f"\\{byte:03o}")
    return "".join(parts)
