"""The selection grammar shared by `cassette grep`, `cassette keep --where` and the pytest plugin.

    EXPR   := TERM | EXPR [and] EXPR | EXPR or EXPR | not EXPR | ( EXPR )
    TERM   := FIELD OP VALUE          e.g.  method=PUT  path~/v2/subscriptions  status>=400  body~"tag"

Terms side by side mean `and`; `and` binds tighter than `or`. A bad expression is one error naming the
column and the token that is wrong. Pure: it reads exchanges and findings it is given.
"""

from __future__ import annotations

import fnmatch
import operator as operator_module
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from proxy.core.model.bodies import dump_json
from proxy.core.model.exchange import Body, Exchange, Headers, JSONValue
from proxy.core.rules.findings import Finding
from proxy.errors import CommerceProxyError

OPERATORS = ("!=", "!~", ">=", "<=", "=", "~", ">", "<")
KEYWORDS = frozenset({"and", "or", "not"})
NUMERIC_FIELDS = frozenset({"index", "status", "duration_ms", "findings", "errors"})
ORDERED_TEXT_FIELDS = frozenset({"recorded_at"})
PLAIN_FIELDS = frozenset(
    {"method", "path", "query", "target", "body", "rule", "recorded_at"} | NUMERIC_FIELDS
)
PREFIXED_FIELDS = ("header.", "req.header.", "resp.header.", "req.json.", "resp.json.")
BODY_FIELDS = frozenset({"req.body", "resp.body"})
FIELDS_HELP = (
    "index, method, path, query, target, status, body, req.body, resp.body, header.NAME, "
    "req.header.NAME, resp.header.NAME, req.json.PATH, resp.json.PATH, recorded_at, duration_ms, "
    "findings, errors, rule"
)
_FIELD_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
_STATUS_CLASS = re.compile(r"[1-5]xx", re.IGNORECASE)


class ExpressionError(CommerceProxyError):
    """A selection expression that cannot be read; the message names the column and the token."""


@dataclass(frozen=True, slots=True)
class Subject:
    """What an expression looks at: an exchange, its 0-based index, and (when asked for) its findings."""

    index: int
    exchange: Exchange
    findings: Sequence[Finding] = ()


Test = Callable[[Subject], bool]


@dataclass(frozen=True, slots=True)
class Selection:
    """A parsed expression: call `matches`; `uses_findings` says whether findings must be worked out."""

    text: str
    test: Test
    uses_findings: bool

    def matches(self, subject: Subject) -> bool:
        return self.test(subject)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "(", ")", "keyword", "term"
    text: str
    column: int  # 1-based
    field: str = ""
    operator: str = ""
    value: str = ""
    value_column: int = 0
    operator_column: int = 0


def parse_selection(text: str) -> Selection:
    """Parse an expression; an `ExpressionError` points at the offending token."""
    tokens = _tokens(text)
    if not tokens:
        raise ExpressionError("empty expression: expected FIELD OP VALUE, e.g. status>=400")
    parser = _Parser(text, tokens)
    test = parser.expression()
    if parser.position < len(tokens):
        token = tokens[parser.position]
        raise _error(token.column, token.text, "unexpected here (an unmatched ')'?)")
    return Selection(text, test, parser.uses_findings)


def _error(column: int, token: str, problem: str) -> ExpressionError:
    return ExpressionError(f"column {column}, {token!r}: {problem}")


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
            continue
        if char in "()":
            tokens.append(_Token(char, char, position + 1))
            position += 1
            continue
        found = _FIELD_NAME.match(text, position)
        if found is None:
            end = _word_end(text, position)
            raise _error(
                position + 1, text[position:end], "expected FIELD OP VALUE, 'and', 'or', 'not' or '('"
            )
        name = found.group()
        after = _skip_spaces(text, found.end())
        operator = next((op for op in OPERATORS if text.startswith(op, after)), None)
        if operator is None:
            if name in KEYWORDS:
                tokens.append(_Token("keyword", name, position + 1))
                position = found.end()
                continue
            end = _word_end(text, position)
            raise _error(
                position + 1,
                text[position:end],
                "expected FIELD OP VALUE with OP one of = != ~ !~ < <= > >=",
            )
        value_start = _skip_spaces(text, after + len(operator))
        value, end = _value(text, value_start)
        tokens.append(
            _Token(
                "term", text[position:end], position + 1, name, operator, value, value_start + 1, after + 1
            )
        )
        position = end
    return tokens


