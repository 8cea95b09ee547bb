"""Undoing a Content-Encoding within a size limit: gzip, deflate, br, zstd, identity, and lists of them
(`gzip, identity`), so a recorded body is stored decoded (and searched for secrets) whichever of them
a service uses, and a small compressed body never inflates past the limit in memory.

One streaming decoder for every coding and every caller: each coding hands on its output a piece at a
time, and every step of a chain is counted against the limit as it inflates, never after. A body
decodes whole (every gzip member, every zstd frame) or not at all: a fragment is never stored.
Pure: bytes in, bytes out.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

import brotlicffi
import zstandard

from proxy.core.model.exchange import Headers
from proxy.errors import BodyTooLarge

CODINGS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd", "identity"})
MAX_CODINGS = 3  # a longer chain is refused (as curl bounds its own): each step holds a window
PIECE = 64 * 1024  # output bytes gzip, deflate and br hand on at a time
ZSTD_STEP = 32  # input bytes fed to zstd at a time: a block (128 KiB at most) takes 4 bytes or more
ZSTD_WINDOW = 8 * 1024 * 1024  # the most a zstd Content-Encoding may ask decoders to hold (RFC 9659)

Pieces = Iterator[bytes]


class Undecodable(Exception):
    """Bytes that are not what their coding says (truncated, corrupt, trailing bytes)."""


def coding_header(headers: Headers) -> str | None:
    """The codings on a message's body, first applied first: its Content-Encoding, every line of it
    (repeated fields are one comma list, RFC 9110, 5.3, so `gzip` then `br` on two lines is
    `gzip, br`), then any transfer coding but `chunked` (`Transfer-Encoding: gzip, chunked`: the HTTP
    parser undoes the chunks, the gzip is undone here like a content coding). None when there is none."""
    values = [value for name, value in headers if name.lower() == "content-encoding"]
    for name, value in headers:
        if name.lower() == "transfer-encoding":
            values.extend(
                coding
                for coding in (part.strip() for part in value.split(","))
                if coding and coding.lower() != "chunked"
            )
    return ", ".join(values) if values else None


def codings_of(encoding: str | None) -> list[str] | None:
    """The codings applied, first to last, without `identity`; None when one is not known here."""
    if not encoding:
        return []
    names = [name.strip().lower() for name in encoding.split(",") if name.strip()]
    if any(name not in CODINGS for name in names):
        return None
    return [name for name in names if name != "identity"]


def decoded(raw: bytes, encoding: str | None, limit: int) -> bytes | None:
    """The bytes with every coding undone (last applied, first undone), or None when a coding is not
    known here, the chain is longer than MAX_CODINGS, or the bytes do not decode whole.
    `BodyTooLarge` as soon as any step of the chain would inflate past `limit`."""
    codings = codings_of(encoding)
    if codings is None or len(codings) > MAX_CODINGS:
        return None
    pieces: Pieces = iter((raw,))
    for name in reversed(codings):
        pieces = _bounded(_UNDO[name](pieces), name, limit)
    try:
        return b"".join(pieces)
    except Undecodable:
        return None


def _bounded(pieces: Pieces, name: str, limit: int) -> Pieces:
    size = 0
    for piece in pieces:
        size += len(piece)
        if size > limit:
            raise BodyTooLarge(f"a {name}-encoded body inflates past {limit} bytes")
        yield piece


def _gunzip(source: Pieces) -> Pieces:
    """Every gzip member, one after another, as clients read them: stopping at the first would store
    a fragment and let the rest pass the limit unseen."""
    yield from _inflate(source, 16 + zlib.MAX_WBITS, members=True)


def _undeflate(source: Pieces) -> Pieces:
    """deflate is zlib-wrapped by the RFC, raw from some servers: the first two bytes tell which."""
    head = b""
    for piece in source:
        head += piece
        if len(head) >= 2:
            break
    zlib_wrapped = len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
    yield from _inflate(
        _chain(head, source), zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS, members=False
    )


def _inflate(source: Pieces, wbits: int, members: bool) -> Pieces:
    inflater: zlib._Decompress | None = None
    ended = False
    for data in source:
        more = True
        while data or more:
            if inflater is None:
                if ended and not members:
                    raise Undecodable("bytes after the end of the deflate stream")
                inflater = zlib.decompressobj(wbits)
            try:
                piece = inflater.decompress(data, PIECE)
            except zlib.error:
                raise Undecodable("zlib") from None
            if piece:
                yield piece
            if inflater.eof:
                data, more, inflater, ended = inflater.unused_data, False, None, True
            else:  # a full piece: more may come from input already taken in
                data, more = inflater.unconsumed_tail, len(piece) == PIECE
    if inflater is not None or not ended:
        raise Undecodable("truncated")


def _unbrotli(source: Pieces) -> Pieces:
    """br with the decoder's own output bound (brotlicffi 1.2): one input byte can stand for megabytes."""
    decompressor = brotlicffi.Decompressor()
    try:
        for data in source:
            if decompressor.is_finished():
                raise Undecodable("bytes after the end of the br stream")
            piece = decompressor.process(data, output_buffer_limit=PIECE)
            while piece or not decompressor.can_accept_more_data():  # drained: it needs more input
                yield piece
                if decompressor.is_finished():
                    break
                piece = decompressor.process(b"", output_buffer_limit=PIECE)
    except brotlicffi.error:
        raise Undecodable("br") from None
    if not decompressor.is_finished():
        raise Undecodable("truncated")


def _unzstd(source: Pieces) -> Pieces:
    """Every zstd frame, fed a few bytes at a time: zstandard's decompressobj has no output bound, but
    a block, at most 128 KiB out, takes at least 4 bytes in."""
    decompressors = zstandard.ZstdDecompressor(max_window_size=ZSTD_WINDOW)
    frame, frames = None, 0
    for data in source:
        for start in range(0, len(data), ZSTD_STEP):
            step = data[start : start + ZSTD_STEP]
            while step:
                if frame is None:
                    frame, frames = decompressors.decompressobj(), frames + 1
                try:
                    piece = frame.decompress(step)
                except zstandard.ZstdError:
                    raise Undecodable("zstd") from None
                if piece:
                    yield piece
                step, frame = (frame.unused_data, None) if frame.eof else (b"", frame)
    if frame is not None or not frames:
        raise Undecodable("truncated")


def _chain(first: bytes, rest: Pieces) -> Pieces:
    if first:
        yield first
    yield from rest


_UNDO: dict[str, Callable[[Pieces], Pieces]] = {
    "gzip": _gunzip,
    "x-gzip": _gunzip,
    "deflate": _undeflate,
    "br": _unbrotli,
    "zstd": _unzstd,
}
