"""One exchange against the contract: its operation found, its response (status, content type, required
headers, body) and, for a write the service accepted, its request body judged. No I/O.

What it finds are `Disagreement`s, each with its place in the spec (file and JSON pointer); which rule
each is, and its severity, is `proxy.core.contract.findings`. A schema the validator cannot take is a
disagreement of `contract.unsupported` once per run, at its place, and is never judged against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from proxy.core.contract import media_types
from proxy.core.contract.documents import Spec, escape, ref_target, resolve_pointer
from proxy.core.contract.operations import Operation, OperationIndex
from proxy.core.contract.schemas import Direction, Location, Schemas, Unsupported
from proxy.core.model.exchange import Body, Exchange, Headers, Response, header_value

WRITES = frozenset({"POST", "PUT", "PATCH"})
UNSUPPORTED = "contract.unsupported"
NO_BODY = frozenset({204, 304})  # answers HTTP gives no body (RFC 9110 15.3.5, 15.4.5)
INVALID_ACCEPTED = "contract.request.invalid-accepted"
CONTENT_TYPE = {"response": "contract.response.content-type", "request": "contract.request.content-type"}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One way an exchange and the spec disagree: the rule, where in the exchange, what the spec says,
    what the traffic has, the place in the spec, and the keyword or check that said so (`kind`)."""

    rule: str
    where: str
    expected: str
    found: str
    location: Location
    kind: str
    seen: Any = None  # what the traffic had there, for a proposed correction (a status, a type...)


class DocumentedResponse(NamedTuple):
    """A response an operation documents, `$ref`s followed: its file, pointer and node."""

    name: str
    pointer: str
    node: Mapping[str, Any]


class DeclaredHeader(NamedTuple):
    """A header a response declares: its name as the spec writes it, its place, whether required."""

    name: str
    location: Location
    required: bool


