"""The UI's filter: parameters in, one `Query` out, and back; every bad parameter is one line naming it."""

from __future__ import annotations

import pytest

from proxy.core.ui.query import PARAMETERS, Query, QueryError, parse_query
from proxy.errors import UsageError

QUERIES = [
    Query(),
    Query(method="GET"),
    Query(status="2xx"),
    Query(status="404"),
    Query(path="/v2/products*"),
    Query(endpoint="update a feature (PUT /v2/subscriptions/features/{feature_uuid})"),
    Query(rule="pagination.links.next", severity="error"),
    Query(has_findings=True),
    Query(has_findings=False, cassette="tests/cassettes/a.yaml"),
    Query(text="ünïcode & = ?"),
    Query("DELETE", "5xx", "*/x?", "e", "r", "info", True, "c", "abc"),
]


@pytest.mark.parametrize("query", QUERIES)
def test_to_pairs_is_the_inverse_of_parse(query: Query) -> None:
    assert parse_query(query.to_pairs()) == query
    assert [name for name, _ in query.to_pairs()] == [
        name for name in PARAMETERS if getattr(query, name) is not None
    ]


def test_spellings_are_normalised() -> None:
    query = parse_query([("method", "get"), ("status", "2XX"), ("has_findings", "true"), ("rule", "")])
    assert query == Query(method="GET", status="2xx", has_findings=True)
    assert parse_query([("has_findings", "false")]).has_findings is False


@pytest.mark.parametrize(
    "value",
    [
        spelled
        for word in ("true", "false", "yes", "no", "1", "0", "on")
        for spelled in (word.upper(), word.title(), f" {word}", f"{word} ")
    ]
    + ["yes", "no", "1", "0", "on", "off"],
)
def test_has_findings_takes_only_the_two_documented_words(value: str) -> None:
    """`yes` and `1` were once taken as true: a script depending on that would break on a stricter reading."""
    with pytest.raises(QueryError, match="'has_findings': expected true or false"):
        parse_query([("has_findings", value)])


@pytest.mark.parametrize("name", ["stauts", "foo", "offset", "cursor", "Method", "text ", "", "x" * 300])
def test_a_parameter_no_filter_has_is_refused_naming_it(name: str) -> None:
    """A typo (`stauts=404`) once listed everything, as if it were the filtered view."""
    with pytest.raises(QueryError) as refused:
        parse_query([("method", "GET"), (name, "404")])
    line = str(refused.value)
    assert line.startswith(f"unknown parameter {name[:40]!r}:") and "\n" not in line and len(line) < 300


def test_status_range() -> None:
    assert Query(status="4xx").status_range == (400, 499)
    assert Query(status="201").status_range == (201, 201)
    assert Query().status_range is None


BAD = [
    ("method", "GET /", "'method'"),
    ("method", "G3T", "'method'"),
    ("status", "2x", "'status'"),
    ("status", "6xx", "'status'"),
    ("status", "99", "'status'"),
    ("status", "abc", "'status'"),
    ("path", "v2/products", "'path'"),
    ("severity", "fatal", "'severity'"),
    ("has_findings", "maybe", "'has_findings'"),
    ("text", "ab", "'text'"),
    ("cassette", "x" * 2001, "'cassette'"),
]


@pytest.mark.parametrize(("name", "value", "named"), BAD)
def test_every_bad_parameter_is_one_line_naming_it(name: str, value: str, named: str) -> None:
    with pytest.raises(QueryError) as raised:
        parse_query([(name, value)])
    message = str(raised.value)
    assert "\n" not in message and named in message
    assert isinstance(raised.value, UsageError)


def test_a_parameter_given_twice_is_refused() -> None:
    with pytest.raises(QueryError, match="'rule': given twice"):
        parse_query([("rule", "a"), ("rule", "b")])


@pytest.mark.parametrize("name", PARAMETERS)
@pytest.mark.parametrize("value", ["\x00\x00\x00", "a\x00b", "GET\x00", "\x00/v2/*", "2xx\x00"])
def test_a_nul_in_any_filter_value_is_refused_naming_it(name: str, value: str) -> None:
    """SQLite's text search reads a NUL as the end of its text ("unterminated string", a 500): no filter
    value holds one, and the refusal is the one line a bad value gets."""
    with pytest.raises(QueryError) as refused:
        parse_query([(name, value)])
    assert str(refused.value).startswith(f"filter parameter {name!r}:") and "\n" not in str(refused.value)
