"""A number is a whole number by its exact value, not by the double it rounds to: drawn spellings of
integers (`10`, `10.0`, `1E1`, `10.00`, `-0`, thirty digits and `.0`) count as integers everywhere a rule
asks (the page envelope's numbers, the canonical form, JSON Schema's type name), and spellings a double
rounds to an integer (`12.0000000000000000000001`, `9007199254740993.5`) do not."""

from __future__ import annotations

import pytest

from proxy.core.contract.schemas import json_type
from proxy.core.model.json_text import parse_json
from proxy.core.rules.checks.page_view import whole
from proxy.core.rules.checks.values import canonical

WHOLE = ["10", "10.0", "1E1", "10.00", "1e+1", "100E-1", "-0", "-0.0", "123456789012345678901234567890.0"]
NOT_WHOLE = ["12.0000000000000000000001", "9007199254740993.5", "0.5", "1.5E0", "10.000000000000000000000001"]


@pytest.mark.parametrize("text", WHOLE + NOT_WHOLE)
def test_a_number_is_whole_by_its_exact_value(text: str) -> None:
    value = parse_json(text)
    expected = text in WHOLE
    assert (whole(value) is not None) == expected
    assert isinstance(canonical(value), int) == expected
    assert (json_type(value) == "integer") == expected
