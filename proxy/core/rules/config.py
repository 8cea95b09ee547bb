"""The project's say over the rules: severities per rule and per endpoint, rules off, accepted findings.

Read from `[tool.commerce-proxy]` in pyproject.toml or from commerce-proxy.yaml (the store reads the file;
this module only interprets the document). Real traffic breaks some documented rules knowingly
(api-notes, Pagination), which is why a team must be able to lower or silence a rule for one endpoint.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from proxy.core.rules.endpoints import EndpointPattern, routed_path
from proxy.core.rules.findings import OFF, SEVERITIES, Finding, Setting
from proxy.core.rules.freshness import Freshness, MaxAge
from proxy.errors import RuleFileError

SETTINGS = frozenset(
    {
        "severity",
        "endpoints",
        "rules",
        "baseline",
        "redact",
        "match",
        "default_page_length",
        "max_age",
        "specs",
        "overlays",
    }
)
# (redact: read by proxy.core.redaction.policy; match: by proxy.core.replay.matching)
MAX_PAGE_LENGTH = 100  # commerce-api.md, Limits


@dataclass(frozen=True, slots=True)
class SeverityOverride:
    """Rules matching `rule` (an id or a glob such as `pagination.links.*`) get `severity`, on `endpoint`
    only when it is given."""

    rule: str
    severity: Setting
    endpoint: EndpointPattern | None = None

    def covers(self, rule_id: str) -> bool:
        return self.rule == rule_id or fnmatch.fnmatchcase(rule_id, self.rule)

    @property
    def specificity(self) -> tuple[int, int]:
        """Endpoint overrides beat global ones; an exact id beats a glob."""
        return (self.endpoint is not None, self.rule.find("*") < 0 and self.rule.find("?") < 0)


@dataclass(frozen=True, slots=True)
class RuleConfig:
    """Overrides in the order written, plus where the baseline file is (as written). The `rules` setting
    is only checked here: the store reads the rule folder it names before the rules are known."""

    overrides: tuple[SeverityOverride, ...] = ()
    baseline: str | None = None
    source: str = "defaults"
    default_page_lengths: tuple[int, ...] = ()  # the project's, set through the settings endpoint
    max_age: MaxAge | None = None  # recordings older than this are stale (cassette.max-age)
    now: float | None = None  # when the config was loaded (epoch seconds): the core has no clock
    specs: tuple[str, ...] = ()  # published OpenAPI specs every checking command judges against (as written)
    overlays: tuple[str, ...] = ()  # corrections on top of them, in order (as written)

    def at(self, now: float) -> RuleConfig:
        """This config as of a time: what `max_age` is judged against."""
        return replace(self, now=now)

    def freshness(self) -> Freshness | None:
        """The max_age and the time now, when both are known; else stale recordings are not judged."""
        return (
            Freshness(self.max_age, self.now) if self.max_age is not None and self.now is not None else None
        )

    def severity(self, rule_id: str, default: Setting, method: str, path: str) -> Setting:
        """The severity in force for one rule on one request, or "off"."""
        chosen: SeverityOverride | None = None
        for override in self.overrides:
            if not override.covers(rule_id):
                continue
            if override.endpoint is not None and override.endpoint.match(method, path) is None:
                continue
            if chosen is None or override.specificity >= chosen.specificity:
                chosen = override
        return chosen.severity if chosen else default

    def may_apply(self, rule_id: str, default: Setting) -> bool:
        """False only when the rule is off everywhere, so it need not run at all."""
        global_severity = default
        chosen: SeverityOverride | None = None
        for override in self.overrides:
            if override.covers(rule_id):
                if override.endpoint is not None and override.severity != OFF:
                    return True
                if override.endpoint is None and (
                    chosen is None or override.specificity >= chosen.specificity
                ):
                    chosen = override
        if chosen is not None:
            global_severity = chosen.severity
        return global_severity != OFF

    @classmethod
    def parse(cls, document: Any, source: str, known_rules: Iterable[str]) -> RuleConfig:
        """Interpret a config document; a setting naming no known rule is an error, not a silent no-op."""
        if document is None:
            return cls(source=source)
        if not isinstance(document, Mapping):
            raise RuleFileError(f"{source}: expected a table of settings, found {type(document).__name__}")
        unknown = set(document) - SETTINGS
        if unknown:
            raise RuleFileError(
                f"{source}: unknown setting(s) {', '.join(sorted(map(str, unknown)))}; "
                f"known: {', '.join(sorted(SETTINGS))}"
            )
        known = sorted(known_rules)
        overrides = list(_overrides(document.get("severity", {}), None, f"{source}: severity", known))
        endpoints = document.get("endpoints", {})
        if not isinstance(endpoints, Mapping):
            raise RuleFileError(
                f"{source}: endpoints: expected a table of 'METHOD /path' = {{rule = severity}}"
            )
        for text, table in endpoints.items():
            try:
                pattern = EndpointPattern.parse(str(text))
            except ValueError as error:
                raise RuleFileError(f"{source}: endpoints {text!r}: {error}") from None
            overrides.extend(_overrides(table, pattern, f"{source}: endpoints {text!r}", known))
        paths = {}
        for key in ("rules", "baseline"):
            value = document.get(key)
            if value is not None and not isinstance(value, str):
                raise RuleFileError(f"{source}: {key}: expected a path, found {value!r}")
            paths[key] = value
        lengths = _page_lengths(document.get("default_page_length"), f"{source}: default_page_length")
        written = document.get("max_age")
        max_age = MaxAge.parse(written, f"{source}: max_age") if written is not None else None
        specs = _paths(document.get("specs"), f"{source}: specs")
        overlays = _paths(document.get("overlays"), f"{source}: overlays")
        return cls(
            tuple(overrides), paths["baseline"], source, lengths, max_age, specs=specs, overlays=overlays
        )


def _paths(value: Any, where: str) -> tuple[str, ...]:
    """`specs: specs/` or a list of paths (files or folders), as written."""
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) and item for item in values):
        raise RuleFileError(f"{where}: expected a path or a list of paths, found {value!r}")
    return tuple(values)


def _page_lengths(value: Any, where: str) -> tuple[int, ...]:
    """`default_page_length = 25`, or a list of them (several stores, one config)."""
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    if not values or not all(type(item) is int and 1 <= item <= MAX_PAGE_LENGTH for item in values):
        raise RuleFileError(
            f"{where}: expected a page length 1 to {MAX_PAGE_LENGTH}, or a list of them, found {value!r}"
        )
    return tuple(values)


def _overrides(
    table: Any, endpoint: EndpointPattern | None, where: str, known: list[str]
) -> Iterable[SeverityOverride]:
    if not isinstance(table, Mapping):
        raise RuleFileError(f"{where}: expected a table of rule id (or glob) = severity")
    for rule, severity in table.items():
        if severity not in (*SEVERITIES, OFF):
            raise RuleFileError(
                f"{where}: {rule}: severity must be one of {', '.join((*SEVERITIES, OFF))}, "
                f"found {severity!r}"
            )
        override = SeverityOverride(str(rule), severity, endpoint)
        if not any(override.covers(rule_id) for rule_id in known):
            raise RuleFileError(f"{where}: {rule!r} names no rule (see `commerce-proxy rules`)")
        yield override


@dataclass(frozen=True, slots=True)
class Baseline:
    """Findings a team has accepted: they are counted, not reported, and do not fail `check`."""

    keys: frozenset[tuple[str, str, str, str]] = field(default_factory=frozenset)

    def accepts(self, finding: Finding) -> bool:
        """Whether the team accepted this finding: counted, not reported."""
        return finding.baseline_key in self.keys

    @staticmethod
    def document(accepted: Iterable[tuple[str, str, str, str]]) -> dict[str, Any]:
        """The baseline file's content for these findings' `baseline_key`s, sorted so it diffs well."""
        keys = sorted(set(accepted))
        return {
            "baseline_format": 1,
            "accepted": [
                {"rule": rule, "method": method, "path": path, "where": where}
                for rule, method, path, where in keys
            ],
        }

    @classmethod
    def parse(cls, document: Any, source: str) -> Baseline:
        """Read a baseline document written by `check --write-baseline`."""
        accepted = document.get("accepted") if isinstance(document, Mapping) else None
        if not isinstance(accepted, list):
            raise RuleFileError(f'{source}: expected {{"baseline_format": 1, "accepted": [...]}}')
        keys = set()
        for position, item in enumerate(accepted):
            try:
                path = routed_path(str(item["path"]))
                keys.add((str(item["rule"]), str(item["method"]), path, str(item["where"])))
            except (KeyError, TypeError):
                raise RuleFileError(
                    f"{source}: accepted[{position}]: expected rule, method, path and where"
                ) from None
        return cls(frozenset(keys))
