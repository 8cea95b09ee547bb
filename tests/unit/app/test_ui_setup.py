"""The server's access token: random per start, or the environment's when set, and only one a cookie,
a header and a URL carry as is."""

from __future__ import annotations

import pytest

from proxy.app.ui_setup import ui_token
from proxy.core.model.access import TOKEN_VARIABLE
from proxy.errors import UsageError


def test_a_new_random_token_each_start_unless_the_environment_names_one() -> None:
    made = {ui_token({}) for _ in range(50)} | {ui_token({TOKEN_VARIABLE: ""})}
    assert len(made) == 51 and all(len(token) >= 43 for token in made)
    assert ui_token({TOKEN_VARIABLE: "given-token_0123456789.~"}) == "given-token_0123456789.~"


@pytest.mark.parametrize(
    "given", ["short", "a" * 257, "has space in it 123", "semi;colon-0123456789", "é" * 20, "a\nb" * 8]
)
def test_a_token_a_cookie_or_header_cannot_carry_is_a_usage_error_that_does_not_show_it(given: str) -> None:
    with pytest.raises(UsageError) as refused:
        ui_token({TOKEN_VARIABLE: given})
    assert given not in str(refused.value) and "\n" not in str(refused.value)