def _skip_spaces(text: str, position: int) -> int:
    while position < len(text) and text[position] == " ":
        position += 1
    return position


def _word_end(text: str, position: int) -> int:
    end = position
    while end < len(text) and not text[end].isspace() and text[end] not in "()":
        end += 1
    return max(end, position + 1)


def _value(text: str, start: int) -> tuple[str, int]:
    """A quoted ("..." or '...', backslash escapes) or bare value, and where it ends."""
    if start < len(text) and text[start] in "\"'":
        quote = text[start]
        chars: list[str] = []
        position = start + 1
        while position < len(text):
            char = text[position]
            if char == "\\" and position + 1 < len(text):
                chars.append(text[position + 1])
                position += 2
                continue
            if char == quote:
                return "".join(chars), position + 1
            chars.append(char)
            position += 1
        raise _error(start + 1, text[start:], f"unterminated {quote}-quoted value")
    end = start
    while end < len(text) and not text[end].isspace() and text[end] != ")":
        end += 1
    if end == start:
        raise _error(start + 1, text[start - 1 : start + 1].strip() or "end", "expected a value")
    return text[start:end], end


class _Parser:
    """Recursive descent over the tokens: or of ands of (not) units."""

    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.position = 0
        self.uses_findings = False

    def _peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def expression(self) -> Test:
        alternatives = [self._conjunction()]
        while (token := self._peek()) is not None and token.kind == "keyword" and token.text == "or":
            self.position += 1
            alternatives.append(self._conjunction())
        if len(alternatives) == 1:
            return alternatives[0]
        return lambda subject: any(test(subject) for test in alternatives)

    def _conjunction(self) -> Test:
        parts = [self._unit()]
        while (token := self._peek()) is not None and not (token.kind == ")" or token.text == "or"):
            if token.kind == "keyword" and token.text == "and":
                self.position += 1
            parts.append(self._unit())
        if len(parts) == 1:
            return parts[0]
        return lambda subject: all(test(subject) for test in parts)

    def _unit(self) -> Test:
        token = self._peek()
        if token is None:
            end = len(self.text) + 1
            raise _error(end, "end", "the expression stops where a term was expected")
        self.position += 1
        if token.kind == "keyword":
            if token.text != "not":
                raise _error(token.column, token.text, "expected a term before it")
            inner = self._unit()
            return lambda subject: not inner(subject)
        if token.kind == "(":
            inner = self.expression()
            closing = self._peek()
            if closing is None or closing.kind != ")":
                raise _error(token.column, "(", "no matching ')'")
            self.position += 1
            return inner
        if token.kind == ")":
            raise _error(token.column, ")", "no matching '('")
        return self._term(token)

    def _term(self, token: _Token) -> Test:
        field, operator, value = token.field, token.operator, token.value
        known = field in PLAIN_FIELDS or field in BODY_FIELDS or field.startswith(PREFIXED_FIELDS)
        if not known or field in {"header.", *PREFIXED_FIELDS}:
            raise _error(token.column, field, f"unknown field; fields are {FIELDS_HELP}")
        if field in {"findings", "errors", "rule"}:
            self.uses_findings = True
        read = _reader(field)
        if operator in ("~", "!~"):
            try:
                pattern = re.compile(value)
            except re.error as error:
                raise _error(token.value_column, value, f"not a regular expression: {error}") from None
            found: Test = lambda subject: any(pattern.search(text) for text in _texts(read(subject)))  # noqa: E731
            return found if operator == "~" else (lambda subject: not found(subject))
        if operator in ("<", "<=", ">", ">="):
            return self._ordering(token, read)
        equal = self._equality(token, read)
        return equal if operator == "=" else (lambda subject: not equal(subject))

    def _ordering(self, token: _Token, read: Callable[[Subject], object]) -> Test:
        field, operator, value = token.field, token.operator, token.value
        compare: Callable[[Any, Any], bool] = {
            "<": operator_module.lt,
            "<=": operator_module.le,
            ">": operator_module.gt,
            ">=": operator_module.ge,
        }[operator]
        if field in ORDERED_TEXT_FIELDS:
            return lambda subject: any(compare(text, value) for text in _texts(read(subject)))
        if field not in NUMERIC_FIELDS and not field.startswith(("req.json.", "resp.json.")):
            raise _error(token.operator_column, operator, f"{field} is text: use = != ~ !~")
        number = _number(value)
        if number is None:
            raise _error(token.value_column, value, f"{field} {operator} needs a number")

        def ordered(subject: Subject) -> bool:
            found = read(subject)
            return isinstance(found, int | float) and not isinstance(found, bool) and compare(found, number)

        return ordered

    def _equality(self, token: _Token, read: Callable[[Subject], object]) -> Test:
        field, value = token.field, token.value
        if field == "status" and _STATUS_CLASS.fullmatch(value):
            klass = int(value[0])
            return lambda subject: subject.exchange.response.status // 100 == klass
        if field in NUMERIC_FIELDS:
            number = _number(value)
            if number is None:
                hint = " or a class such as 4xx" if field == "status" else ""
                raise _error(token.value_column, value, f"{field} needs a number{hint}")
            return lambda subject: read(subject) == number
        if field == "method":
            value = value.upper()
        if "*" in value or "?" in value:
            return lambda subject: any(fnmatch.fnmatchcase(text, value) for text in _texts(read(subject)))
        return lambda subject: value in _texts(read(subject))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _texts(found: object) -> list[str]:
    """A field's value(s) as text for = and ~; a missing field has none, so it matches nothing."""
    if found is None:
        return []
    if isinstance(found, list | tuple):
        return [text for item in found for text in _texts(item)]
    if isinstance(found, str):
        return [found]
    if isinstance(found, bool):
        return ["true" if found else "false"]
    if isinstance(found, int | float):
        return [f"{found:g}" if isinstance(found, float) and found.is_integer() else str(found)]
    return [dump_json(found).decode("utf-8")]


