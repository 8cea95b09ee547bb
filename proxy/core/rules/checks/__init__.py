"""The check functions rules name; importing this package registers every one of them."""

from proxy.core.rules.checks import access, age, entries, features, pagination, requests, shaped
from proxy.core.rules.checks.registry import CHECKS, OBSERVERS

__all__ = ["CHECKS", "OBSERVERS", "access", "age", "entries", "features", "pagination", "requests", "shaped"]
