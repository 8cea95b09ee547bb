"""The replay book remembers a body-less request's key (`ReplayBook.key`): whatever the requests and
whatever secrets are learned between them, the key it gives is the one made afresh from the request
redacted now, and a request with a body is never remembered."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.redaction.book import KNOWN
from proxy.core.redaction.policy import RedactionPolicy
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy, request_key

TOKENS = ["tok_8f3kQz91LmPa77xRw2", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "plain"]
PATHS = ["/v2/products", "/v2/carts/tok_8f3kQz91LmPa77xRw2", "/v2/extensions/wishlists/1"]
QUERIES = ["", "page[limit]=25&page[offset]=0", "token=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "a=%5Bx%5D"]


def book(policy: MatchPolicy) -> ReplayBook:
    recorded = Exchange(Request("GET", "/v2/products", "page[limit]=25&page[offset]=0"), Response(200))
    return ReplayBook.build([("c.yaml", Cassette((recorded,), None))], policy, RedactionPolicy())


requests = st.builds(
    Request,
    method=st.sampled_from(["GET", "get", "DELETE", "POST"]),
    path=st.sampled_from(PATHS),
    query=st.sampled_from(QUERIES),
    headers=st.lists(
        st.tuples(
            st.sampled_from(["Authorization", "Accept", "X-Request-Id", "If-None-Match"]),
            st.sampled_from([f"Bearer {token}" for token in TOKENS] + ["application/json", '"e1"']),
        ),
        max_size=3,
    ).map(tuple),
    body=st.sampled_from([Body(), Body("json", {"token": TOKENS[0]}), Body("text", "x")]),
)
steps = st.lists(st.one_of(requests, st.sampled_from(TOKENS).map(lambda token: [token])), max_size=30)


@settings(max_examples=200, deadline=None)
@given(steps=steps, by_header=st.booleans())
def test_a_remembered_key_is_the_key_made_afresh(steps: list[Request | list[str]], by_header: bool) -> None:
    KNOWN.forget()
    policy = MatchPolicy.parse("header:If-None-Match" if by_header else None)
    replay = book(policy)
    for step in steps * 2:  # each request again, after what the first pass taught
        if isinstance(step, list):
            KNOWN.add(step)  # a secret learned elsewhere (another request, a recording)
            continue
        remembered = replay.key(step)
        assert remembered == request_key(replay.prepare(step), policy)
        assert replay.holds(step) == (remembered in replay._index)
    assert all(sent[-1] == Body() for sent in replay._keys)


def test_a_secret_learned_after_a_request_was_keyed_is_scrubbed_from_its_key() -> None:
    KNOWN.forget()
    replay = book(MatchPolicy())
    echoed = Request("GET", f"/v2/carts/{TOKENS[0]}")
    before = replay.key(echoed)
    assert TOKENS[0] in str(before)
    KNOWN.add([TOKENS[0]])
    after = replay.key(echoed)
    assert TOKENS[0] not in str(after) and after == request_key(replay.prepare(echoed), MatchPolicy())
