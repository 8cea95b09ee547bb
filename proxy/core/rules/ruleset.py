"""Rules as data: what each rule checks, where it applies, how severe it is, and where the spec says so.

Built from already-read documents (the store reads the files); every mistake in them is a RuleFileError
naming the file and line. Which rules apply to an exchange is worked out once per endpoint group set.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import jsonschema_rs

from proxy.core.rules.checks import CHECKS
from proxy.core.rules.checks.registry import CheckSpec
from proxy.core.rules.citation import sections_cited
from proxy.core.rules.endpoints import EndpointHit, EndpointIndex, EndpointPattern
from proxy.core.rules.findings import SEVERITIES, Severity, Violation
from proxy.core.rules.shapes import Shape
from proxy.errors import RuleFileError

RULE_ID = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)+")
RESPONSES = ("success", "failure", "not-success", "any")
EVERY_EXCHANGE, DOCUMENTED, UNDOCUMENTED = "any", "documented", "undocumented"
PLACEHOLDERS = frozenset({"where", "expected", "found"})
RULE_KEYS = frozenset(
    {
        "id",
        "severity",
        "section",
        "message",
        "applies_to",
        "responses",
        "check",
        "params",
        "description",
        "example",
    }
)
REQUIRED_RULE_KEYS = RULE_KEYS - {"responses", "params", "description", "example"}
SECTION_KEYS = frozenset({"id", "title", "requires"})


class _FromFile(Protocol):
    @property
    def source(self) -> str: ...


Named = TypeVar("Named", bound=_FromFile)


@dataclass(frozen=True, slots=True)
class Sourced:
    """A document read from a rule file and the `file:line` it starts at."""

    source: str
    data: Any


@dataclass(frozen=True, slots=True)
class Rule:
    """One documented statement that an exchange can break, and how to check it."""

    id: str
    severity: Severity
    section: str
    message: str
    applies_to: tuple[str, ...]
    check: str
    params: Mapping[str, Any] = field(default_factory=dict)
    responses: str = "success"
    source: str = ""
    description: str = ""  # in plain words: what it means, and why a user should care
    example: str = ""  # what a violation reports: `METHOD target: message`

    def describe(self, violation: Violation) -> str:
        """The rule's one-line message filled in with what the check saw."""
        return self.message.format(where=violation.where, expected=violation.expected, found=violation.found)

    def answers(self, status: int) -> bool:
        """Whether the rule looks at a response with this status: `success` 2xx, `failure` an error
        answer (4xx/5xx), `not-success` every other (1xx, 3xx, 4xx, 5xx: a refusal or a redirect of a
        request the client should not have sent), `any` all."""
        if self.responses == "success":
            return 200 <= status < 300
        if self.responses == "failure":
            return status >= 400
        if self.responses == "not-success":
            return not 200 <= status < 300
        return True


@dataclass(frozen=True, slots=True)
class Section:
    """A section of the documentation the rules cite, and what it requires in the project's own words."""

    id: str  # the anchor the rules page links to
    title: str  # how a rule's `section` names it, as its start
    requires: str
    source: str


@dataclass(frozen=True, slots=True)
class EndpointGroup:
    """A named set of endpoint patterns; `documented` says whether the documentation describes them;
    `title`, how reports name its operation ("update a feature"; a group without one, by its pattern)."""

    name: str
    patterns: tuple[EndpointPattern, ...]
    documented: bool
    source: str
    title: str = ""


