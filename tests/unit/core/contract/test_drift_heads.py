"""The heads a spec documents are compared and judged by it (`proxy.core.contract.drift_heads`, tiered
by `SpecTiers`): a table built by a loop over the header shapes of `heads.yaml` (inline and `$ref`'d,
required and not, a name in another case) by what a newer answer does with each (keeps it, drops it,
changes it, adds it), and over `content` keys by Content-Types whose parameters change. Without a
spec, those heads stay quiet as before."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from proxy.core.contract.drift_tiers import SpecTiers
from proxy.core.contract.judge import Contract
from proxy.core.drift.compare import ABSENT, Difference, compare_exchanges
from proxy.core.model.exchange import Body, Exchange, Headers, Request, Response
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.plans import FIXTURES

SPEC = FIXTURES / "drift" / "heads.yaml"
RESPONSE = "/paths/~1v2~1heads~1{id}/get/responses/200"
Expected = tuple[str, str | None] | None  # the tier and its source's pointer; None: no difference


@dataclass(frozen=True)
class Head:
    """A header `heads.yaml` declares: its name in the traffic, whether required, where it is."""

    name: str
    required: bool
    pointer: str


HEADS = [
    Head("X-Request-Id", True, f"{RESPONSE}/headers/X-Request-Id"),
    Head("X-Rate-Remaining", False, f"{RESPONSE}/headers/X-Rate-Remaining"),
    Head("X-Version", True, "/components/headers/Version"),
    Head("Link", False, "/components/headers/Link"),
    Head("X-Moltin-Thing", True, f"{RESPONSE}/headers/x-moltin-thing"),
]
BASE: Headers = (("Content-Type", "application/json"),)


@dataclass(frozen=True)
class Case:
    name: str
    recorded: str | None  # the head's value in each answer (None: absent)
    live: str | None
    expected: Expected


def cases(head: Head) -> Iterator[Case]:
    """Each thing a newer answer can do with one declared head."""
    gone: Expected = ("breaking", head.pointer) if head.required else ("data", head.pointer)
    yield Case("kept", "1", "1", None)
    yield Case("dropped", "1", None, gone)
    yield Case("changed", "1", "2", ("volatile", None))
    yield Case("appeared", None, "1", ("additive", None))


TABLE = [(head, case) for head in HEADS for case in cases(head)]


def exchange(path: str, headers: Headers) -> Exchange:
    return Exchange(Request("GET", path), Response(200, headers, Body("json", {"data": {}})))


def with_head(name: str, value: str | None) -> Headers:
    return BASE if value is None else (*BASE, (name, value))


@pytest.fixture(scope="module")
def contract() -> Contract:
    return contract_of([SPEC])


def at(found: list[Difference], where: str) -> list[Difference]:
    return [item for item in found if item.where.lower() == where.lower()]


@pytest.mark.parametrize(("head", "case"), TABLE, ids=lambda value: getattr(value, "name", ""))
def test_every_declared_head_is_compared_and_judged(contract: Contract, head: Head, case: Case) -> None:
    recorded = exchange("/v2/heads/h1", with_head(head.name, case.recorded))
    live = exchange("/v2/heads/h1", with_head(head.name, case.live))
    found = at(compare_exchanges(recorded, live, tiering=SpecTiers(contract)), f"headers.{head.name}")
    if case.expected is None:
        assert found == []
        return
    (item,) = found
    tier, pointer = case.expected
    name = next(iter(contract.specs))
    assert (item.tier, item.source) == (tier, None if pointer is None else f"{name}#{pointer}")
    assert (item.recorded, item.live) == (
        ABSENT if case.recorded is None else case.recorded,
        ABSENT if case.live is None else case.live,
    )
    assert at(compare_exchanges(recorded, live), f"headers.{head.name}") == []  # no spec: quiet


def test_a_head_no_spec_declares_stays_quiet(contract: Contract) -> None:
    recorded = exchange("/v2/heads/h1", with_head("X-Other", "1"))
    live = exchange("/v2/heads/h1", BASE)
    assert compare_exchanges(recorded, live, tiering=SpecTiers(contract)) == []


CHARSET, PLAIN = "application/json; charset=utf-8", "application/json"
CONTENT = "/content"  # below each operation's 200 response


def content_cases() -> Iterator[tuple[str, str, str, Expected]]:
    """(operation, recorded Content-Type, newer Content-Type, what the spec makes of it)."""
    for path, keys in (("charset", {CHARSET}), ("plain", {PLAIN}), ("both", {PLAIN, CHARSET})):
        for old, new in ((CHARSET, PLAIN), (PLAIN, CHARSET), (CHARSET, "application/json;charset=UTF-8")):
            response = f"/paths/~1v2~1{path}~1{{id}}/get/responses/200"
            documenting = {  # the key that documents each: a key with parameters wins over one without
                value: CHARSET
                if "charset" in value.lower() and CHARSET in keys
                else PLAIN
                if PLAIN in keys
                else None
                for value in (old, new)
            }
            expected: Expected = None
            if documenting[old] != documenting[new]:
                expected = ("breaking", response + CONTENT) if documenting[new] is None else ("data", None)
            yield path, old, new, expected


@pytest.mark.parametrize(("path", "old", "new", "expected"), list(content_cases()))
def test_a_content_type_is_compared_as_far_as_the_spec_tells_its_parameters_apart(
    contract: Contract, path: str, old: str, new: str, expected: Expected
) -> None:
    recorded = exchange(f"/v2/{path}/p1", (("Content-Type", old),))
    live = exchange(f"/v2/{path}/p1", (("Content-Type", new),))
    found = at(compare_exchanges(recorded, live, tiering=SpecTiers(contract)), "headers.Content-Type")
    assert at(compare_exchanges(recorded, live), "headers.Content-Type") == []  # the same media type
    if expected is None:
        assert found == []
        return
    (item,) = found
    name = next(iter(contract.specs))
    tier, pointer = expected
    assert (item.tier, item.source, item.recorded, item.live) == (
        tier,
        None if pointer is None else f"{name}#{pointer}",
        old,
        new,
    )
