"""The operation index tries a request only against the templates its literal segments allow: drawn
specs and paths, the index's answer the same as trying every template in order (the search it replaced)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.documents import Spec
from proxy.core.contract.operations import Operation, OperationIndex
from proxy.core.rules.endpoints import routed_path

WORDS = ["v2", "V2", "carts", "items", "1", "x", "a.b", ""]
SEGMENT = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(["{id}", "{n}", "{id}.json", "p{id}"]),
)
TYPES = st.sampled_from(["string", "integer", "number", "boolean"])


def _every_template(index: OperationIndex, method: str, path: str) -> tuple[Operation, ...]:
    """The search before the candidates: every template of the method, most specific first."""
    routed = routed_path(path)
    best = None
    found: dict[tuple[str, str], Operation] = {}
    for template in index._by_method.get(method.upper(), ()):
        if best is not None and template.rank != best:
            break
        if template.pattern.fullmatch(routed) is not None:
            best = template.rank
            found.setdefault((template.operation.spec, template.operation.pointer), template.operation)
    return tuple(found[key] for key in sorted(found))


@st.composite
def specs(draw: Any) -> list[Spec]:
    drawn = []
    for number in range(draw(st.integers(1, 3))):
        paths: dict[str, Any] = {}
        for _ in range(draw(st.integers(1, 8))):
            written = "/" + "/".join(draw(st.lists(SEGMENT, min_size=0, max_size=4)))
            method = draw(st.sampled_from(["get", "post"]))
            parameters = [
                {"name": name, "in": "path", "schema": {"type": draw(TYPES)}} for name in ("id", "n")
            ]
            paths.setdefault(written, {})[method] = {"parameters": parameters}
        servers = draw(st.sampled_from([None, ["https://host/v2"], ["https://host/"]]))
        document: dict[str, Any] = {"openapi": "3.0.3", "paths": paths}
        if servers is not None:
            document["servers"] = [{"url": url} for url in servers]
        drawn.append(Spec(f"s{number}.yaml", "3.0", document, {}))
    return drawn


@settings(max_examples=200, deadline=None)
@given(
    specs(),
    st.lists(
        st.tuples(st.sampled_from(["GET", "get", "POST", "PUT"]), st.lists(SEGMENT, max_size=5)), max_size=12
    ),
)
def test_the_candidates_find_what_trying_every_template_finds(
    drawn: list[Spec], requests: list[tuple[str, list[str]]]
) -> None:
    index = OperationIndex(drawn)
    for template in index.operations():  # each template filled in is found as before, as is every drawn path
        filled = template.template.replace("{id}", "7").replace("{n}", "7")
        requests.append((template.method, [filled]))
    for method, segments in requests:
        path = "/" + "/".join(segments).replace("{id}", "1").replace("{n}", "2")
        assert index.find_all(method, path) == _every_template(index, method, path), (method, path)
