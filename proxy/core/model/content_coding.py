"""Undoing a Content-Encoding within a size limit: gzip, deflate, br, zstd, identity, and lists of them
(`gzip, identity`), so a recorded body is stored decoded (and searched for secrets) whichever of them
a service uses, and a small compressed body never inflates past the limit in memory.

Pure: bytes in, bytes out.
"""

from __future__ import annotations

import io
import zlib

import brotli
import zstandard

from proxy.errors import BodyTooLarge

CODINGS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd", "identity"})
BROTLI_STEP = 256  # input bytes fed to brotli at a time: it has no output limit of its own


class Undecodable(Exception):
    """Bytes that are not what their coding says (truncated, corrupt)."""


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
    known here or the bytes do not decode. `BodyTooLarge` when they would inflate past `limit`."""
    codings = codings_of(encoding)
    if codings is None:
        return None
    data = raw
    try:
        for name in reversed(codings):
            data = _undo(name, data, limit)
    except Undecodable:
        return None
    return data


def _undo(name: str, data: bytes, limit: int) -> bytes:
    if name in ("gzip", "x-gzip"):
        return _inflate(name, data, limit, (16 + zlib.MAX_WBITS,))
    if name == "deflate":
        return _inflate(name, data, limit, (zlib.MAX_WBITS, -zlib.MAX_WBITS))
    if name == "br":
        return _unbrotli(data, limit)
    return _unzstd(data, limit)


def _inflate(name: str, data: bytes, limit: int, tries: tuple[int, ...]) -> bytes:
    for wbits in tries:
        inflater = zlib.decompressobj(wbits)
        try:
            out = inflater.decompress(data, limit + 1)
        except zlib.error:
            continue
        if len(out) > limit or inflater.unconsumed_tail:
            raise BodyTooLarge(f"a {name}-encoded body inflates past {limit} bytes")
        if not inflater.eof:
            break  # truncated: kept as the bytes that came, never as part of what they encode
        return out
    raise Undecodable(name)


def _unbrotli(data: bytes, limit: int) -> bytes:
    decompressor = brotli.Decompressor()
    pieces, size = [], 0
    try:
        for start in range(0, len(data), BROTLI_STEP):
            piece = decompressor.process(data[start : start + BROTLI_STEP])
            size += len(piece)
            if size > limit:
                raise BodyTooLarge(f"a br-encoded body inflates past {limit} bytes")
            pieces.append(piece)
    except brotli.error:
        raise Undecodable("br") from None
    if not decompressor.is_finished():
        raise Undecodable("br")
    return b"".join(pieces)


def _unzstd(data: bytes, limit: int) -> bytes:
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
            out = reader.read(limit + 1)
            if len(out) > limit:
                raise BodyTooLarge(f"a zstd-encoded body inflates past {limit} bytes")
            return out
    except zstandard.ZstdError:
        raise Undecodable("zstd") from None
