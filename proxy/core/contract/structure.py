"""The shape of the places an exchange is judged by: every path item, operation, parameter, response,
request body, header and media type of the specs is a mapping (a list of parameters a list), its
`$ref`s followed across files. No I/O.

A malformed spec (`paths: {/a: [1, 2]}`, `responses: [1]`, `parameters: {a: 1}`) would otherwise be
silently never judged; here it is one `ContractError` line naming the file and the JSON pointer, as a
broken `$ref` is. Run after `check_references`: every `$ref` leads somewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.core.contract.documents import Spec, escape, follow, pointer_of
from proxy.errors import ContractError

METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")


def check_structure(specs: Mapping[str, Spec]) -> None:
    """ContractError at the first place of an entry spec's paths that is not the kind of node its
    place needs."""
    shape = _Shape(specs)
    for spec in specs.values():
        if spec.entry:
            for written, item in (spec.document.get("paths") or {}).items():
                shape.path_item(spec.name, pointer_of("paths", str(written)), item)


def kind_of(value: Any) -> str:
    """A value's kind as a YAML or JSON reader says it: `a list`, `a number`..."""
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return "a string"
    return "nothing" if value is None else type(value).__name__


class _Shape:
    def __init__(self, specs: Mapping[str, Spec]) -> None:
        self.specs = specs

    def _mapping(self, what: str, name: str, at: str, node: Any) -> tuple[str, str, Mapping[str, Any]]:
        name, at, node = follow(lambda document: self.specs[document].document, name, at, node)
        if not isinstance(node, Mapping):
            raise ContractError(f"{name}: #{at}: expected {what} (a mapping), found {kind_of(node)}")
        return name, at, node

    def path_item(self, name: str, at: str, item: Any) -> None:
        name, at, item = self._mapping("a path item", name, at, item)
        self._parameters(name, at, item)
        for method in METHODS:
            if method in item:
                self.operation(name, f"{at}/{method}", item[method])

    def operation(self, name: str, at: str, node: Any) -> None:
        name, at, node = self._mapping("an operation", name, at, node)
        self._parameters(name, at, node)
        if "requestBody" in node:
            body_name, body_at, body = self._mapping(
                "a request body", name, f"{at}/requestBody", node["requestBody"]
            )
            self._content(body_name, body_at, body)
        responses = node.get("responses")
        if responses is None:
            return
        if not isinstance(responses, Mapping):
            raise ContractError(
                f"{name}: #{at}/responses: expected a mapping of statuses, found {kind_of(responses)}"
            )
        for status, written in responses.items():
            spot = f"{at}/responses/{escape(str(status))}"
            response_name, response_at, response = self._mapping("a response", name, spot, written)
            self._content(response_name, response_at, response)
            headers = response.get("headers")
            for header, value in self._map_of("headers", response_name, response_at, headers):
                self._mapping("a header", response_name, f"{response_at}/headers/{escape(header)}", value)

    def _parameters(self, name: str, at: str, node: Mapping[str, Any]) -> None:
        parameters = node.get("parameters")
        if parameters is None:
            return
        if not isinstance(parameters, list):
            raise ContractError(
                f"{name}: #{at}/parameters: expected a list of parameters, found {kind_of(parameters)}"
            )
        for index, parameter in enumerate(parameters):
            self._mapping("a parameter", name, f"{at}/parameters/{index}", parameter)

    def _content(self, name: str, at: str, node: Mapping[str, Any]) -> None:
        for media, value in self._map_of("content", name, at, node.get("content")):
            self._mapping("a media type", name, f"{at}/content/{escape(media)}", value)

    @staticmethod
    def _map_of(key: str, name: str, at: str, value: Any) -> list[tuple[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, Mapping):
            raise ContractError(f"{name}: #{at}/{key}: expected a mapping, found {kind_of(value)}")
        return [(str(inner), item) for inner, item in value.items()]
