"""Every spelling the service routes to one operation is judged as that operation, on every endpoint the
shipped rules name (read through the project's own loader, so a new endpoint is covered too): the same
endpoint groups, documented flag, path parameters and label; and spellings it routes elsewhere are not."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from proxy.core.model.exchange import Request
from proxy.core.redaction.redact import is_token_request
from proxy.core.replay.simulation.entries import entry_key
from proxy.core.replay.simulation.features import feature_id
from proxy.core.replay.simulation.lists import list_key
from proxy.core.rules.config import Baseline, RuleConfig
from proxy.core.rules.endpoints import PARAMETER, EndpointPattern, routed_path
from proxy.core.rules.findings import Finding
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir

RULES = load_rules(shipped_dir("rules"))
PATTERNS = [(group.name, pattern) for group in RULES.groups.values() for pattern in group.patterns]
# Path parameter values: a UUID, a slug, values that spell like a version or a literal segment, and one
# holding an encoded `/` (reserved: it stays encoded, one segment).
VALUES = ("11111111-2222-3333-4444-555555555555", "wishlists", "V2", "entries", "a.b-c_d~1", "a%2Fb")
QUERIES = ("", "?page[limit]=25", "?page[offset]=0&page[limit]=25&filter=eq(name,x)")
OTHER_METHODS = ("GET", "PUT", "POST", "PATCH", "DELETE")


def filled(pattern: EndpointPattern, value: str) -> str:
    """The pattern's template with every parameter set to `value`."""
    return PARAMETER.sub(value, pattern.template)


def spellings(canonical: str) -> Iterator[str]:
    """The spellings the service routes like `canonical`: one to three leading slashes, none to two
    trailing ones, any one separator (or all) doubled, the version prefix in either case; and each
    of these combined."""
    segments = canonical.strip("/").split("/")
    first = segments[0]
    versions = (first, first.upper()) if first.lower() == "v2" else (first,)
    for version, lead, trail in itertools.product(versions, ("/", "//", "///"), ("", "/", "//")):
        parts = [version, *segments[1:]]
        for doubled in (None, "all", *range(len(parts) - 1)):
            separators = ["//" if doubled in ("all", place) else "/" for place in range(len(parts) - 1)]
            body = parts[0] + "".join(sep + part for sep, part in zip(separators, parts[1:], strict=True))
            yield lead + body + trail


def encoded_spellings(canonical: str) -> Iterator[str]:
    """The spellings RFC 3986 makes equivalent: any unreserved character percent-encoded (upper- or
    lower-case hex), a `.` segment anywhere, a segment undone by `..`, a `.` at the end."""
    segments = canonical.strip("/").split("/")
    for place, segment in enumerate(segments):
        for index in range(len(segment)):
            if not (segment[index].isascii() and (segment[index].isalnum() or segment[index] in "-._~")):
                continue  # only unreserved characters mean the same encoded
            for hexed in (f"%{ord(segment[index]):02X}", f"%{ord(segment[index]):02x}"):
                changed = segment[:index] + hexed + segment[index + 1 :]
                yield "/" + "/".join([*segments[:place], changed, *segments[place + 1 :]])
        yield "/" + "/".join([*segments[:place], ".", *segments[place:]])
        yield "/" + "/".join([*segments[:place], "elsewhere", "..", *segments[place:]])
    yield canonical + "/."


def method_of(pattern: EndpointPattern) -> str:
    return "GET" if pattern.method == "*" else pattern.method


@pytest.mark.parametrize(("group", "pattern"), PATTERNS, ids=[f"{g}: {p}" for g, p in PATTERNS])
def test_every_spelling_of_an_endpoint_hits_what_its_canonical_spelling_hits(
    group: str, pattern: EndpointPattern
) -> None:
    method = method_of(pattern)
    for value in VALUES:
        canonical = filled(pattern, value)
        expected = RULES.index.lookup(method, canonical)
        assert group in expected.groups
        assert set(expected.params.values()) <= {value}
        label = RULES.index.label(method, canonical)
        for query, spelling in itertools.product(QUERIES, spellings(canonical)):
            hit = RULES.index.lookup(method, spelling + query)
            assert (hit.groups, hit.documented, hit.params) == (
                expected.groups,
                expected.documented,
                expected.params,
            ), spelling + query
            assert RULES.index.label(method, spelling) == label, spelling
            assert pattern.match(method, spelling) == pattern.match(method, canonical), spelling
            assert routed_path(spelling + query) == canonical, spelling + query
        for spelling in encoded_spellings(canonical):
            hit = RULES.index.lookup(method, spelling)
            assert (hit.groups, hit.params) == (expected.groups, expected.params), spelling
            assert routed_path(spelling) == canonical, spelling


