"""The selection grammar: terms, and/or/not, quoting, and errors that point at the token."""

from __future__ import annotations

import pytest

from proxy.core.editing.selection import ExpressionError, Subject, parse_selection
from proxy.core.rules.findings import Finding
from tests.unit.core.exchanges import FEATURE_PATH, exchange

PUT_FEATURE = exchange(
    "PUT",
    FEATURE_PATH,
    status=200,
    sent={"data": {"type": "subscription_feature", "attributes": {"configuration": {"tag": "gold"}}}},
    body={"data": {"attributes": {"name": "Premium", "configuration": {"tag": "gold"}}}},
)
LIST_PAGE = exchange(
    "GET",
    "/v2/flows/products/entries",
    query="page[limit]=5&page[offset]=10",
    body={"data": [], "meta": {"page": {"limit": 5, "total": 240}}},
)
NOT_FOUND = exchange("GET", "/v2/orders/x", status=404, response_headers=(("Content-Type", "text/plain"),))


def finding(rule: str, severity: str = "error") -> Finding:
    return Finding(0, "GET", "/", "/", rule, severity, "s", "m", "w", "e", "f")  # type: ignore[arg-type]


def selects(text: str) -> list[int]:
    selection = parse_selection(text)
    subjects = [
        Subject(0, PUT_FEATURE),
        Subject(1, LIST_PAGE, (finding("pagination.total"), finding("x.info", "info"))),
        Subject(2, NOT_FOUND),
    ]
    return [subject.index for subject in subjects if selection.matches(subject)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("method=PUT", [0]),
        ("method=put", [0]),
        ("method!=PUT", [1, 2]),
        ("path~/v2/subscriptions", [0]),
        ("method=PUT path~/v2/subscriptions status>=400", []),
        ("status>=400", [2]),
        ("status=4xx", [2]),
        ("status = 200", [0, 1]),
        ('body~"gold"', [0]),
        ('resp.body~"gold"', [0]),
        ("req.body~gold", [0]),
        ("body~'\"total\":240'", [1]),
        (r"query~page\[limit\]=5", [1]),
        ("target=/v2/orders/x", [2]),
        ("path=/v2/flows/*/entries", [1]),
        ("header.Content-Type=text/plain", [2]),
        ("resp.header.content-type~json", [0, 1]),
        ("req.header.Authorization~Bearer", [0, 1, 2]),
        ("resp.json.meta.page.total>200", [1]),
        ("resp.json.meta.page.total=240", [1]),
        ("resp.json.data.attributes.configuration.tag=gold", [0]),
        ("req.json.data.type=subscription_feature", [0]),
        ("index>=1 and index<2", [1]),
        ("method=PUT or status=404", [0, 2]),
        ("not method=GET", [0]),
        ("not (method=GET and status=200)", [0, 2]),
        ("status=200 and (path~orders or path~flows)", [1]),
        ("findings>0", [1]),
        ("errors=1", [1]),
        ("rule~^pagination", [1]),
        ("rule!=pagination.total", [0, 2]),
        ("recorded_at>2020", []),
    ],
)
def test_selection_picks_the_right_exchanges(text: str, expected: list[int]) -> None:
    """Each documented field and operator selects exactly the exchanges it describes."""
    assert selects(text) == expected


def test_only_expressions_about_findings_need_them() -> None:
    """The command line works out findings only when an expression reads them."""
    assert parse_selection("findings>0 or status=200").uses_findings
    assert not parse_selection("status=200").uses_findings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stauts=200", "column 1, 'stauts': unknown field"),
        ("method=PUT staus>=400", "column 12, 'staus': unknown field"),
        ("status>=abc", "column 9, 'abc': status >= needs a number"),
        ("path>3", "column 5, '>': path is text"),
        ("status=2x", "column 8, '2x': status needs a number or a class such as 4xx"),
        ("body~'(unclosed'", "column 6, '(unclosed': not a regular expression"),
        ('body~"open', "column 6, '\"open': unterminated \"-quoted value"),
        ("method=PUT and", "the expression stops where a term was expected"),
        ("(method=PUT", "column 1, '(': no matching ')'"),
        ("method=PUT)", "column 11, ')': unexpected here"),
        ("method", "column 1, 'method': expected FIELD OP VALUE"),
        ("or method=PUT", "column 1, 'or': expected a term before it"),
        ("method=PUT %%", "column 12, '%%': expected FIELD OP VALUE"),
        ("header.=x", "column 1, 'header.': unknown field"),
        ("", "empty expression"),
    ],
)
def test_bad_expressions_point_at_the_token(text: str, message: str) -> None:
    """A bad expression is one line naming the column and the offending token."""
    with pytest.raises(ExpressionError) as caught:
        parse_selection(text)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
