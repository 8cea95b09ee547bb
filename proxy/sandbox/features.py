"""Subscription features: validating an update payload and applying partial-update semantics.

Spec sections: "Feature (resource type subscription_feature)", "Feature update payload",
"Update a feature" rules 1 to 3, and "Limits".
"""

from __future__ import annotations

import copy
import re
import uuid
from dataclasses import dataclass
from typing import Any

FEATURE_TYPE = "subscription_feature"
CONFIGURATION_TYPES = ("access", "promotion", "usage")
TAG_PATTERN = re.compile(r"^[0-9A-Za-z_-]+$")
REMOVABLE = ("external_ref", "description")
LENGTHS = {"name": (3, 1024), "description": (0, 1024), "external_ref": (0, 2048)}


@dataclass(frozen=True, slots=True)
class FieldError:
    """One reason an update payload is refused, and where in the payload it is."""

    source: str
    detail: str


def is_uuid(text: str) -> bool:
    """Whether text is a UUID in its usual hyphenated form."""
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def validate_update(payload: Any, feature_id: str) -> list[FieldError]:
    """Every way the payload breaks the documented update payload; empty when it is acceptable."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), dict):
        return [FieldError("data", "the body must be a JSON object with a 'data' object")]
    data = payload["data"]
    errors: list[FieldError] = []
    if data.get("type") != FEATURE_TYPE:
        errors.append(
            FieldError("data.type", f"data.type must be '{FEATURE_TYPE}', found {data.get('type')!r}")
        )
    # data.id is a required UUID; the documentation does not say it must equal the path's, and the
    # published schema does not require it, so the sandbox (like the service) updates the path's.
    if "id" not in data:
        errors.append(FieldError("data.id", "data.id is required"))
    elif not isinstance(data["id"], str) or not is_uuid(data["id"]):
        errors.append(FieldError("data.id", f"data.id must be a UUID, found {data['id']!r}"))
    attributes = data.get("attributes")
    if not isinstance(attributes, dict):
        errors.append(FieldError("data.attributes", "data.attributes must be an object"))
        return errors
    for name, (shortest, longest) in LENGTHS.items():
        if name not in attributes:
            continue
        value = attributes[name]
        source = f"data.attributes.{name}"
        if value is None:
            if name not in REMOVABLE:
                errors.append(FieldError(source, f"{name} cannot be removed"))
            continue
        if not isinstance(value, str):
            errors.append(FieldError(source, f"{name} must be a string"))
        elif not shortest <= len(value) <= longest:
            errors.append(
                FieldError(source, f"{name} must be {shortest} to {longest} characters, found {len(value)}")
            )
    if "configuration" in attributes:
        errors.extend(_configuration_errors(attributes["configuration"]))
    return errors


def _configuration_errors(configuration: Any) -> list[FieldError]:
    source = "data.attributes.configuration"
    if not isinstance(configuration, dict):
        return [FieldError(source, "configuration must be an object with type and tag")]
    errors = []
    kind = configuration.get("type")
    if kind is None:
        errors.append(FieldError(f"{source}.type", "configuration.type is required"))
    elif kind not in CONFIGURATION_TYPES:
        errors.append(
            FieldError(
                f"{source}.type",
                f"configuration.type must be one of {', '.join(CONFIGURATION_TYPES)}",
            )
        )
    promotions = configuration.get("promotions")
    if kind == "promotion" and isinstance(promotions, list) and "tag" not in configuration:
        # The published promotion shape (api-notes, Features): the tags sit in promotions[].
        for position, promotion in enumerate(promotions):
            tag = promotion.get("tag") if isinstance(promotion, dict) else None
            if tag is not None and not _good_tag(tag):
                errors.append(FieldError(f"{source}.promotions[{position}].tag", TAG_RULE))
        return errors
    tag = configuration.get("tag")
    if tag is None:
        errors.append(FieldError(f"{source}.tag", "configuration.tag is required"))
    elif not _good_tag(tag):
        errors.append(FieldError(f"{source}.tag", TAG_RULE))
    return errors


TAG_RULE = "configuration.tag must be 1 to 64 characters of 0-9 A-Z a-z _ -"


def _good_tag(tag: Any) -> bool:
    return isinstance(tag, str) and 1 <= len(tag) <= 64 and TAG_PATTERN.fullmatch(tag) is not None


def sent_attributes(payload: Any) -> dict[str, Any] | None:
    """The `data.attributes` object of an update payload, or None when it has none."""
    data = payload.get("data") if isinstance(payload, dict) else None
    attributes = data.get("attributes") if isinstance(data, dict) else None
    return attributes if isinstance(attributes, dict) else None


def apply_update(feature: dict[str, Any], attributes: dict[str, Any], now: str) -> dict[str, Any]:
    """The feature after a valid update: only given attributes change, null removes, {} changes nothing."""
    if not attributes:
        return feature
    updated = copy.deepcopy(feature)
    current = updated["attributes"]
    for name, value in attributes.items():
        if name not in LENGTHS and name != "configuration":
            continue  # attributes the documentation does not name are not stored
        if value is None:
            current.pop(name, None)
        else:
            current[name] = copy.deepcopy(value)
    updated["meta"]["timestamps"]["updated_at"] = now
    return updated


def seed_features(now: str) -> dict[str, dict[str, Any]]:
    """The features the sandbox starts with, keyed by id: one of each configuration shape the published
    schema has (subscriptions.yaml: access with a tag, promotion with promotions[], usage with a tag,
    label and default_value)."""
    free_shipping = {
        "type": "promotion",
        "promotions": [
            {
                "name": "Free shipping",
                "tag": "free-shipping",
                "promotion_id": "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e",
            }
        ],
    }
    specs: list[tuple[str, str, dict[str, Any], str | None, str | None]] = [
        (
            "3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60",
            "Premium support",
            {"type": "access", "tag": "premium_support"},
            "Priority answers from the support team.",
            "crm-feature-001",
        ),
        (
            "7a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d",
            "Free shipping",
            free_shipping,
            "Free standard shipping on every order.",
            None,
        ),
        (
            "c0ffee00-1234-4abc-8def-0123456789ab",
            "API calls",
            {"type": "usage", "tag": "api_calls", "label": "API calls a month", "default_value": 1000},
            None,
            None,
        ),
    ]
    features = {}
    for feature_id, name, configuration, description, external_ref in specs:
        attributes: dict[str, Any] = {"name": name}
        if description is not None:
            attributes["description"] = description
        if external_ref is not None:
            attributes["external_ref"] = external_ref
        attributes["configuration"] = configuration
        features[feature_id] = {
            "id": feature_id,
            "type": FEATURE_TYPE,
            "attributes": attributes,
            "meta": {"owner": "store", "timestamps": {"created_at": now, "updated_at": now}},
        }
    return features