class RuleSet:
    """The rules, the endpoint groups they name, and the shapes their schema checks use."""

    def __init__(
        self,
        rules: Iterable[Rule],
        groups: Iterable[EndpointGroup],
        shapes: Mapping[str, Shape],
        sections: Iterable[Section] = (),
    ):
        self.rules = tuple(rules)
        self.sections = tuple(sections)
        self.groups = {group.name: group for group in groups}
        self.shapes = dict(shapes)
        self.by_id = {rule.id: rule for rule in self.rules}
        extra = [
            EndpointGroup(f"{rule.id}:{target}", (EndpointPattern.parse(target),), False, rule.source)
            for rule in self.rules
            for target in rule.applies_to
            if " " in target
        ]
        self.index = EndpointIndex(
            (group.name, group.patterns, group.documented) for group in [*self.groups.values(), *extra]
        )
        self._for_groups: dict[tuple[frozenset[str], bool], tuple[Rule, ...]] = {}

    def section_of(self, rule: Rule) -> Section | None:
        """The documentation section a rule cites first (its `section` starts with the title)."""
        return next(iter(sections_cited(rule.section, self.sections)), None)

    def sections_of(self, rule: Rule) -> list[Section]:
        """Every documentation section a rule cites that the project summarizes, once each, in order."""
        cited = sections_cited(rule.section, self.sections)
        return list(dict.fromkeys(section for section in cited if section is not None))

    def endpoints(self) -> list[EndpointPattern]:
        """Every endpoint the endpoint groups name, once each, in order."""
        return list(dict.fromkeys(pattern for group in self.groups.values() for pattern in group.patterns))

    def reaches(self, rule_ids: Iterable[str], endpoint: EndpointPattern) -> bool:
        """Whether any of these rules can apply at an endpoint (a concrete path or a template): a
        setting for rules that never can would be a silent no-op, such as a typo in the path."""
        for rule_id in rule_ids:
            rule = self.by_id.get(rule_id)
            if rule is None:
                continue
            for target in rule.applies_to:
                group = self.groups.get(target)
                if group is None:  # any, documented, undocumented, or "METHOD /path": anywhere, near enough
                    return True
                if any(_overlap(pattern, endpoint) for pattern in group.patterns):
                    return True
        return False

    def rules_for(self, hit: EndpointHit) -> tuple[Rule, ...]:
        """The rules whose `applies_to` covers an exchange that hit these endpoint groups."""
        key = (hit.groups, hit.documented)
        found = self._for_groups.get(key)
        if found is None:
            found = tuple(rule for rule in self.rules if self._applies(rule, hit, self._known(hit)))
            self._for_groups[key] = found
        return found

    def _known(self, hit: EndpointHit) -> bool:
        """Whether an endpoint group names the exchange's operation (the token endpoint, say), documented
        or not: only an operation no group knows is an "undocumented operation"."""
        return hit.documented or not hit.groups.isdisjoint(self.groups)

    @staticmethod
    def _applies(rule: Rule, hit: EndpointHit, known: bool) -> bool:
        for target in rule.applies_to:
            if target == EVERY_EXCHANGE:
                return True
            if target == DOCUMENTED and hit.documented:
                return True
            if target == UNDOCUMENTED and not known:
                return True
            if target in hit.groups or f"{rule.id}:{target}" in hit.groups:
                return True
        return False

    @classmethod
    def build(
        cls,
        endpoint_documents: Iterable[Sourced],
        rule_documents: Iterable[Sourced],
        shape_documents: Mapping[str, Sourced],
        section_documents: Iterable[Sourced] = (),
    ) -> RuleSet:
        """Validate and assemble; raises RuleFileError at the first unusable document."""
        shapes = {}
        for name, document in shape_documents.items():
            try:
                shapes[name] = Shape(name, document.data)
            except ValueError as error:
                raise RuleFileError(f"{document.source}: {error}") from None
        groups = _unique(endpoint_documents, _endpoint_group, "endpoint group", lambda group: group.name)
        rules = _unique(
            rule_documents, lambda document: _rule(document, groups, shapes), "rule", lambda rule: rule.id
        )
        sections = _unique(section_documents, _section, "section", lambda section: section.id)
        return cls(rules.values(), groups.values(), shapes, sections.values())


def _unique(
    documents: Iterable[Sourced],
    build: Callable[[Sourced], Named],
    what: str,
    name_of: Callable[[Named], str],
) -> dict[str, Named]:
    """Each document built, by name; a name defined twice is an error naming both places."""
    built: dict[str, Named] = {}
    for document in documents:
        item = build(document)
        name = name_of(item)
        if name in built:
            raise RuleFileError(
                f"{document.source}: {what} {name!r} is already defined at {built[name].source}"
            )
        built[name] = item
    return built


