"""One decoder for every Content-Encoding: a body decodes whole (every member, every step of a chain,
every header line) or is not decoded at all, and nothing inflates past the limit. Tables built by
loops over codings, shapes and chains (tests/codings.py)."""

from __future__ import annotations

import pytest

from proxy.core.model.bodies import body_from_bytes
from proxy.core.model.content_coding import MAX_CODINGS, coding_header, decoded
from proxy.core.model.withheld import withheld
from proxy.errors import BodyTooLarge
from tests.codings import CODINGS, MANY_MEMBERS, Coded, bombs, chains, coded, encode, in_members

# Text whose secret sits at the end: a body cut to its first member or frame would store it partly
TEXT = b"".join(b'{"line": %d, "word": "abcdefgh%d"}\n' % (n, n * 7919 % 1013) for n in range(6_000))
TEXT += b'{"client_secret": "sec-9Kq2Lw7Zx"}\n'
LIMIT = 1 << 20


def legit_bodies() -> list[Coded]:
    """Every coding alone, in many members where its clients read them, and every chain of two and
    three codings (identity among them, the list sometimes split over two header lines)."""
    bodies = [coded(TEXT, (coding,), number) for number, coding in enumerate(CODINGS)]
    for coding in MANY_MEMBERS:
        for count in (2, 3, 17):
            bodies.append(Coded(f"{coding}*{count}", in_members(coding, TEXT, count), (CODINGS[coding],)))
    bodies += [coded(TEXT, chain, number) for number, chain in enumerate(chains())]
    return bodies


def broken_bodies() -> list[Coded]:
    """Bodies that are not wholly what their coding says: cut short, with bytes after the end, two
    streams of a coding that has one, or a chain longer than the decoder undoes."""
    bodies = []
    for number, chain in enumerate([(coding,) for coding in CODINGS] + chains((2,))):
        whole = coded(TEXT, chain, number)
        bodies.append(Coded(f"{whole.name} cut", whole.body[: len(whole.body) * 2 // 3], whole.lines))
        bodies.append(Coded(f"{whole.name} cut by 1", whole.body[:-1], whole.lines))
        bodies.append(Coded(f"{whole.name} + junk", whole.body + b"junk", whole.lines))
        bodies.append(Coded(f"{whole.name} + zeros", whole.body + bytes(8), whole.lines))
    for coding in ("deflate", "raw-deflate", "br"):
        twice = encode(coding, TEXT[:1000]) + encode(coding, TEXT[1000:])
        bodies.append(Coded(f"{coding} twice", twice, (CODINGS[coding],)))
    too_long = ("gzip",) * (MAX_CODINGS + 1)
    bodies.append(coded(TEXT, too_long))
    return bodies


@pytest.mark.parametrize("body", legit_bodies(), ids=lambda body: body.name)
def test_a_body_in_any_coding_shape_or_chain_decodes_whole(body: Coded) -> None:
    """Every member, every frame, every step of the chain, every header line: the whole text."""
    stored = body_from_bytes(body.body, (("Content-Type", "text/plain"), *body.headers), LIMIT)
    assert stored.kind == "text" and stored.value == TEXT.decode()
    assert stored.decoded_from is not None
    assert withheld(stored, body.headers) is None


@pytest.mark.parametrize("body", broken_bodies(), ids=lambda body: body.name)
def test_a_body_that_does_not_decode_whole_is_withheld_never_stored_in_part(body: Coded) -> None:
    """Such a body is not decoded, so the recorder withholds it: no fragment, no compressed secret."""
    assert decoded(body.body, coding_header(body.headers), LIMIT) is None
    stored = body_from_bytes(body.body, body.headers, LIMIT)
    assert withheld(stored, body.headers) is not None


@pytest.mark.parametrize("bomb", bombs(), ids=lambda bomb: bomb.name)
def test_every_bomb_is_refused_at_the_limit(bomb: Coded) -> None:
    """1 GiB of zeros in any coding, in many small members, or at the start of any chain."""
    with pytest.raises(BodyTooLarge, match="inflates past"):
        body_from_bytes(bomb.body, bomb.headers, LIMIT)


def test_the_coding_is_read_from_every_header_line() -> None:
    """Repeated fields are one comma list (RFC 9110): `identity` then `gzip` is gzip, not nothing."""
    headers = (("Content-Encoding", "identity"), ("X-Other", "1"), ("content-encoding", "gzip"))
    assert coding_header(headers) == "identity, gzip"
    assert coding_header((("Content-Type", "text/plain"),)) is None
    secret = b"client_secret=sec-9Kq2Lw7Zx"
    stored = body_from_bytes(
        encode("gzip", secret), (("Content-Encoding", "identity"), ("Content-Encoding", "gzip"))
    )
    assert (stored.value, stored.decoded_from) == (secret.decode(), "identity, gzip")