def body_text(body: Body) -> str | None:
    """A body as one searchable text: compact JSON, text, or base64; None when empty."""
    if body.kind == "empty":
        return None
    if body.kind == "json":
        return dump_json(body.value).decode("utf-8")
    return str(body.value)


def json_at(value: JSONValue, path: str) -> JSONValue:
    """The value at a dotted path (`data.attributes.name`, list items by number); None when absent."""
    for part in path.split("."):
        if isinstance(value, dict):
            if part not in value:
                return None
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _header_values(headers: Headers, name: str) -> list[str]:
    wanted = name.lower()
    return [value for key, value in headers if key.lower() == wanted]


def _reader(field: str) -> Callable[[Subject], object]:
    """How to read one field of a subject."""
    simple: dict[str, Callable[[Subject], object]] = {
        "index": lambda s: s.index,
        "method": lambda s: s.exchange.request.method,
        "path": lambda s: s.exchange.request.path,
        "query": lambda s: s.exchange.request.query,
        "target": lambda s: s.exchange.request.target,
        "status": lambda s: s.exchange.response.status,
        "recorded_at": lambda s: s.exchange.recorded_at,
        "duration_ms": lambda s: s.exchange.duration_ms,
        "findings": lambda s: len(s.findings),
        "errors": lambda s: sum(1 for finding in s.findings if finding.severity == "error"),
        "rule": lambda s: [finding.rule for finding in s.findings],
        "body": lambda s: [body_text(s.exchange.request.body), body_text(s.exchange.response.body)],
        "req.body": lambda s: body_text(s.exchange.request.body),
        "resp.body": lambda s: body_text(s.exchange.response.body),
    }
    if field in simple:
        return simple[field]
    side, _, rest = field.partition(".")
    if field.startswith("header."):
        name = field[len("header.") :]
        return lambda s: (
            _header_values(s.exchange.request.headers, name)
            + _header_values(s.exchange.response.headers, name)
        )
    if rest.startswith("header."):
        name = rest[len("header.") :]
        if side == "req":
            return lambda s: _header_values(s.exchange.request.headers, name)
        return lambda s: _header_values(s.exchange.response.headers, name)
    path = rest[len("json.") :]
    if side == "req":
        return lambda s: _json_of(s.exchange.request.body, path)
    return lambda s: _json_of(s.exchange.response.body, path)


def _json_of(body: Body, path: str) -> JSONValue:
    return json_at(body.value, path) if body.kind == "json" else None