def _section(document: Sourced) -> Section:
    data, where = document.data, document.source
    if not isinstance(data, Mapping) or set(data) != SECTION_KEYS:
        raise RuleFileError(f"{where}: a section has exactly the keys id, title and requires")
    if not isinstance(data["id"], str) or not re.fullmatch(r"[a-z0-9-]+", data["id"]):
        raise RuleFileError(
            f"{where}: section id: expected lower-case words joined by -, found {data['id']!r}"
        )
    for key in ("title", "requires"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(f"{where}: section {data['id']!r}: {key} must be a non-empty string")
    return Section(data["id"], data["title"].strip(), " ".join(data["requires"].split()), where)


def _endpoint_group(document: Sourced) -> EndpointGroup:
    data = document.data
    where = document.source
    if not isinstance(data, Mapping) or set(data) - {"name", "endpoints", "documented", "title"}:
        raise RuleFileError(
            f"{where}: an endpoint group has name, endpoints, and documented and title (optional)"
        )
    name = data.get("name")
    if not isinstance(name, str) or not name or " " in name:
        raise RuleFileError(f"{where}: endpoint group name: expected a word, found {name!r}")
    listed = data.get("endpoints")
    if not isinstance(listed, list) or not listed or not all(isinstance(item, str) for item in listed):
        raise RuleFileError(f"{where}: endpoint group {name!r}: expected a list of 'METHOD /path' strings")
    documented = data.get("documented", True)
    if not isinstance(documented, bool):
        raise RuleFileError(f"{where}: endpoint group {name!r}: documented must be true or false")
    title = data.get("title", "")
    if not isinstance(title, str):
        raise RuleFileError(f"{where}: endpoint group {name!r}: title must be a string")
    patterns = []
    for text in listed:
        try:
            patterns.append(EndpointPattern.parse(text))
        except ValueError as error:
            raise RuleFileError(f"{where}: endpoint group {name!r}: {text!r}: {error}") from None
    return EndpointGroup(name, tuple(patterns), documented, where, " ".join(title.split()))


def _rule(document: Sourced, groups: Mapping[str, EndpointGroup], shapes: Mapping[str, Shape]) -> Rule:
    data = document.data
    where = document.source
    if not isinstance(data, Mapping):
        raise RuleFileError(f"{where}: a rule is a mapping with keys {', '.join(sorted(REQUIRED_RULE_KEYS))}")
    rule_id = data.get("id")
    label = f"rule {rule_id!r}" if isinstance(rule_id, str) else "rule"
    unknown = set(data) - RULE_KEYS
    if unknown:
        raise RuleFileError(f"{where}: {label}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    missing = REQUIRED_RULE_KEYS - set(data)
    if missing:
        raise RuleFileError(f"{where}: {label}: missing key(s) {', '.join(sorted(missing))}")
    if not isinstance(rule_id, str) or not RULE_ID.fullmatch(rule_id):
        raise RuleFileError(
            f"{where}: rule id: expected dotted lower-case words like a.b-c, found {rule_id!r}"
        )
    severity = data["severity"]
    if severity not in SEVERITIES:
        raise RuleFileError(
            f"{where}: {label}: severity must be one of {', '.join(SEVERITIES)}, found {severity!r}"
        )
    for key in ("section", "message"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(f"{where}: {label}: {key} must be a non-empty string")
    for key in ("description", "example"):
        if not isinstance(data.get(key, ""), str):
            raise RuleFileError(f"{where}: {label}: {key} must be a string")
    _check_template(data["message"], f"{where}: {label}")
    responses = data.get("responses", "success")
    if responses not in RESPONSES:
        raise RuleFileError(
            f"{where}: {label}: responses must be one of {', '.join(RESPONSES)}, found {responses!r}"
        )
    applies_to = data["applies_to"]
    if not isinstance(applies_to, list) or not applies_to:
        raise RuleFileError(f"{where}: {label}: applies_to must be a non-empty list")
    for target in applies_to:
        _check_target(target, groups, f"{where}: {label}")
    check_name = data["check"]
    spec = CHECKS.get(check_name) if isinstance(check_name, str) else None
    if spec is None:
        raise RuleFileError(
            f"{where}: {label}: unknown check {check_name!r}; known: {', '.join(sorted(CHECKS))}"
        )
    params = data.get("params") or {}
    problem = _params_problem(spec, params)
    if problem is not None:
        raise RuleFileError(f"{where}: {label}: check {check_name} params: {problem}")
    if "shape" in params:
        shape = shapes.get(params["shape"])
        if shape is None:
            raise RuleFileError(
                f"{where}: {label}: unknown shape {params['shape']!r}; known: {', '.join(sorted(shapes))}"
            )
        if "part" in params and params["part"] not in shape.parts:
            raise RuleFileError(
                f"{where}: {label}: shape {shape.name!r} has no part {params['part']!r}; "
                f"its parts: {', '.join(sorted(shape.parts))}"
            )
    return Rule(
        id=rule_id,
        severity=severity,
        section=data["section"].strip(),
        message=data["message"].strip(),
        applies_to=tuple(applies_to),
        check=check_name,
        params=dict(params),
        responses=responses,
        source=where,
        description=" ".join(data.get("description", "").split()),
        example=data.get("example", "").strip(),
    )


_PARAMETER_CHECKS: dict[str, tuple[Mapping[str, Any], Any]] = {}  # check name: (its schema, compiled)


def _params_problem(spec: CheckSpec, params: Any) -> str | None:
    """`place: message` of what is wrong with a rule's params, or None. jsonschema-rs (compiled once a
    check) passes good params; jsonschema, imported only then, judges the rest and words the error."""
    known = _PARAMETER_CHECKS.get(spec.name)
    if known is None or known[0] is not spec.parameters:
        known = _PARAMETER_CHECKS[spec.name] = (
            spec.parameters,
            jsonschema_rs.validator_for(dict(spec.parameters), offline=True),
        )
    try:
        if known[1].is_valid(params):
            return None
    except ValueError:  # a value the Rust side refuses to convert: jsonschema decides
        pass
    import jsonschema
    from jsonschema.exceptions import best_match

    problem = best_match(jsonschema.Draft202012Validator(spec.parameters).iter_errors(params))
    if problem is None:
        return None
    return f"{'.'.join(map(str, problem.absolute_path)) or 'params'}: {problem.message}"


def _check_template(message: str, where: str) -> None:
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(message) if name is not None}
    except ValueError as error:
        raise RuleFileError(f"{where}: message template: {error}") from None
    unknown = names - PLACEHOLDERS
    if unknown:
        raise RuleFileError(
            f"{where}: message template: unknown placeholder(s) {', '.join(sorted(unknown))}; "
            f"use {{where}}, {{expected}}, {{found}}"
        )


def _check_target(target: Any, groups: Mapping[str, EndpointGroup], where: str) -> None:
    if not isinstance(target, str):
        raise RuleFileError(f"{where}: applies_to: expected strings, found {target!r}")
    if target in (EVERY_EXCHANGE, DOCUMENTED, UNDOCUMENTED) or target in groups:
        return
    if " " in target:
        try:
            EndpointPattern.parse(target)
            return
        except ValueError as error:
            raise RuleFileError(f"{where}: applies_to {target!r}: {error}") from None
    known = ", ".join([EVERY_EXCHANGE, DOCUMENTED, UNDOCUMENTED, *sorted(groups)])
    raise RuleFileError(f"{where}: applies_to: unknown endpoint group {target!r}; known: {known}")


def _overlap(first: EndpointPattern, second: EndpointPattern) -> bool:
    """Whether two endpoint patterns can match one request: the methods agree (or one is `*`) and each
    template, its parameters filled in, is matched by the other or they are the same template."""
    if "*" not in (first.method, second.method) and first.method != second.method:
        return False
    filled = [re.sub(r"\{[^}]+\}", "x", pattern.template) for pattern in (first, second)]
    return (
        first.regex.fullmatch(filled[1]) is not None
        or second.regex.fullmatch(filled[0]) is not None
        or filled[0] == filled[1]
    )
