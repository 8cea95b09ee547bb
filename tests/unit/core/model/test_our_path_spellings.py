"""Every spelling of `/_proxy` is ours or refused, and no spelling of another first segment is.

Members are composed from the class: `_proxy` with each letter drawn from its NFKC equivalents and
cases, escaped per character and then as a whole 0-6 times (upper or lower hex), behind `/`, `//`,
`//host:port/`, `/./`, `/x/../` or a backslash, followed by `.`, `%2e`, NUL, space, tab, `;a`, `#x` or
`?q`. Failed before: `/_proxy#/ui/`, `//127.0.0.1:PORT/_proxy/`, `/_proxy./ui/`, `/_proxy%2e/ui/`, five
encodings, NUL, space, tab and full-width forms were neither ours nor refused."""

from __future__ import annotations

import random

from proxy.core.model.access import ours, unreadable_target
from tests.unit.core.model.spellings import NOT_OURS, draw


def _judged(target: str) -> str:
    if unreadable_target(target) is not None:
        return "refused"
    return "ours" if ours(target.partition("?")[0]) is not None else "forwarded"


def test_every_spelling_of_our_segment_is_ours_or_refused() -> None:
    rng = random.Random(38)
    judged = [(_judged(spelling.target), spelling) for spelling in (draw(rng, 8080) for _ in range(20_000))]
    assert [spelling for verdict, spelling in judged if verdict == "forwarded"] == []
    assert {verdict for verdict, _ in judged} == {"ours", "refused"}
    for verdict, spelling in judged:  # only a fragment or an escape left after the limit is refused
        if verdict == "refused":
            assert "#" in spelling.target or spelling.level > 3, spelling


def test_the_same_spellings_of_other_segments_go_on() -> None:
    rng = random.Random(39)
    for _ in range(5_000):
        spelling = draw(rng, 8080, name=rng.choice(NOT_OURS))
        verdict = _judged(spelling.target)
        if "#" in spelling.target or spelling.level > 3:
            continue  # refused for what it is, whatever it names
        assert verdict == "forwarded", spelling


def test_known_spellings() -> None:
    for target in (
        "/_proxy#/ui/",
        "/%252525255Fproxy/ui/",
    ):
        assert _judged(target) == "refused", target
    for target in (
        "//127.0.0.1:8080/_proxy/",
        "/_proxy./ui/",
        "/_proxy%2e/ui/",
        "/_proxy%00/ui/",
        "/_proxy%20/ui/",
        "/_proxy%09/",
        "/%EF%BC%BFproxy/ui/",
        "/_proxy?q",
    ):
        assert _judged(target) == "ours", target
    for target in ("/v2/products", "/v2/_proxy/x", "/_proxyx/ui", "/v2/a%2Fb", "/v2/%25", "//x/v2/_proxy"):
        assert _judged(target) == "forwarded", target
