"""A secret seen once is written nowhere in any encoding: a generated secret, put in a place redaction
names (or a place the parsers do not take), echoed through a chain of one or two encodings, and every
output channel searched for it with an oracle of its own (not the implementation's family)."""

from __future__ import annotations

import base64
import contextlib
import html
import html.entities
import io
import json
import logging
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus, unquote

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.exchange import Exchange, Headers, Request, Response
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange, redact_request
from tests.reliability.figures import write_figure

SECRETS = st.text(
    alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGH23456789-_.~/+= &<>\"'é", min_size=10, max_size=24
).filter(
    lambda text: any(c.isalpha() for c in text) and any(c.isdigit() for c in text) and text.strip() == text
)


def _b64_middles(raw: bytes) -> list[str]:
    found = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        found.append(encoded[(4 if shift else 0) : (shift + len(raw)) // 3 * 4])
    return found + [form.replace("+", "-").replace("/", "_") for form in found]


ONE_STEP = {
    "percent": lambda s: [quote(s, safe="")],
    "percent lower": lambda s: [re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(s, safe=""))],
    "plus": lambda s: [quote_plus(s)],
    "every byte percent": lambda s: ["".join(f"%{b:02x}" for b in s.encode())],
    "json": lambda s: [json.dumps(s)[1:-1]],
    "json every char": lambda s: ["".join(f"\\u{ord(c):04x}" for c in s)],
    "html": lambda s: [html.escape(s)],
    "html decimal": lambda s: ["".join(f"&#{ord(c)};" for c in s)],
    "html hex": lambda s: ["".join(f"&#x{ord(c):x};" for c in s)],
    "base64": lambda s: _b64_middles(s.encode()),
    "utf-16-le": lambda s: [s.encode("utf-16-le").decode("latin-1")],
    "utf-16-be": lambda s: [s.encode("utf-16-be").decode("latin-1")],
}

# Each character on its own: as written, or in one spelling of the family (a text may mix them).
SPELLINGS = {
    "plain": lambda c: c,
    "percent": lambda c: "".join(f"%{b:02X}" for b in c.encode()),
    "percent lower": lambda c: "".join(f"%{b:02x}" for b in c.encode()),
    "entity decimal": lambda c: f"&#{ord(c)};",
    "entity padded": lambda c: f"&#{ord(c):07d}",
    "entity hex": lambda c: f"&#X{ord(c):04X};",
    "entity named": lambda c: "&" + NAMED[c] if c in NAMED else f"&#{ord(c)};",
    "json u": lambda c: f"\\u{ord(c):04x}",
    "json U": lambda c: f"\\u{ord(c):04X}",
}
NAMED = {c: name for name, c in sorted(html.entities.html5.items(), reverse=True) if name.endswith(";")}


def per_character(text: str, choices: list[str]) -> str:
    return "".join(SPELLINGS[choices[i % len(choices)]](c) for i, c in enumerate(text))


def broken_base64(text: str, column: int, literal: bool) -> str:
    """The text's base64 in lines of `column` characters: CRLF, or a written `\\n` (JSON)."""
    encoded = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()
    return ("\\n" if literal else "\r\n").join(
        encoded[i : i + column] for i in range(0, len(encoded), column)
    )


STEPS = sorted(ONE_STEP)


# How the upstream may spell the secret before encoding it: an echo in capitals, a log that lowers it,
# any mix of its ASCII letters' cases (searched as text: base64 of a mixed-case echo is not undone,
# see MIXED).
def ascii_cased(change: Callable[[str], str]) -> Callable[[str], str]:
    """`change` applied to the ASCII letters alone (a secret's other letters keep their case)."""
    return lambda s: "".join(change(c) if c.isascii() else c for c in s)


CASES: dict[str, Callable[[str], str]] = {
    "as written": str,
    "upper": str.upper,
    "lower": str.lower,
    "swapped": ascii_cased(str.swapcase),
    "title": lambda s: "".join(
        c.upper() if c.isascii() and (i == 0 or not s[i - 1].isalpha()) else c for i, c in enumerate(s)
    ),
    "one letter flipped": lambda s: next(
        (
            s[:i] + s[i].swapcase() + s[i + 1 :]
            for i in range(len(s) // 2, len(s))
            if s[i].isascii() and s[i].isalpha()
        ),
        s,
    ),
}
MIXED = {"swapped", "title", "one letter flipped"}


def undone(case: str, steps: list[str]) -> bool:
    """Whether the family undoes this spelling: a mixed-case secret is searched as text, not in base64."""
    return case not in MIXED or not any("base64" in step for step in steps)


def oracle(secret: str) -> set[str]:
    """The secret, each one-step form and each two-step form, as text (the oracle's own family)."""
    once = {secret} | {form for step in ONE_STEP.values() for form in step(secret)}
    twice = {form for first in once for step in ONE_STEP.values() for form in step(first)}
    return {form for form in once | twice if len(form) >= 8}


def revealed(written: str) -> list[str]:
    """`written` and what an attacker gets by undoing up to three encodings of it (the oracle's own
    decoders, not the implementation's): percent, HTML, JSON escapes, zero bytes, base64 runs (in
    lines too), hex."""
    decoders = (
        lambda t: unquote(t),
        lambda t: html.unescape(t),
        lambda t: re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), t).replace("\\/", "/"),
        lambda t: t.replace("\0", ""),
    )
    texts, frontier = [written], [written]
    for _ in range(3):
        fresh = []
        for text in frontier:
            fresh += [new for decode in decoders if (new := decode(text)) != text]
            for run in re.findall(r"(?:[A-Za-z0-9+/_-]+(?:\\r\\n|\\n|\r?\n[ \t]*)?)+", text)[:400]:
                clean = re.sub(r"\\[rn]|\s", "", run).replace("-", "+").replace("_", "/")
                if len(clean) < 8:
                    continue
                for offset in range(4):
                    piece = clean[offset:]
                    piece = piece[:-1] if len(piece) % 4 == 1 else piece + "=" * (-len(piece) % 4)
                    with contextlib.suppress(ValueError):
                        fresh.append(base64.b64decode(piece).decode("latin-1"))
            for run in re.findall(r"[0-9a-fA-F]{12,}", text)[:50]:
                fresh += [
                    bytes.fromhex(run[offset:][: len(run[offset:]) // 2 * 2]).decode("latin-1")
                    for offset in (0, 1)
                ]
        texts += fresh
        frontier = fresh[:200]
    return texts


def leaked(secret: str, written: str) -> bool:
    """Whether any text an attacker gets from `written` holds the secret, in any mix of cases."""
    wanted = {secret.lower(), secret.encode().decode("latin-1").lower()}
    return any(form in text.lower() for text in revealed(written) for form in wanted)


def encoded(secret: str, chain: list[str]) -> str:
    text = secret
    for step in chain:
        text = ONE_STEP[step](text)[0]
    return text


JSON = (("Content-Type", "application/json"),)
SHAPES = [
    "bearer",
    "basic password",
    "json token answer",
    "utf-16 json",
    "escaped key json",
    "form",
    "multipart quoted",
    "multipart unquoted",
    "url in json",
    "location",
    "api-key header",
]


def planted(secret: str, shape: str, echo: str) -> Exchange:
    """`secret` in a place of `shape`, echoed as `echo` in the answer's text and a header."""
    request_headers: Headers = ()
    request_body, response_body = b"", b""
    # a header holds no line break and no NUL (a server refuses one before anything records it)
    in_header = echo.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0")
    response_headers: Headers = (("X-Echo", in_header.encode("latin-1", "replace").decode("latin-1")),)
    if shape == "bearer":
        request_headers = (("Authorization", f"Bearer {secret}"),)
    elif shape == "basic password":
        credentials = base64.b64encode(f"shop:{secret}".encode()).decode()
        request_headers = (("Authorization", f"Basic {credentials}"),)
    elif shape == "api-key header":
        request_headers = (("X-API-Key", secret),)
    elif shape == "json token answer":
        response_body, response_headers = json.dumps({"access_token": secret}).encode(), JSON
    elif shape == "utf-16 json":
        response_body, response_headers = json.dumps({"access_token": secret}).encode("utf-16"), JSON
    elif shape == "escaped key json":
        response_body = ('{"\\u0061ccess_token": ' + json.dumps(secret) + ', "n": NaN}').encode()
        response_headers = JSON
    elif shape == "form":
        request_body = f"grant_type=x&client_secret={quote_plus(secret)}".encode()
        request_headers = (("Content-Type", "application/x-www-form-urlencoded"),)
    elif shape.startswith("multipart"):
        name = '"password"' if shape == "multipart quoted" else "password"
        part = f"--b\r\nContent-Disposition: form-data; name={name}\r\n\r\n{secret}\r\n--b--\r\n"
        request_body, request_headers = part.encode(), (("Content-Type", "multipart/form-data; boundary=b"),)
    elif shape == "url in json":
        link = f"https://shop.example/cb?access_token={quote(secret, safe='')}&x=1"
        response_body, response_headers = json.dumps({"next": link}).encode(), JSON
    elif shape == "location":
        response_headers = (("Location", f"/cb?api_key={quote(secret, safe='')}"),)
    if not response_body:
        response_body = f"<p>you sent {echo}</p>".encode("utf-8", "replace")
        response_headers = (*response_headers, ("Content-Type", "text/html"))
    request = Request(
        "POST",
        f"/v2/echo/{quote(echo, safe='')}",
        "",
        request_headers,
        body_from_bytes(request_body, request_headers),
    )
    return Exchange(
        request, Response(200, response_headers, body_from_bytes(response_body, response_headers))
    )


def outputs(exchange: Exchange, channel: str) -> str:
    """What the process writes of `exchange` on `channel`, as text (base64 bodies decoded)."""
    redacted = redact_exchange(exchange, RedactionPolicy())
    if channel == "cassette":
        text = dump_cassette(Cassette((redacted,)))
        for message in (redacted.request, redacted.response):
            if message.body.kind == "base64":
                text += "\n" + base64.b64decode(str(message.body.value)).decode("latin-1")
        return text
    if channel == "journal":
        return journal_line(1, redacted).decode("utf-8")
    from proxy.core.redaction.book import KNOWN, ScrubbingFilter

    raw = exchange.response.body.value
    said = f"{exchange.request.path} {exchange.response.headers} {raw}"
    if channel == "log":
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.addFilter(ScrubbingFilter())
        logger = logging.getLogger("tests.secret_family")
        logger.addHandler(handler)
        logger.propagate = False
        try:
            logger.warning("%s %s", exchange.request.method, said)
        finally:
            logger.removeHandler(handler)
        return stream.getvalue()
    if channel == "answer":  # an admin, 502 or near-miss answer of our own
        from proxy.server.wire import json_answer

        return json_answer(404, {"detail": said}).body.decode("utf-8")
    # a missed request's target, as /_proxy/usage and the usage report give it
    return KNOWN.scrub(json.dumps({"target": redact_request(exchange.request, RedactionPolicy()).target}))


CHANNELS = ["cassette", "journal", "log", "answer", "usage"]
EXAMPLES = 200
runs: list[int] = []


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True)
@given(
    secret=SECRETS,
    case=st.sampled_from(sorted(CASES)),
    chain=st.lists(st.sampled_from(STEPS), min_size=1, max_size=2),
    shape=st.sampled_from(SHAPES),
    channel=st.sampled_from(CHANNELS),
)
def secret_in_no_output(secret: str, case: str, chain: list[str], shape: str, channel: str) -> None:
    from proxy.core.redaction.book import KNOWN

    assume(undone(case, chain))
    KNOWN.forget()  # each example learns its secret from its own exchange
    echoed = CASES[case](secret)
    written = outputs(planted(secret, shape, encoded(echoed, chain)), channel)
    leaks = [form for form in oracle(secret) | oracle(echoed) if form in written]
    assert not leaks, (shape, case, chain, channel, leaks[:3])
    runs.append(1)


def test_a_secret_seen_once_is_in_no_output_in_any_encoding() -> None:
    runs.clear()
    secret_in_no_output()
    write_figure(
        "secret_family_examples",
        len(runs),
        "secrets drawn with encoding chain, shape and channel, none written",
    )


MIXED_EXAMPLES = 1000
mixed_runs: list[int] = []
LAYERS = st.one_of(
    st.tuples(st.just("characters"), st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=6)),
    st.tuples(st.just("base64 lines"), st.tuples(st.integers(4, 80), st.booleans())),
    st.tuples(st.just("step"), st.sampled_from(STEPS)),
)


