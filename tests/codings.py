"""Bodies in every Content-Encoding the proxy decodes, in every shape: one member, many members (gzip
members, zstd frames), chains of codings with `identity` among them, and bombs of 1 GiB of zeros. The
tables are built by loops, so the tests that read them draw the whole class, not a few examples."""

from __future__ import annotations

import functools
import gzip
import itertools
import struct
import zlib
from dataclasses import dataclass

import brotlicffi as brotli
import zstandard

GIB = 1 << 30
_UNIT = 1 << 24  # 16 MiB of zeros, the block a bomb repeats

# name in a test -> the Content-Encoding it sends; deflate comes zlib-wrapped (the RFC) and raw (some servers)
CODINGS = {
    "gzip": "gzip",
    "x-gzip": "x-gzip",
    "deflate": "deflate",
    "raw-deflate": "deflate",
    "br": "br",
    "zstd": "zstd",
}
MANY_MEMBERS = ("gzip", "x-gzip", "zstd")  # codings whose clients read every member or frame


def encode(coding: str, data: bytes) -> bytes:
    """`data` in one member of `coding` (a name of CODINGS)."""
    if coding in ("gzip", "x-gzip"):
        return gzip.compress(data, mtime=0)
    if coding == "deflate":
        return zlib.compress(data)
    if coding == "raw-deflate":
        packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        return packer.compress(data) + packer.flush()
    if coding == "br":
        return brotli.compress(data, quality=5)
    return zstandard.ZstdCompressor().compress(data)


def in_members(coding: str, data: bytes, count: int) -> bytes:
    """`data` cut in `count` parts, each its own gzip member or zstd frame, one after another."""
    size = -(-len(data) // count)
    return b"".join(encode(coding, data[start : start + size]) for start in range(0, len(data), size))


@dataclass(frozen=True)
class Coded:
    """A body with the Content-Encoding header lines that say how it was coded."""

    name: str
    body: bytes
    lines: tuple[str, ...]  # Content-Encoding values, one per header line

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        return tuple(("Content-Encoding", line) for line in self.lines)


def chains(lengths: tuple[int, ...] = (2, 3)) -> list[tuple[str, ...]]:
    """Every chain of the given lengths over the codings (deflate both ways, gzip as itself)."""
    names = ("gzip", "deflate", "raw-deflate", "br", "zstd")
    return [chain for length in lengths for chain in itertools.product(names, repeat=length)]


def header_lines(chain: tuple[str, ...], number: int) -> tuple[str, ...]:
    """The chain's codings as a sender might write them, varied by `number`: `identity` somewhere,
    case and spaces changed, the list split over two header lines."""
    names = [CODINGS[coding] for coding in chain]
    names.insert(number % (len(names) + 1), "identity")
    if number % 2:
        names = [name.upper() if position % 2 else f" {name} " for position, name in enumerate(names)]
    if number % 3 == 0:
        return ", ".join(names[:1]), ",".join(names[1:])
    return (", ".join(names),)


def coded(data: bytes, chain: tuple[str, ...], number: int = 0) -> Coded:
    """`data` coded by each of `chain` in order, first applied first."""
    body = data
    for coding in chain:
        body = encode(coding, body)
    return Coded("+".join(chain), body, header_lines(chain, number))


@functools.cache
def bomb(coding: str) -> bytes:
    """1 GiB of zeros in one member of `coding`: about 1 MB of gzip or deflate, 1.6 KB of br, 33 KB of
    zstd. gzip and deflate repeat one flushed block rather than compress the whole again."""
    if coding in ("gzip", "x-gzip", "deflate", "raw-deflate"):
        packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        unit = packer.compress(bytes(_UNIT)) + packer.flush(
            zlib.Z_FULL_FLUSH
        )  # the state starts anew after it
        stream = unit * (GIB // _UNIT) + packer.flush()
        if coding == "raw-deflate":
            return stream
        if coding == "deflate":
            return b"\x78\xda" + stream + struct.pack(">I", (GIB % 65521) << 16 | 1)  # adler32 of zeros
        crc = 0
        for _ in range(GIB // _UNIT):
            crc = zlib.crc32(bytes(_UNIT), crc)
        return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + stream + struct.pack("<II", crc, GIB % (1 << 32))
    if coding == "br":
        packer_br = brotli.Compressor(quality=4)
        return b"".join([packer_br.process(bytes(_UNIT)) for _ in range(GIB // _UNIT)] + [packer_br.finish()])
    packer_zstd = zstandard.ZstdCompressor(level=1).compressobj()
    return b"".join([packer_zstd.compress(bytes(_UNIT)) for _ in range(GIB // _UNIT)] + [packer_zstd.flush()])


def bombs() -> list[Coded]:
    """Every coding's 1 GiB bomb; many small members adding up to 1 GiB (each under any limit); and
    every chain of two and three codings whose first is a bomb."""
    singles = [Coded(coding, bomb(coding), (CODINGS[coding],)) for coding in CODINGS]
    spread = [
        Coded(f"{coding}*1024", encode(coding, bytes(1 << 20)) * 1024, (CODINGS[coding],))
        for coding in MANY_MEMBERS
    ]
    chained = []
    for number, chain in enumerate(chains()):
        body = bomb(chain[0])
        for coding in chain[1:]:
            body = encode(coding, body)
        chained.append(Coded("+".join(chain), body, header_lines(chain, number)))
    return singles + spread + chained
