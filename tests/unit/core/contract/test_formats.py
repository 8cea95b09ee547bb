"""Formats judged as the service writes them: every example link the published specs give under
`format: uri` passes (brackets unencoded in the query, relative links), a real violation (a space, a
control character, a broken escape or port) is caught, and `uuid` and `date-time` stay strict."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proxy.core.contract.documents import Spec
from proxy.core.contract.schemas import Schemas

# Modelled on commerce-extensions.yaml's `LinkURI` (3.1: a nullable string, `format: uri`) and on
# account_management.yaml's paginated `links` (3.0).
DOCUMENTS = {
    "3.1": {"type": ["string", "null"], "format": "uri", "readOnly": True},
    "3.0": {"type": "string", "format": "uri", "nullable": True},
}
REFERENCE = {"type": "string", "format": "uri-reference"}
STRICT = {
    "uuid": {"type": "string", "format": "uuid"},
    "date-time": {"type": "string", "format": "date-time"},
}

# Each published spec's own example of a `format: uri` value (the file named), and the service's links.
EXAMPLES = [
    "https://useast.api.elasticpath.com/v2/accounts?page[offset]=0&page[limit]=25",  # account_management.yaml
    "/v2/accounts/deb6b25f-8451-4211-9a22-95610333df23",  # account_management.yaml, links.self
    "/v2/application-keys?page[offset]=0&page[limit]=100",  # application-keys.yaml
    "/v2/settings/custom-apis?page[offset]=0&page[limit]=100",  # commerce-extensions.yaml
    "/v2/extensions/wishlists/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60",  # commerce-extensions.yaml's entries
    "?page[offset]=0&page[limit]=25",  # integrations.yaml, LinkURI
    "http://example.com/articles/1/comments",  # inventories.yaml, subscriptions.yaml
    "http://www.elaticpath.com",  # personal-data.yaml
    "/pcm/pricebooks/4c45e4ec-26e0-4043-86e4-c15b9cf985a7?filter=like(name,*Standard*)&page[offset]=0&page[limit]=25",  # pricebooks.yaml
    "https://magazine.com/cover.jpg",  # subscriptions.yaml, main_image
    "https://example-store.com/oauth2/callback",  # account_management.yaml, oauth_redirect_uri
    "https://useast.api.elasticpath.com/v2/files?filter=eq(file_name,a%20b.png)",  # an escaped space
    "http://[::1]:8080/v2/carts",  # an IPv6 host
    "",  # the empty reference
]
VIOLATIONS = [
    "https://useast.api.elasticpath.com/v2/accounts?page[offset]=0 &page[limit]=25",  # a space
    "/v2/accounts\x07",  # a control character
    "/v2/accounts\n",  # a line break
    "/v2/files?filter=eq(file_name,50%)",  # a broken percent escape
    "https://useast.api.elasticpath.com:port/v2",  # a port that is no number
    "http://[::1/v2",  # an unclosed IPv6 host
]


def _problems(schema: dict[str, Any], value: Any, version: str = "3.1") -> list[str]:
    spec = Spec("api.yaml", version, {"components": {"schemas": {"Link": schema}}}, {})
    compiled = Schemas({spec.name: spec}).compiled((spec.name, "/components/schemas/Link"), "response")
    return [problem.keyword for problem in compiled.problems(value, {spec.name: spec})]


@pytest.mark.parametrize("version", sorted(DOCUMENTS))
@pytest.mark.parametrize("link", EXAMPLES)
def test_every_published_example_link_passes(version: str, link: str) -> None:
    assert _problems(DOCUMENTS[version], link, version) == []
    assert _problems(REFERENCE, link) == []


@pytest.mark.parametrize("version", sorted(DOCUMENTS))
@pytest.mark.parametrize("link", VIOLATIONS)
def test_a_real_violation_is_caught(version: str, link: str) -> None:
    assert _problems(DOCUMENTS[version], link, version) == ["format"]
    assert _problems(REFERENCE, link) == ["format"]


@pytest.mark.parametrize(
    ("format_name", "good", "bad"),
    [
        ("uuid", "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60", "plan-1"),
        ("uuid", "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60", "3f8e2a4c9b1d4c6e8f0a1b2c3d4e5f60[0]"),
        ("date-time", "2024-01-01T00:00:00Z", "2024-01-01"),
        ("date-time", "2024-01-01T00:00:00.123+02:00", "2024-01-01 00:00:00"),
    ],
)
def test_uuid_and_date_time_stay_strict(format_name: str, good: str, bad: str) -> None:
    assert _problems(STRICT[format_name], good) == []
    assert _problems(STRICT[format_name], bad) == ["format"]


_LINK_CHARS = st.sampled_from("abcXYZ019-._~:/?#[]@!$&'()*+,;=")


@given(st.lists(_LINK_CHARS, max_size=30).map("".join), st.sampled_from(" \t\r\n\x00\x1f\x7f\u00a0\u2028"))
def test_links_of_uri_characters_pass_and_whitespace_fails(link: str, blank: str) -> None:
    if "//" not in link:  # an authority may be a port or an IPv6 host to parse
        assert _problems(DOCUMENTS["3.1"], link) == []
    assert _problems(DOCUMENTS["3.1"], link + blank + link) == ["format"]
