"""The family of encodings a secret may take on its way out: each way a text is written in a URL, a JSON
string, an HTML page, base64 or UTF-16, and every chain of two of them (a token percent-encoded inside
base64, a URL JSON-escaped). `forms` lists them all, as text, for `proxy.core.redaction.book` to search.

Base64 is given by its part that does not depend on the bytes around the secret, at each of the three
alignments, so a secret inside a longer base64 text is still found. UTF-16 bytes are given read as
Latin-1, one character a byte, as `body_text` reads stored bytes.

Pure.
"""

from __future__ import annotations

import base64
import functools
import html
import json
from collections.abc import Callable
from urllib.parse import quote, quote_plus

Encoder = Callable[[str], tuple[str, ...]]


def _percent(text: str) -> tuple[str, ...]:
    upper = quote(text, safe="")
    plus = quote_plus(text)
    every = "".join(f"%{byte:02X}" for byte in text.encode("utf-8"))
    return (
        upper,
        _lower_escapes(upper),
        plus,
        _lower_escapes(plus),
        quote(text, safe="/:=&?@+"),
        every,
        every.lower(),
    )


def _lower_escapes(text: str) -> str:
    """`%2F` written `%2f`: both decode alike."""
    pieces = text.split("%")
    return "%".join([pieces[0], *(piece[:2].lower() + piece[2:] for piece in pieces[1:])])


def _json(text: str) -> tuple[str, ...]:
    every = "".join(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else json.dumps(char)[1:-1] for char in text)
    return (
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        every,
        every.upper().replace("\\U", "\\u"),
        text.replace("/", "\\/"),
    )


def _html(text: str) -> tuple[str, ...]:
    return (
        html.escape(text),
        html.escape(text, quote=False),
        "".join(f"&#{ord(char)};" for char in text),
        "".join(f"&#x{ord(char):x};" for char in text),
        "".join(f"&#x{ord(char):X};" for char in text),
    )


def _base64(text: str) -> tuple[str, ...]:
    """The secret's base64 at each of the three alignments: the middle that does not depend on the bytes
    around it, and that middle with the tail it has when the secret ends the encoded bytes; standard and
    URL-safe alphabets (with or without padding, the middle is the same)."""
    raw = text.encode("utf-8")
    found: list[str] = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start = 4 if shift else 0
        found += [encoded[start : (shift + len(raw)) // 3 * 4], encoded[start:], encoded[start:].rstrip("=")]
    return tuple(form for piece in found for form in (piece, piece.replace("+", "-").replace("/", "_")))


def _utf16(text: str) -> tuple[str, ...]:
    return tuple(text.encode(codec).decode("latin-1") for codec in ("utf-16-le", "utf-16-be"))


def _utf8_bytes(text: str) -> tuple[str, ...]:
    return (text.encode("utf-8").decode("latin-1"),)


ENCODERS: tuple[Encoder, ...] = (_percent, _json, _html, _base64, _utf16, _utf8_bytes)
# A form this short matches ordinary text by chance (a base64 middle of a short secret): not searched.
MIN_FORM = 6


@functools.lru_cache(maxsize=4096)
def forms(secret: str) -> frozenset[str]:
    """The secret as written and in every encoding of the family, and every chain of two."""
    once = {secret} | {form for encode in ENCODERS for form in encode(secret)}
    twice = {form for first in once for encode in ENCODERS for form in encode(first)}
    return frozenset(form for form in once | twice if len(form) >= min(MIN_FORM, len(secret)))
