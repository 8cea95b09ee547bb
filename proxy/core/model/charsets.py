"""A body's text in the charset its message declares (or its byte order mark shows), when it is not
UTF-8: redaction searches that text for secrets, the UI shows it. A body is read so only when its bytes
decode strictly and encode back to the very same bytes, so what is written back from the text (a
redacted copy) is in the message's own charset and an unchanged text is the recorded bytes.

Only text encodings are ever used (an allow-list): a codec name from a header may also name one of
Python's other codecs (`rot13`, `zlib`, `base64`, `idna`, `unicode_escape`...), which never read a body.
No I/O.
"""

from __future__ import annotations

import base64
import codecs
import functools
from dataclasses import dataclass

from proxy.core.model.bodies import MAX_DECODED_BYTES
from proxy.core.model.exchange import Body, Headers, header_value

# Python's canonical names (`codecs.lookup(name).name`) of the text encodings a body may be read in.
TEXT_ENCODINGS = frozenset(
    {
        "utf-16",
        "utf-16-le",
        "utf-16-be",
        "utf-32",
        "utf-32-le",
        "utf-32-be",
        "ascii",
        "iso8859-1",
        *(f"iso8859-{part}" for part in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16)),
        *(
            f"cp{page}"
            for page in (437, 850, 852, 866, 874, 1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258)
        ),
        "tis-620",
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "shift_jis",
        "cp932",
        "euc_jp",
        "iso2022_jp",
        "gb2312",
        "gbk",
        "gb18030",
        "big5",
        "big5hkscs",
        "euc_kr",
        "cp949",
    }
)
WIDE = frozenset({"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"})
# Longest first: the UTF-32 little-endian mark begins with the UTF-16 one.
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

MARKS = tuple(mark for mark, _ in BOMS)


@dataclass(frozen=True, slots=True)
class InCharset:
    """A body's text, the codec it was read with (its byte order named) and the mark it began with."""

    text: str
    codec: str
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        """`text` as a body in this charset: the same bytes for the same text (strict: the text of a
        redacted body holds its own characters and the ASCII placeholder, which every codec here has)."""
        return self.bom + text.encode(self.codec)


@functools.lru_cache(maxsize=64)
def declared_codec(content_type: str | None) -> str | None:
    """The text encoding a Content-Type's `charset` names (Python's name for it), or None when it names
    none, one Python does not know, or one that is not a text encoding allowed here."""
    if not content_type:
        return None
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            try:
                codec = codecs.lookup(value.strip().strip("\"'").strip()).name
            except (LookupError, ValueError):
                return None
            return codec if codec in TEXT_ENCODINGS else None
    return None


def text_in_charset(
    data: bytes, content_type: str | None, limit: int = MAX_DECODED_BYTES
) -> InCharset | None:
    """The bytes' text in the charset a byte order mark shows (it wins, as in browsers) or the
    Content-Type declares, when they decode strictly and encode back to the same bytes; else None (and
    always None past `limit` bytes, the bound every body decoder here keeps)."""
    if not data or len(data) > limit:
        return None
    for mark, codec in BOMS:
        if data.startswith(mark):
            return _read(data, codec, mark)
    declared = declared_codec(content_type)
    if declared is None:
        return None
    if declared in ("utf-16", "utf-32"):  # no mark: big-endian (RFC 2781), unless zeros say otherwise
        declared = f"{declared}-{_byte_order(data, 2 if declared == 'utf-16' else 4)}"
    return _read(data, declared, b"")


def _byte_order(data: bytes, width: int) -> str:
    """`le` when more zero bytes end a code unit than begin one (ASCII text in little-endian), else `be`."""
    sample = data[: 4096 - 4096 % width]
    ending = sample[width - 1 :: width].count(0)
    beginning = sample[::width].count(0)
    return "le" if ending > beginning else "be"


def _read(data: bytes, codec: str, mark: bytes) -> InCharset | None:
    try:
        text = data[len(mark) :].decode(codec)
    except UnicodeDecodeError:
        return None
    found = InCharset(text, codec, mark)
    try:
        same = found.encode(text) == data
    except UnicodeEncodeError:
        return None
    return found if same else None


def body_in_charset(body: Body, headers: Headers) -> InCharset | None:
    """A stored body's text in its message's charset: a binary body's; a text body's only when that
    charset is UTF-16 or UTF-32 (text with no character past ASCII, in UTF-16 without a mark, is also
    UTF-8 with a zero byte in every other place, and is stored as that text). A body that is UTF-8
    text, or JSON, is read as it is stored."""
    if body.kind not in ("base64", "text"):
        return None
    content_type = header_value(headers, "Content-Type")
    if body.kind == "base64":
        value = str(body.value)
        if declared_codec(content_type) is None and not base64.b64decode(value[:8]).startswith(MARKS):
            return None  # (an image, a file: only its first bytes are decoded to tell)
        return text_in_charset(base64.b64decode(value), content_type)
    if body.kind == "text" and "\0" in str(body.value) and declared_codec(content_type) in WIDE:
        return text_in_charset(str(body.value).encode("utf-8", "surrogatepass"), content_type)
    return None
