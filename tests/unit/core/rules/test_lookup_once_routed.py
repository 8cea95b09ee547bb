"""The endpoint index spells a request's path once for all its patterns, and tries only those its
literal segments allow (`segment_trie`): drawn paths (every shipped template filled in, odd spellings:
dot segments, encoded characters, doubled slashes) get the groups, parameters and documented flag that
asking every pattern's own `match` gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.rules.endpoints import PARAMETER, EndpointHit, EndpointIndex
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir

RULES = load_rules(shipped_dir("rules"))
PIECES = [
    "/",
    "//",
    ".",
    "..",
    "/v2",
    "/V2",
    "%2E",
    "%2e",
    "%41",
    "%2F",
    "?x=1",
    "products",
    "carts",
    "extensions",
    "wishlists",
    "entries",
    "11111111-2222-3333-4444-555555555555",
    "items",
    "a",
]
# Every shipped template filled in (so each pattern is hit), spelled oddly around the edges.
FILLED = sorted(
    {
        PARAMETER.sub(value, pattern.template)
        for group in RULES.groups.values()
        for pattern in group.patterns
        for value in ("11111111-2222-3333-4444-555555555555", "wishlists", "V2", "%41")
    }
)
PATHS = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
    st.tuples(
        st.sampled_from(["", "/", "//", "/."]), st.sampled_from(FILLED), st.sampled_from(["", "/", "/x"])
    ).map("".join),
)


def _asked_of_every_pattern(index: EndpointIndex, method: str, path: str) -> EndpointHit:
    names, params, documented = set(), {}, False
    for name, patterns, is_documented in index.groups:
        for pattern in patterns:
            captured = pattern.match(method, path)
            if captured is not None:
                names.add(name)
                params.update(captured)
                documented = documented or is_documented
                break
    return EndpointHit(frozenset(names), params, documented)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["GET", "POST", "PUT", "DELETE"]), PATHS)
def test_the_index_finds_what_every_pattern_finds(method: str, path: str) -> None:
    index = RULES.index
    assert index.lookup(method, path) == _asked_of_every_pattern(index, method, path)