def layered(secret: str, layers: list[tuple[str, object]]) -> str:
    text = secret
    for kind, how in layers:
        if kind == "characters":
            text = per_character(text, list(how))  # type: ignore[call-overload]
        elif kind == "base64 lines":
            column, literal = how  # type: ignore[misc]
            text = broken_base64(text, column, literal)
        else:
            text = ONE_STEP[str(how)](text)[0]
    return text


@settings(max_examples=MIXED_EXAMPLES, deadline=None, database=None, derandomize=True)
@given(
    secret=SECRETS,
    case=st.sampled_from(sorted(CASES)),
    layers=st.lists(LAYERS, min_size=1, max_size=3),
    shape=st.sampled_from(SHAPES),
    channel=st.sampled_from(CHANNELS),
)
def mixed_secret_in_no_output(
    secret: str, case: str, layers: list[tuple[str, object]], shape: str, channel: str
) -> None:
    from proxy.core.redaction.book import KNOWN

    assume(undone(case, [str(kind) + str(how) for kind, how in layers]))
    KNOWN.forget()
    echo = layered(CASES[case](secret), layers)
    written = outputs(planted(secret, shape, echo), channel)
    assert not leaked(secret, written), (shape, layers, channel, echo[:80])
    mixed_runs.append(1)


def test_a_secret_is_in_no_output_however_its_characters_are_each_encoded() -> None:
    """Each character plain or in any spelling (percent either case, entities decimal, padded, hex or
    named, `\\u` either case), base64 in lines at any column, chains of up to three."""
    mixed_runs.clear()
    mixed_secret_in_no_output()
    write_figure(
        "secret_family_mixed_examples",
        len(mixed_runs),
        "secrets drawn with per-character spellings, base64 lines and chains of up to 3, none written",
    )
