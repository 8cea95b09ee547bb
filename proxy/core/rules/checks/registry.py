"""The named checks rules can use, each registered once with the JSON Schema of its parameters.

Checks are filled in when `proxy.core.rules.checks` is imported; registering a name twice is an error, and
nothing registers afterwards, so tests never have to restore the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from proxy.core.rules.findings import Violation

if TYPE_CHECKING:
    from proxy.core.rules.checks.context import CheckContext
    from proxy.core.rules.endpoints import EndpointHit

CheckFunction: TypeAlias = "Callable[[CheckContext, Mapping[str, Any]], Iterator[Violation]]"  # yields
ObserverFunction: TypeAlias = "Callable[[CheckContext], None]"
RequestTest: TypeAlias = (
    "Callable[[str, str, EndpointHit, str], bool]"  # method, path, endpoint hit, raw query
)
NO_PARAMETERS: Mapping[str, Any] = {"type": "object", "additionalProperties": False}
Judges: TypeAlias = Literal["answer", "request", "recording", "note"]


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A check function, the schema its parameters must meet, its docstring's first line, the query
    parameters without any of which it finds nothing (`needs`; empty: it may find something anywhere),
    and what it judges (`judges`): the service's answer, or only the request, the recording, or nothing
    (a note of what cannot be checked). Only an answer check makes an exchange "judged"."""

    name: str
    function: CheckFunction
    parameters: Mapping[str, Any]
    summary: str
    needs: frozenset[str] = frozenset()
    judges: Judges = "answer"


@dataclass(frozen=True, slots=True)
class Observer:
    """A function that updates the session, and the requests it watches: it runs only on those, so a
    checker catching up on history can pass over the rest from their request line, unread."""

    remember: ObserverFunction
    watches: RequestTest


CHECKS: dict[str, CheckSpec] = {}
OBSERVERS: list[Observer] = []


def check(
    name: str,
    parameters: Mapping[str, Any] | None = None,
    needs: tuple[str, ...] = (),
    judges: Judges = "answer",
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check under `name`; `parameters` is the JSON Schema of the rule's `params`. A check
    that `needs` query parameters runs only on requests that send one of them (decoded names); one
    that `judges` anything but the answer does not count towards an exchange being judged."""

    def register(function: CheckFunction) -> CheckFunction:
        if name in CHECKS:
            raise RuntimeError(f"check {name!r} is registered twice")
        summary = (function.__doc__ or "").strip().splitlines()[0] if function.__doc__ else ""
        CHECKS[name] = CheckSpec(
            name, function, parameters or NO_PARAMETERS, summary, frozenset(needs), judges
        )
        return function

    return register


def observer(watches: RequestTest) -> Callable[[ObserverFunction], ObserverFunction]:
    """Register a function that updates the session after the checks of each exchange whose request
    `watches` admits (from its method, path, endpoint and raw query: it must admit every one the
    function might remember something of)."""

    def register(function: ObserverFunction) -> ObserverFunction:
        OBSERVERS.append(Observer(function, watches))
        return function

    return register


def integer_parameters(*names: str, required: bool = True) -> Mapping[str, Any]:
    """The parameter schema of a check taking only non-negative integers."""
    return {
        "type": "object",
        "properties": {name: {"type": "integer", "minimum": 0} for name in names},
        "required": list(names) if required else [],
        "additionalProperties": False,
    }
