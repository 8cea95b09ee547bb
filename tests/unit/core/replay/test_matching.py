"""Request keys and differences: what decides a match and what does not."""

from __future__ import annotations

from proxy.core.model.exchange import Body
from proxy.core.replay.matching import MatchPolicy, differences, request_key
from tests.conftest import json_body, make_request

POLICY = MatchPolicy()
FORM = (("Content-Type", "application/x-www-form-urlencoded"),)


def key(**kwargs: object) -> object:
    return request_key(make_request(**kwargs), POLICY)  # type: ignore[arg-type]


def test_query_order_and_percent_encoding_do_not_matter() -> None:
    """page[limit]=2&page[offset]=4 matches the same parameters reordered and percent-encoded."""
    assert key(query="page[limit]=2&page[offset]=4") == key(query="page%5Boffset%5D=4&page%5Blimit%5D=2")


def test_query_values_and_repeats_do_matter() -> None:
    """A different value, or a parameter given twice, is a different request."""
    assert key(query="page[offset]=4") != key(query="page[offset]=5")
    assert key(query="a=1") != key(query="a=1&a=1")


def test_json_bodies_match_by_meaning() -> None:
    """Key order and spacing of JSON do not matter; values and array order do."""
    first = key(method="PUT", body=json_body({"a": 1, "b": [1, 2]}))
    assert first == key(method="PUT", body=json_body({"b": [1, 2], "a": 1}))
    assert first != key(method="PUT", body=json_body({"a": 1, "b": [2, 1]}))


def test_form_bodies_match_by_fields() -> None:
    """Form fields match in any order."""
    first = request_key(make_request("POST", headers=FORM, body=Body("text", "a=1&b=2")), POLICY)
    assert first == request_key(make_request("POST", headers=FORM, body=Body("text", "b=2&a=1")), POLICY)


def test_header_values_never_count() -> None:
    """Authorization and other headers do not decide a match."""
    assert key(headers=(("Authorization", "Bearer one"),)) == key(headers=(("Authorization", "Bearer two"),))


def test_match_on_subset_and_ignored_query() -> None:
    """`--match-on method,path` ignores query and body; `--ignore-query` drops one parameter."""
    loose = MatchPolicy.parse("method,path")
    assert request_key(make_request(query="a=1"), loose) == request_key(make_request(query="a=2"), loose)
    ignoring = MatchPolicy.parse(None, ["cache"])
    assert request_key(make_request(query="a=1&cache=3"), ignoring) == request_key(
        make_request(query="a=1"), ignoring
    )


def test_differences_name_where_expected_and_found() -> None:
    """A near miss says which query parameter or body field differs and how."""
    recorded = make_request("PUT", query="page[offset]=10", body=json_body({"data": {"name": "a"}}))
    incoming = make_request("PUT", query="page[offset]=20", body=json_body({"data": {"name": "b"}}))
    found = [(d.where, d.expected, d.found) for d in differences(recorded, incoming, POLICY)]
    assert found == [("query.page[offset]", "10", "20"), ("body.data.name", '"a"', '"b"')]


def test_unknown_match_field_is_a_usage_error() -> None:
    """A typo in --match-on is refused, naming the field."""
    try:
        MatchPolicy.parse("method,paht")
    except Exception as error:
        assert "'paht'" in str(error)
    else:
        raise AssertionError("expected a usage error")


def test_an_ignored_json_path_never_decides_a_match_nor_shows_as_a_difference() -> None:
    """`--match-ignore-json data.meta.request_id`: a client's generated id in a body, in an object or in
    every item of a list, matches whatever its value; the field's siblings still count."""
    ignoring = MatchPolicy.parse(None, (), ["data.meta.request_id"])

    def body(request_id: str, name: str = "a") -> object:
        return {"data": {"name": name, "meta": {"request_id": request_id, "source": "app"}}}

    def keyed(document: object, policy: MatchPolicy = ignoring) -> object:
        return request_key(make_request("PUT", body=json_body(document)), policy)

    assert keyed(body("r-1")) == keyed(body("r-2"))
    assert keyed(body("r-1")) != keyed(body("r-1", name="b"))
    assert keyed(body("r-1"), POLICY) != keyed(body("r-2"), POLICY)
    assert keyed([body("r-1"), body("r-3")]) == keyed([body("r-2"), body("r-4")])
    recorded = make_request("PUT", body=json_body(body("r-1")))
    incoming = make_request("PUT", body=json_body(body("r-2", name="b")))
    found = [(d.where, d.expected, d.found) for d in differences(recorded, incoming, ignoring)]
    assert found == [("body.data.name", '"a"', '"b"')]


def test_a_malformed_ignored_json_path_is_a_usage_error() -> None:
    for written in ("", "data..id", ".data", "data."):
        try:
            MatchPolicy.parse(None, (), [written])
        except Exception as error:
            assert "match_ignore_json" in str(error) and repr(written) in str(error)
        else:
            raise AssertionError(f"expected a usage error for {written!r}")
