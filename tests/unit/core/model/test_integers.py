"""Integer query parameters are read within a limit: whatever the text, `integer_parameter` never raises
and agrees with int() wherever int() can answer."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from proxy.core.model.integers import MAX_DIGITS, integer_parameter

SPELLED = st.tuples(
    st.sampled_from(["", " ", "\t"]),
    st.sampled_from(["", "-", "+"]),
    st.integers(min_value=0, max_value=6_000),  # leading zeros: int() counts them towards its 4,300
    st.text("0123456789", max_size=40),
    st.sampled_from(["", " "]),
)


@given(SPELLED)
def test_every_spelling_of_an_integer_is_read_without_raising(parts: tuple[str, str, int, str, str]) -> None:
    blank, sign, zeros, digits, tail = parts
    text = f"{blank}{sign}{'0' * zeros}{digits}{tail}"
    read = integer_parameter(text)
    if not zeros and not digits:
        assert read is None
        return
    significant = digits.lstrip("0")
    if len(significant) <= MAX_DIGITS:
        assert read == int(sign + (significant or "0"))
    else:
        assert read is not None and abs(read) == 10**MAX_DIGITS


@given(st.text(max_size=60))
def test_any_text_is_an_integer_or_none(text: str) -> None:
    read = integer_parameter(text)
    if read is not None and len(text) < sys.get_int_max_str_digits():
        assert abs(read) <= 10**MAX_DIGITS
