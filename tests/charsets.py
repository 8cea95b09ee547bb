"""Bodies in another charset for the tests of their redaction and display: each charset a body may
declare (or only show by its byte order mark), how a text is written in it, and a word only it writes
so (not UTF-8)."""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class Charset:
    """A declared charset (None: only the mark tells), how a text is written in it, how it reads back."""

    declared: str | None
    codec: str  # the codec with its byte order
    bom: bytes
    word: str  # a word only this charset (not UTF-8) writes so

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)

    def decode(self, data: bytes) -> str:
        assert data.startswith(self.bom)
        return data[len(self.bom) :].decode(self.codec)  # strict: raises if the charset was broken


WIDE_WORD = "café 日本 € ok"
CHARSETS = [
    *(
        Charset(declared, codec, bom, WIDE_WORD)
        for declared, codec, bom in [
            ("utf-16", "utf-16-le", codecs.BOM_UTF16_LE),
            ("utf-16", "utf-16-be", codecs.BOM_UTF16_BE),
            ("utf-16", "utf-16-be", b""),
            ("utf-16", "utf-16-le", b""),
            ("UTF-16LE", "utf-16-le", b""),
            ("utf-16le", "utf-16-le", codecs.BOM_UTF16_LE),
            ("utf-16be", "utf-16-be", b""),
            ("utf-16be", "utf-16-be", codecs.BOM_UTF16_BE),
            ("utf-32", "utf-32-le", codecs.BOM_UTF32_LE),
            ("utf-32", "utf-32-be", b""),
            ("utf-32le", "utf-32-le", b""),
            ("utf-32be", "utf-32-be", codecs.BOM_UTF32_BE),
            (None, "utf-16-le", codecs.BOM_UTF16_LE),
            (None, "utf-16-be", codecs.BOM_UTF16_BE),
            (None, "utf-32-le", codecs.BOM_UTF32_LE),
        ]
    ),
    Charset("iso-8859-1", "latin-1", b"", "café"),
    Charset('"ISO-8859-1"', "latin-1", b"", "crème brûlée"),
    Charset("cp1252", "cp1252", b"", "café €"),
    Charset("windows-1252", "cp1252", b"", "naïve \u2013 ok"),
    Charset("shift_jis", "shift_jis", b"", "日本語"),
]