def near_misses(pattern: EndpointPattern) -> Iterator[str]:
    """Paths the service routes to another operation or to none: a literal segment changed (a letter
    more, or in upper case: only the version prefix's case is ignored), a segment more, another
    version, a parameter holding a `/` or empty."""
    segments = pattern.template.strip("/").split("/")
    sample = {name: VALUES[0] for name in PARAMETER.findall(pattern.template)}

    def joined(parts: list[str]) -> str:
        return "/" + "/".join(PARAMETER.sub(lambda found: sample[found[1]], part) for part in parts)

    for place, segment in enumerate(segments):
        if PARAMETER.search(segment):
            for value in ("a/b", ""):
                yield "/" + "/".join(
                    PARAMETER.sub(value, part) if index == place else joined([part])[1:]
                    for index, part in enumerate(segments)
                )
        elif place == 0 and segment == "v2":
            yield joined(["v3", *segments[1:]])
            yield joined(["v22", *segments[1:]])
        else:
            for changed in (segment + "X", segment.upper(), segment[:-1]):
                if changed != segment:
                    yield joined([*segments[:place], changed, *segments[place + 1 :]])
    yield joined([*segments, "extra"])
    yield joined([*segments, "extra"]) + "/"


@pytest.mark.parametrize(("group", "pattern"), PATTERNS, ids=[f"{g}: {p}" for g, p in PATTERNS])
def test_a_path_the_service_routes_elsewhere_does_not_hit_the_endpoint(
    group: str, pattern: EndpointPattern
) -> None:
    method = method_of(pattern)
    for miss in near_misses(pattern):
        for spelling in (miss, miss + "/", "/" + miss):
            assert pattern.match(method, spelling) is None, spelling
            assert all(
                value and "/" not in value for value in RULES.index.lookup(method, spelling).params.values()
            )
    if pattern.method != "*":
        canonical = filled(pattern, VALUES[0])
        for other in OTHER_METHODS:
            if other != pattern.method:
                assert pattern.match(other, canonical + "/") is None, other


def test_the_routed_spelling_is_one_fixed_point() -> None:
    """Routing a routed path changes nothing; the root stays the root; only the version prefix is
    lowered, not a later segment that looks like one."""
    assert routed_path("//V2//flows/V2/entries//?page[limit]=1") == "/v2/flows/V2/entries"
    assert routed_path("/") == routed_path("//") == routed_path("") == "/"
    assert routed_path("/V2") == routed_path("/v2/") == "/v2"
    assert routed_path("/V2X/accounts") == "/V2X/accounts"
    for _, pattern in PATTERNS:
        for spelling in spellings(filled(pattern, VALUES[2])):
            assert routed_path(routed_path(spelling)) == routed_path(spelling)


ACCEPTED = {"rule": "pagination.page.current", "where": "meta.page.current"}


def finding_at(method: str, path: str) -> Finding:
    """A finding of the accepted rule and place, on one spelling of a request."""
    return Finding(0, method, path, path, ACCEPTED["rule"], "warning", "", "", ACCEPTED["where"], "", "")


@pytest.mark.parametrize(("group", "pattern"), PATTERNS, ids=[f"{g}: {p}" for g, p in PATTERNS])
def test_every_other_classifier_of_paths_agrees_across_spellings(
    group: str, pattern: EndpointPattern
) -> None:
    """The project config's per-endpoint severities (written in any spelling too), baselines, and the
    simulation's feature, entry and list keys see one operation whichever way it is spelled."""
    method = method_of(pattern)
    canonical = filled(pattern, VALUES[0])
    rule = "pagination.page.current"
    configs = [
        RuleConfig.parse({"endpoints": {f"{method} {written}": {rule: "off"}}}, "test", [rule])
        for written in (pattern.template, *itertools.islice(spellings(pattern.template), 1, None, 7))
    ]
    baseline = Baseline.parse(
        {"accepted": [{**ACCEPTED, "method": method, "path": canonical + "//"}]}, "test"
    )
    for spelling in spellings(canonical):
        asked, base = Request(method, spelling), Request(method, canonical)
        for config in configs:
            assert config.severity(rule, "warning", method, spelling) == "off", spelling
        assert baseline.accepts(finding_at(method, spelling)), spelling
        assert finding_at(method, spelling).baseline_key == finding_at(method, canonical).baseline_key
        assert feature_id(asked) == feature_id(base), spelling
        assert entry_key(asked) == entry_key(base), spelling
        assert list_key(asked) == list_key(base), spelling
        assert is_token_request(asked) == is_token_request(base), spelling
