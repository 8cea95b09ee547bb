"""Which operation a request is: by method and path template, path parameters typed as the spec says,
the most specific template first, the servers' base path and the spellings the service routes alike."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.core.contract.documents import Spec
from proxy.core.contract.operations import OperationIndex


def _spec(paths: dict[str, Any], servers: list[str] | None = None, name: str = "a.yaml") -> Spec:
    document: dict[str, Any] = {"openapi": "3.0.3", "paths": paths}
    if servers is not None:
        document["servers"] = [{"url": url} for url in servers]
    return Spec(name, "3.0", document, {})


def _typed(kind: str, name: str = "id") -> dict[str, Any]:
    return {"get": {"parameters": [{"name": name, "in": "path", "required": True, "schema": {"type": kind}}]}}


# modelled on cart_checkout.yaml's `/v2/carts/{cartID}` beside literal siblings, and pim.yaml's /pcm paths
INDEX = OperationIndex(
    [
        _spec(
            {
                "/v2/carts/{cartID}": {"get": {}},
                "/v2/carts/{cartID}/items": {"get": {}},
                "/v2/carts/items": {"get": {}},  # a literal beside a parameter: the literal wins
                "/v2/orders/{orderID}/transactions/{id}": _typed("integer"),
                "/v2/orders/{orderID}/transactions/latest": {"get": {}},
                "/pcm/jobs/{jobID}": {"get": {}},
            }
        ),
        _spec(
            {"/subscriptions/plans/{plan_uuid}": {"get": {}}},
            ["https://euwest.api.elasticpath.com/v2"],
            "s.yaml",
        ),
        _spec({"/v2/flows/{slug}/entries/{n}": _typed("number", "n")}, [], "f.yaml"),
    ]
)

FOUND = [
    ("GET", "/v2/carts/abc", "GET /v2/carts/{cartID}"),
    ("GET", "/v2/carts/abc/", "GET /v2/carts/{cartID}"),  # a trailing slash
    ("get", "//V2/carts/abc?x=1", "GET /v2/carts/{cartID}"),  # doubled slash, /V2, a query
    ("GET", "/v2/carts/items", "GET /v2/carts/items"),
    ("GET", "/v2/carts/abc/items", "GET /v2/carts/{cartID}/items"),
    ("GET", "/v2/orders/o1/transactions/42", "GET /v2/orders/{orderID}/transactions/{id}"),
    ("GET", "/v2/orders/o1/transactions/latest", "GET /v2/orders/{orderID}/transactions/latest"),
    ("GET", "/pcm/jobs/j1", "GET /pcm/jobs/{jobID}"),
    ("GET", "/v2/subscriptions/plans/p1", "GET /v2/subscriptions/plans/{plan_uuid}"),  # the servers' base
    ("GET", "/v2/flows/f/entries/1.5", "GET /v2/flows/{slug}/entries/{n}"),
]
NOT_FOUND = [
    ("POST", "/v2/carts/abc"),  # no such method
    ("GET", "/v2/orders/o1/transactions/first"),  # an integer parameter never matches a word
    ("GET", "/v2/flows/f/entries/one"),
    ("GET", "/subscriptions/plans/p1"),  # the spec's base path is part of its paths
    ("GET", "/v2/carts"),
    ("GET", "/v2/carts/abc/items/extra"),
]


@pytest.mark.parametrize(("method", "path", "operation"), FOUND)
def test_a_request_is_its_most_specific_operation(method: str, path: str, operation: str) -> None:
    assert str(INDEX.find(method, path)) == operation


@pytest.mark.parametrize(("method", "path"), NOT_FOUND)
def test_a_request_no_template_takes_is_no_operation(method: str, path: str) -> None:
    assert INDEX.find(method, path) is None


def test_every_operation_is_found_by_its_own_template_filled_in() -> None:
    """Over the whole index: each template, its parameters filled with a value of their type, finds itself
    (or a more specific literal sibling, never a less specific one)."""
    for templates in INDEX._by_method.values():
        for template in templates:
            path = template.operation.template
            for name, value in (("{id}", "7"), ("{n}", "2.5")):
                path = path.replace(name, value)
            filled = "/".join("x1" if part.startswith("{") else part for part in path.split("/"))
            found = INDEX.find(template.operation.method, filled)
            assert found is not None
            assert found.template.count("{") <= template.operation.template.count("{")


# Server URLs as the published specs write them (elasticpath-dev openapispecs: `https://{region}.api.
# elasticpath.com/{basePath}`), drawn: a variable in the host, in the path, or both; a default alone or
# with an enum; the URL absolute or relative.
SERVER_VALUES = {
    "basePath": ("v2", ["v2", "beta"]),
    "version": ("1", ["1"]),
    "region": ("useast", ["euwest"]),
}


def _servers() -> list[tuple[dict[str, Any], set[str], set[str]]]:
    """(a Server Object, the base paths it means, base paths it must not take)."""
    drawn = []
    for host in ("https://{region}.api.elasticpath.com", "https://api.test", ""):
        for path in ("/{basePath}", "/{basePath}/v{version}", "/pcm/{basePath}", ""):
            for with_enum in (False, True):
                names = [name for name in SERVER_VALUES if "{" + name + "}" in host + path]
                variables = {
                    name: {
                        "default": SERVER_VALUES[name][0],
                        **({"enum": SERVER_VALUES[name][1]} if with_enum else {}),
                    }
                    for name in names
                }
                meant = {path.replace("{basePath}", "v2").replace("{version}", "1")}
                if with_enum and "{basePath}" in path:
                    meant.add(path.replace("{basePath}", "beta").replace("{version}", "1"))
                wrong = {
                    path.replace("{basePath}", other).replace("{version}", "1") for other in ("v3", "carts")
                }
                drawn.append(({"url": host + path, "variables": variables}, meant, wrong - meant))
    return drawn


def test_server_variables_are_their_values_never_a_wildcard() -> None:
    for server, meant, wrong in _servers():
        document: dict[str, Any] = {
            "openapi": "3.0.3",
            "servers": [server],
            "paths": {"/things/{id}": {"get": {}}},
        }
        index = OperationIndex([Spec("e.yaml", "3.0", document, {})])
        templates = {str(operation) for operation in index.operations()}
        assert templates == {f"GET {base}/things/{{id}}" for base in meant}, server
        for base in meant:
            assert index.find("GET", f"{base}/things/t1") is not None, (server, base)
        for base in wrong:
            assert index.find("GET", f"{base}/things/t1") is None, (server, base)