class Contract:
    """The published specs, overlays applied: their operations and their schemas, compiled on use."""

    def __init__(self, specs: Iterable[Spec]) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self.index = OperationIndex(self.specs.values())
        self.schemas = Schemas(self.specs)
        self._unsupported_said: set[Location] = set()

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation a request is (the first spec's in the fixed order), or None when none knows it."""
        return self.index.find(method, path)

    def operations(self, method: str, path: str) -> tuple[Operation, ...]:
        """The operation a request is, as each spec that knows it writes it (in a fixed order); empty
        when no spec knows it."""
        return self.index.find_all(method, path)

    def overlay_at(self, location: Location) -> str | None:
        """The overlay that changed this place of the spec, if one did."""
        spec = self.specs.get(location[0])
        return spec.overlay_at(location[1]) if spec is not None else None

    def judge_all(
        self, exchange: Exchange, operations: Sequence[Operation]
    ) -> tuple[Operation, list[Disagreement]]:
        """An exchange against every spec that knows its operation (`operations`, in their fixed order):
        none of them disagrees when one of them agrees; else the first one's disagreements, and the
        operation judged. The answer never depends on the order the specs were named. A schema one of
        them cannot compile is said all the same, and does not count as a disagreement."""
        notes: list[Disagreement] = []
        first: tuple[Operation, list[Disagreement]] | None = None
        for operation in operations:
            found = self.judge(exchange, operation)
            notes.extend(one for one in found if one.rule == UNSUPPORTED)
            real = [one for one in found if one.rule != UNSUPPORTED]
            if not real:
                return operation, notes
            if first is None:
                first = (operation, real)
        assert first is not None, "judge_all needs at least one operation"
        return first[0], [*notes, *first[1]]

    def judge(self, exchange: Exchange, operation: Operation) -> list[Disagreement]:
        """Every disagreement of one exchange with its operation, each once (the validator may say one
        error twice: a discriminator's branch under `allOf`)."""
        found = self._response(exchange, operation)
        request, status = exchange.request, exchange.response.status
        if request.method in WRITES and 200 <= status < 300:
            found.extend(self._request(exchange, operation))
        return _once(found)

    def _deref(self, name: str, pointer: str, node: Any) -> tuple[str, str, Any]:
        """A node, its `$ref`s followed (within a file or across files), with where it is."""
        seen: set[tuple[str, str]] = set()
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and (name, pointer) not in seen:
            seen.add((name, pointer))
            name, pointer = ref_target(name, node["$ref"])
            node = resolve_pointer(self.specs[name].document, pointer)
        return name, pointer, node

    def _response(self, exchange: Exchange, operation: Operation) -> list[Disagreement]:
        response = exchange.response
        responses = operation.node.get("responses")
        if not isinstance(responses, Mapping) or not responses:
            return []
        status = str(response.status)
        key = _documented(responses, response.status)
        at = f"{operation.pointer}/responses"
        found = []
        if response.status in NO_BODY and response.body.kind != "empty":
            place = at if key is None else f"{at}/{escape(str(key))}"
            found.append(
                Disagreement(
                    "contract.response.body-unexpected",
                    "body",
                    f"no body (a {status} answer has none)",
                    f"a body ({response.body.kind})",
                    (operation.spec, place),
                    "no-body",
                )
            )
        if key is None:
            listed = ", ".join(str(key) for key in responses)
            found.append(
                Disagreement(
                    "contract.response.status",
                    "status",
                    f"one of {listed}",
                    status,
                    (operation.spec, at),
                    "status",
                    response.status,
                )
            )
            return found
        name, pointer, node = self._deref(operation.spec, f"{at}/{escape(str(key))}", responses[key])
        if not isinstance(node, Mapping):
            return found
        found.extend(self._headers(response.headers, name, pointer, node))
        expected = 200 <= response.status < 300 and response.status not in NO_BODY
        expected = expected and exchange.request.method != "HEAD"
        found.extend(self._body(response.headers, response.body, name, pointer, node, "response", expected))
        return found

    def response_schema(self, response: Response, operation: Operation) -> Location | None:
        """Where the schema of this answer's body is (its status's response, its media type, JSON
        assumed when it names none), or None when the operation documents none."""
        documented = self.documented_response(operation, response.status)
        if documented is None:
            return None
        name, pointer, node = documented
        content = node.get("content")
        if not isinstance(content, Mapping):
            return None
        written = header_value(response.headers, "content-type") or "application/json"
        chosen = media_types.documenting(content, written)
        if chosen is None:
            chosen = media_types.judged_by(content, written)
        if chosen is None or not isinstance(content[chosen], Mapping) or "schema" not in content[chosen]:
            return None
        return name, f"{pointer}/content/{escape(str(chosen))}/schema"

    def documented_response(self, operation: Operation, status: int) -> DocumentedResponse | None:
        """The response an operation documents for a status (itself, its range, `default`; `$ref`s
        followed), with where it is; None when it documents none."""
        responses = operation.node.get("responses")
        if not isinstance(responses, Mapping):
            return None
        key = _documented(responses, status)
        if key is None:
            return None
        at = f"{operation.pointer}/responses/{escape(str(key))}"
        name, pointer, node = self._deref(operation.spec, at, responses[key])
        return DocumentedResponse(name, pointer, node) if isinstance(node, Mapping) else None

    def declared_headers(self, name: str, pointer: str, node: Mapping[str, Any]) -> list[DeclaredHeader]:
        """The headers a response (at `name#pointer`) declares, each with its place and whether it is
        `required`."""
        declared = node.get("headers")
        found = []
        for header, written in declared.items() if isinstance(declared, Mapping) else ():
            spec, at, schema = self._deref(name, f"{pointer}/headers/{escape(str(header))}", written)
            required = isinstance(schema, Mapping) and schema.get("required") is True
            found.append(DeclaredHeader(str(header), (spec, at), required))
        return found

    def _headers(
        self, headers: Headers, name: str, pointer: str, node: Mapping[str, Any]
    ) -> Iterable[Disagreement]:
        for header in self.declared_headers(name, pointer, node):
            if header.required and header_value(headers, header.name) is None:
                yield Disagreement(
                    "contract.response.header",
                    f"headers.{header.name}",
                    "present (required)",
                    "absent",
                    header.location,
                    "header",
                )

    def _body(
        self,
        headers: Headers,
        body: Body,
        name: str,
        pointer: str,
        node: Mapping[str, Any],
        direction: Direction,
        expected: bool = False,
    ) -> Iterable[Disagreement]:
        """The body against the documented `content`: its media type, that a body claiming JSON is JSON,
        and its schema; `expected`: a success answer that should carry the JSON body documented."""
        content = node.get("content")
        if not isinstance(content, Mapping) or not content:
            return
        prefix = "" if direction == "response" else "request."
        if body.kind == "empty":
            documented = media_types.json_key(content)
            if expected and documented is not None:
                yield Disagreement(
                    "contract.response.body-missing",
                    "body",
                    f"a body ({documented}, the spec documents its schema)",
                    "no body",
                    (name, f"{pointer}/content/{escape(str(documented))}"),
                    "body",
                )
            return
        written = header_value(headers, "content-type") or None
        parsed = media_types.parse(written) if written is not None else None
        chosen = media_types.documenting(content, written or "application/json")
        if chosen is None:
            if written is not None:
                yield Disagreement(
                    CONTENT_TYPE[direction],
                    prefix + "headers.Content-Type",
                    "one of " + ", ".join(str(key) for key in content),
                    written,
                    (name, f"{pointer}/content"),
                    "content-type",
                    str(parsed) if parsed is not None else written.strip(),
                )
            chosen = media_types.judged_by(content, written or "application/json")
            if chosen is None:
                return
        if parsed is not None and parsed.is_json() and body.kind != "json":
            rule = "contract.response.body-not-json" if direction == "response" else INVALID_ACCEPTED
            yield Disagreement(
                rule,
                prefix + "body",
                f"JSON, as its Content-Type {parsed.essence} says",
                "a body that does not parse as JSON",
                (name, f"{pointer}/content/{escape(str(chosen))}"),
                "json",
            )
            return
        media_node = content[chosen]
        if body.kind != "json" or not isinstance(media_node, Mapping) or "schema" not in media_node:
            return
        location = (name, f"{pointer}/content/{escape(str(chosen))}/schema")
        yield from self._schema(location, body.value, direction)

    def _schema(self, location: Location, document: Any, direction: Direction) -> Iterable[Disagreement]:
        rule = "contract.response.schema" if direction == "response" else INVALID_ACCEPTED
        try:
            compiled = self.schemas.compiled(location, direction)
        except Unsupported as whole:
            yield from self._said_once((whole,))
            return
        yield from self._said_once(compiled.unsupported)  # nodes left out; the rest is judged
        where_prefix = "" if direction == "response" else "request."
        for problem in compiled.problems(document, self.specs):
            yield Disagreement(
                rule,
                where_prefix + problem.where,
                problem.expected,
                problem.found,
                problem.location,
                problem.keyword,
                problem.seen,
            )

    def _said_once(self, unsupported: Iterable[Unsupported]) -> Iterable[Disagreement]:
        """`contract.unsupported` at each place the validator cannot read, once per run."""
        for one in unsupported:
            if one.location not in self._unsupported_said:
                self._unsupported_said.add(one.location)
                yield Disagreement(
                    UNSUPPORTED,
                    "schema",
                    "a schema the validator can compile",
                    one.reason,
                    one.location,
                    "unsupported",
                )

    def _request(self, exchange: Exchange, operation: Operation) -> list[Disagreement]:
        written = operation.node.get("requestBody")
        if written is None:
            return []
        name, pointer, node = self._deref(operation.spec, f"{operation.pointer}/requestBody", written)
        if not isinstance(node, Mapping):
            return []
        request = exchange.request
        if request.body.kind == "empty":
            if node.get("required") is not True:
                return []
            return [
                Disagreement(
                    "contract.request.body-missing",
                    "request.body",
                    "a body (the request body is required)",
                    "no body",
                    (name, f"{pointer}/required"),
                    "request-body",
                )
            ]
        return list(self._body(request.headers, request.body, name, pointer, node, "request"))


def _once(found: list[Disagreement]) -> list[Disagreement]:
    """The disagreements in order, each said once (what the traffic had, `seen`, may not be hashable and
    follows from the rest)."""
    said: set[tuple[str, str, str, str, Location, str]] = set()
    kept = []
    for one in found:
        key = (one.rule, one.where, one.expected, one.found, one.location, one.kind)
        if key not in said:
            said.add(key)
            kept.append(one)
    return kept


def _documented(responses: Mapping[Any, Any], status: int) -> Any:
    """The key of `responses` that documents a status: itself, its range (`4XX`), or `default`."""
    documented = {str(key).upper(): key for key in responses}
    written = str(status)
    return next((documented[k] for k in (written, f"{written[0]}XX", "DEFAULT") if k in documented), None)
