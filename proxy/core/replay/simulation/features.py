"""Feature updates that were not recorded, answered by the documented partial-update semantics.

Spec, "Feature update payload", "Update a feature" rules 1-3, and "Limits". The state of a feature is
the last successful answer about it the cassette holds, then each answer served in the session.
"""

from __future__ import annotations

import copy
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from proxy.core.model.exchange import Exchange, Request
from proxy.core.replay.simulation.answers import Simulated, invalid, json_answer, not_json, stamp_like
from proxy.core.rules.checks.context import dig
from proxy.core.rules.endpoints import routed_path

FEATURE_PATH = re.compile(r"^/v2/subscriptions/features/(?P<id>[^/]+)$")
FEATURE_TYPE = "subscription_feature"
CONFIGURATION_TYPES = ("access", "promotion", "usage")
TAG = re.compile(r"^[0-9A-Za-z_-]{1,64}$")
# Field lengths (Limits); external_ref and description may be removed with null (rule 3).
LENGTHS = {"name": (3, 1024), "description": (0, 1024), "external_ref": (0, 2048)}
REMOVABLE = ("external_ref", "description")


@dataclass(slots=True)
class KnownFeature:
    """A feature's current state, the recording it came from, and whether the session changed it."""

    data: dict[str, Any]
    status: int
    number: int
    changed: bool = False


def feature_id(request: Request) -> str | None:
    """The feature a `PUT /v2/subscriptions/features/{id}` addresses, else None."""
    found = FEATURE_PATH.match(unquote(routed_path(request.path)))
    return found["id"] if found and request.method.upper() == "PUT" else None


def learned_feature(exchange: Exchange) -> tuple[str, dict[str, Any]] | None:
    """(id, data) when the exchange is a successful feature update showing the feature."""
    identifier = feature_id(exchange.request)
    response = exchange.response
    data = dig(response.body.value, "data") if response.body.kind == "json" else None
    if identifier is None or not 200 <= response.status < 300 or not isinstance(data, dict):
        return None
    if not isinstance(data.get("attributes"), dict):
        return None
    return identifier, data


def is_uuid(text: str) -> bool:
    """Path parameter `feature_uuid`: a UUID in its hyphenated form."""
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def payload_problems(payload: Any, identifier: str) -> list[tuple[str | None, str]]:
    """Every way the payload breaks the documented update payload (source, detail)."""
    data = dig(payload, "data")
    if not isinstance(data, dict):
        return [("data", "the body must be a JSON object with a 'data' object")]
    problems: list[tuple[str | None, str]] = []
    if data.get("type") != FEATURE_TYPE:
        problems.append(("data.type", f"data.type must be '{FEATURE_TYPE}', found {data.get('type')!r}"))
    if "id" not in data:
        problems.append(("data.id", "data.id is required"))
    elif data["id"] != identifier:
        problems.append(("data.id", f"data.id {data['id']!r} does not match the path's {identifier!r}"))
    attributes = data.get("attributes")
    if not isinstance(attributes, dict):
        problems.append(("data.attributes", "data.attributes must be an object"))
        return problems
    for name, (shortest, longest) in LENGTHS.items():
        if name not in attributes:
            continue
        value, source = attributes[name], f"data.attributes.{name}"
        if value is None:
            if name not in REMOVABLE:
                problems.append((source, f"{name} cannot be removed"))
        elif not isinstance(value, str):
            problems.append((source, f"{name} must be a string"))
        elif not shortest <= len(value) <= longest:
            problems.append(
                (source, f"{name} must be {shortest} to {longest} characters, found {len(value)}")
            )
    if "configuration" in attributes:
        problems.extend(_configuration_problems(attributes["configuration"]))
    return problems


def _configuration_problems(configuration: Any) -> list[tuple[str | None, str]]:
    source = "data.attributes.configuration"
    if not isinstance(configuration, dict):
        return [(source, "configuration must be an object with type and tag")]
    problems: list[tuple[str | None, str]] = []
    kind, tag = configuration.get("type"), configuration.get("tag")
    if kind is None:
        problems.append((f"{source}.type", "configuration.type is required"))
    elif kind not in CONFIGURATION_TYPES:
        problems.append(
            (f"{source}.type", f"configuration.type must be one of {', '.join(CONFIGURATION_TYPES)}")
        )
    if tag is None:
        problems.append((f"{source}.tag", "configuration.tag is required"))
    elif not isinstance(tag, str) or not TAG.fullmatch(tag):
        problems.append((f"{source}.tag", "configuration.tag must be 1 to 64 characters of 0-9 A-Z a-z _ -"))
    return problems


def updated(data: dict[str, Any], attributes: dict[str, Any], now: str) -> dict[str, Any]:
    """Rules 1-3: only given attributes change, null removes, empty attributes change nothing."""
    if not attributes:
        return data
    result = copy.deepcopy(data)
    current = result["attributes"]
    for name, value in attributes.items():
        if name not in LENGTHS and name != "configuration":
            continue  # attributes the documentation does not name are not kept
        if value is None:
            current.pop(name, None)
        else:
            current[name] = copy.deepcopy(value)
    timestamps = dig(result, "meta", "timestamps")
    if isinstance(timestamps, dict) and "updated_at" in timestamps:
        timestamps["updated_at"] = stamp_like(timestamps["updated_at"], now)
    return result


def simulate_update(known: KnownFeature, template: Exchange, request: Request, now: str) -> Simulated:
    """The answer to an update of a known feature; a valid one changes the known state."""
    identifier = feature_id(request) or ""
    target = request.target
    if request.body.kind != "json":
        return not_json(f"PUT {target}")
    problems = payload_problems(request.body.value, identifier)
    if problems:
        return invalid(problems, f"PUT {target}")
    attributes: dict[str, Any] = dig(request.body.value, "data", "attributes")
    known.data = updated(known.data, attributes, now)
    known.changed = True
    changed = ", ".join(sorted(attributes)) or "nothing (empty attributes)"
    response = json_answer(known.status, {"data": known.data}, template)
    return Simulated(response, (known.number,), known.number, f"PUT {target}: updated {changed}")
