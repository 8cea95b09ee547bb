"""What redaction hides: the placeholder, the default secret names, the policy (and its `redact` table
in the project config), and the cheap tests that say where in a body a named secret may stand.

Pure: shared by redaction (`proxy.core.redaction.redact`) and echo scrubbing (`proxy.core.redaction.echoes`).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote, unquote_plus

from proxy.core.model.bodies import dump_json
from proxy.core.model.exchange import Body, source_text
from proxy.core.redaction.decoding import View, decoded_view
from proxy.errors import RuleFileError

PLACEHOLDER = "<redacted>"

DEFAULT_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "apikey",
        "x-auth-token",
        "x-moltin-secret-key",
    }
)
# Any header whose name has one of these words carries a credential, listed or not (X-Access-Token,
# X-Amz-Security-Token, Ocp-Apim-Subscription-Key, X-Session-Token, X-Client-Secret...).
CREDENTIAL_HEADER = re.compile(
    r"(?:^|[-_.])(?:token|secret|password|passwd|credentials?|session|signature|auth"
    r"|api[-_]?key|access[-_]?key|subscription[-_]?key|secret[-_]?key)(?:[-_.]|$)"
)


# Standard headers whose names hold a credential's word but whose values are flags a client acts on:
# redacted, `Access-Control-Allow-Credentials: true` stops a browser client's replay from working.
NOT_CREDENTIALS = frozenset({"access-control-allow-credentials"})


def credential_header(name: str, named: frozenset[str]) -> bool:
    """Whether a header (lower-cased name) carries a credential: named by the policy, or by its words."""
    if name in named:
        return True
    return name not in NOT_CREDENTIALS and CREDENTIAL_HEADER.search(name) is not None


def may_be_secret(value: object) -> bool:
    """Whether a named JSON value can hold a secret: not null, a boolean or an empty string. Those are
    kept as they are: a placeholder in their place would change what a client does with them (a
    `false` that turns into a truthy string)."""
    return value is not None and not isinstance(value, bool) and value != ""


# Names whose value is a credential wherever a value is named: a form field (POST /oauth/access_token
# and any other form), a JSON key in any body (the token answer's, a customer token's `token`), a query
# parameter. One list for the three: a secret does not stop being one as it moves from a form to a URL.
SECRET_VALUE_NAMES = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "password",
        "api_key",
        "apikey",
        "token",
        "secret",
        "secret_key",
    }
)
DEFAULT_FORM_FIELDS = SECRET_VALUE_NAMES
DEFAULT_JSON_KEYS = SECRET_VALUE_NAMES
DEFAULT_QUERY = SECRET_VALUE_NAMES
# A structured parameter name holds its parts between brackets or after dots (`api_key[]`,
# `user[password]`, `auth.token`): one part that is a redacted name names a secret.
NAME_PARTS = re.compile(r"[\[\].]+")
STRUCTURED_KEYS = ('"{}[', "[{}]", '.{}"', '"{}.', ".{}.", ".{}[")  # a name as a part of a JSON key


def is_secret_name(name: str, names: frozenset[str]) -> bool:
    """Whether a decoded, lower-cased parameter, field or key name is one of `names`, or a structured
    name with one of them as a part (`api_key[]`, `api_key[0]`, `user[password]`, `auth.token`)."""
    if name in names:
        return True
    return ("[" in name or "." in name) and any(part in names for part in NAME_PARTS.split(name))


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """What to redact. Names are matched without regard to case; JSON paths are dotted key paths."""

    headers: frozenset[str] = DEFAULT_HEADERS
    query: frozenset[str] = DEFAULT_QUERY
    form_fields: frozenset[str] = DEFAULT_FORM_FIELDS
    json_keys: frozenset[str] = DEFAULT_JSON_KEYS
    json_paths: frozenset[tuple[str, ...]] = field(default_factory=frozenset)

    def extended(
        self,
        headers: Iterable[str] = (),
        query: Iterable[str] = (),
        form_fields: Iterable[str] = (),
        json_paths: Iterable[str] = (),
    ) -> RedactionPolicy:
        """This policy plus more names (JSON paths given dotted: `data.attributes.email`)."""
        return replace(
            self,
            headers=self.headers | {name.lower() for name in headers},
            query=self.query | {name.lower() for name in query},
            form_fields=self.form_fields | {name.lower() for name in form_fields},
            json_paths=self.json_paths | {tuple(path.split(".")) for path in json_paths},
        )


REDACT_SETTINGS = {"headers": "headers", "query": "query", "form": "form_fields", "json_paths": "json_paths"}


def configured_policy(document: Any, source: str) -> RedactionPolicy:
    """The default policy plus the `redact` table of the project config (lists of names/paths)."""
    if document is None:
        return RedactionPolicy()
    lists = name_lists(document, "redact", tuple(REDACT_SETTINGS), source)
    return RedactionPolicy().extended(**{REDACT_SETTINGS[key]: value for key, value in lists.items()})


def name_lists(document: Any, table: str, keys: tuple[str, ...], source: str) -> dict[str, list[str]]:
    """A config table whose settings are lists of names (`redact`, `match`): each key's list, empty
    when absent; anything else is refused, naming the table and the setting."""
    if not isinstance(document, Mapping):
        raise RuleFileError(f"{source}: {table}: expected a table with {', '.join(keys)}")
    unknown = set(document) - set(keys)
    if unknown:
        raise RuleFileError(
            f"{source}: {table}: unknown setting(s) {', '.join(sorted(map(str, unknown)))}; "
            f"known: {', '.join(keys)}"
        )
    lists: dict[str, list[str]] = {}
    for key in keys:
        value = document.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise RuleFileError(f"{source}: {table}.{key}: expected a list of names, found {value!r}")
        lists[key] = value
    return lists


# Walking a JSON document in Python costs about 40 times encoding it in C, so a body is first looked at as
# text: a key the policy names must appear in it quoted, a secret value as it is. Either test may say
# "maybe" (then the document is walked); neither says "no" when the walk would find something.


def json_text(body: Body) -> str:
    """The body as JSON text with no escapes but those a quote, a backslash and a control character
    need: the text it came in when that has no backslash at all (so no `\\u0061`), else encoded anew."""
    text = source_text(body)
    if text is not None and "\\" not in text:
        return text
    return dump_json(body.value).decode("utf-8")


@functools.lru_cache(maxsize=16)
def _quoted_names(policy: RedactionPolicy) -> tuple[tuple[str, str | None], ...]:
    """Each key the policy redacts (a key or the last part of a path), lower case, quoted as in JSON;
    beside it the name itself when it stands unescaped inside the quotes and is one of `secret_names`
    (so a text without the name cannot hold the quoted key), else None."""
    names = policy.json_keys | {path[-1].lower() for path in policy.json_paths if path}
    quoted = ((name, f'"{json.dumps(name, ensure_ascii=False)[1:-1]}"') for name in sorted(names))
    searched = secret_names(policy)
    return tuple((key, name if key == f'"{name}"' and name in searched else None) for name, key in quoted)


def may_name(body: Body, policy: RedactionPolicy) -> bool:
    """Whether a JSON body may hold a key the policy redacts."""
    names = _quoted_names(policy)
    if body.kind != "json" or not names or not isinstance(body.value, dict | list):
        return False
    lowered, present = names_in_json_text(body, policy)
    if any(key in lowered for key, name in names if name is None or name in present):
        return True
    # a key written as a structured name (`"api_key[]"`, `"user[password]"`, `"auth.token"`)
    return any(
        spelled.format(name) in lowered
        for _, name in names
        if name is not None and name in present
        for spelled in STRUCTURED_KEYS
    )


# (body, policy, its JSON text lowered, the `secret_names` in that): `may_name` and then `json_search`
# ask it of the same body in a row, and on a large body the lowering and the searches were most of
# redaction's cost. One entry, replaced whole, so threads sharing it see a whole one or another.
_LAST_SEARCHED: tuple[object, object, str, frozenset[str]] = (None, None, "", frozenset())


def names_in_json_text(body: Body, policy: RedactionPolicy) -> tuple[str, frozenset[str]]:
    """A JSON body's `json_text` in lower case, and which of `secret_names(policy)` stand in it."""
    global _LAST_SEARCHED
    last = _LAST_SEARCHED
    if last[0] is body and last[1] is policy:
        return last[2], last[3]
    lowered = json_text(body).lower()
    present = frozenset(
        name
        for root, inside in name_roots(secret_names(policy))
        if root in lowered
        for name in inside
        if name == root or name in lowered
    )
    _LAST_SEARCHED = (body, policy, lowered, present)
    return lowered, present


def named_parts(parts: list[str], names: frozenset[str]) -> Iterator[tuple[int, str, str]]:
    """(position, raw key, raw value) of each `key=value` part whose decoded key is named."""
    for position, part in enumerate(parts if names else ()):
        key, sep, raw = part.partition("=")
        if not sep or not raw:  # `password=` names nothing to hide, and stays as sent
            continue
        decoded = unquote_plus(key) if "%" in key or "+" in key else key
        if is_secret_name(decoded.lower(), names):
            yield position, key, raw


def text_secret_spans(text: str, policy: RedactionPolicy) -> list[tuple[int, int]]:
    """Where a named secret's value stands in a text body that is not strict JSON or a typed form (a
    token answer with a BOM or a NaN, JSON labelled text/plain or written JSON5-style, a form with no
    Content-Type, a multipart field, a URL in a JSON string or a header): object members
    `"name": value` (the key quoted or not, compared unescaped, so `"\\u0061ccess_token"` is
    `access_token`), `name=value` (the name compared percent-decoded, so `api%5Fkey` is `api_key`) and
    multipart parts (the name read per RFC 7578 and 2231: quoted, with quoted-pairs, `name*=`, spaces
    around `=`), for every name the policy redacts in a body or query. Conservative: a redacted name
    marks its value wherever it is."""
    if ":" not in text and "=" not in text and "%3" not in text and "name" not in text.lower():
        return []  # none of the three searches below would look (most strings of a JSON body)
    names = secret_names(policy)
    if not names or not may_hold_name(text, names):
        return []
    return named_spans(text, names)


def may_hold_name(text: str, names: frozenset[str]) -> bool:
    """False only when no name can stand in the text in any spelling `named_spans` reads: with no
    escape (`\\`, `%`, `&`, `+`) in the text, every key it compares is a piece of the text, lowered; and
    for a name of ASCII letters only a piece whose lowering is the name is in the text lowered. An
    entity's `&` counts only with a quote or a multipart `name`: a pair's key and a bare key hold no
    `&` (a URL's separators, in most JSON strings that have one)."""
    if "\\" in text or "%" in text or "+" in text or not ascii_names(names):
        return True
    lowered = text.lower()
    if "&" in text and ("'" in text or '"' in text or "name" in lowered):
        return True
    return any(root in lowered for root, _ in name_roots(names))


@functools.lru_cache(maxsize=16)
def name_roots(names: frozenset[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each name no other name stands inside (`token` in `access_token`), with the names it stands
    inside, itself included. Every name holds a root, so a text holds a name only if it holds a root:
    one search a root, not a name (each is a pass over the whole text, most of the cost of a large
    body's redaction: `token` and `secret` stand for seven of the ten default names)."""
    roots = sorted(name for name in names if not any(other != name and other in name for other in names))
    return tuple((root, tuple(sorted(name for name in names if root in name))) for root in roots)


@functools.lru_cache(maxsize=16)
def ascii_names(names: frozenset[str]) -> bool:
    return all(name.isascii() for name in names)


def named_spans(text: str, names: frozenset[str]) -> list[tuple[int, int]]:
    """`text_secret_spans` without the pre-scan: every search run."""
    spans: list[tuple[int, int]] = []
    if ":" in text:
        for match in MEMBER.finditer(text):
            group = next(name for name in ("double", "single", "bare") if match.group(name) is not None)
            if match.group(group) not in ("", "null", "true", "false") and is_secret_name(
                _decoded_name(match.group("key")), names
            ):
                spans.append(match.span(group))
    if "=" in text or "%3" in text:
        at = 0
        while (pair := PAIR.search(text, at)) is not None:
            group = "quoted" if pair.group("quoted") is not None else "value"
            if pair.group(group) and is_secret_name(_decoded_name(pair.group("key")), names):
                spans.append(pair.span(group))
                at = pair.end()
            else:  # its value is searched too: a URL there may name one (`url=/x?token=...`)
                at = pair.start(group) if pair.group(group) else pair.end()
    if "name" in text.lower():
        for match in MULTIPART_PART.finditer(text):
            if match.group("value") and any(
                is_secret_name(n, names) for n in _part_names(match.group("line"))
            ):
                spans.append(match.span("value"))
    return sorted(set(spans))


# A member of a JSON or JS object: the key in double or single quotes or bare, the value a string
# (its span inside the quotes) or a bare number or word.
MEMBER = re.compile(
    r"""(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|(?<![\w$])[A-Za-z_$][\w$]*)\s*:\s*"""
    r"""(?:"(?P<double>(?:[^"\\]|\\.)*)"|'(?P<single>(?:[^'\\]|\\.)*)'|(?P<bare>[-+.\w]+))"""
)
# `name=value` in a query, a form or a URL anywhere (a Location, a link in JSON, a Refresh's `url=`); `=`
# may be `%3D`; the value may be quoted (`token="..."` of an auth challenge's parameters).
PAIR = re.compile(
    r"(?:^|(?<=[&?;,\s\"'/#]))(?P<key>[\w.~%+\-\[\]]{1,100})(?:=|%3[dD])"
    r"(?:\"(?P<quoted>[^\"]*)\"|(?P<value>[^&\s\"'<>#;]*))"
)
# A multipart part: a header line naming the field, more header lines, a blank line, the value.
MULTIPART_PART = re.compile(
    r"(?P<line>[^\r\n]*\bname\*?\s*=[^\r\n]*)\r?\n(?:[^\r\n]+\r?\n)*\r?\n(?P<value>.*?)(?=\r?\n--)",
    re.IGNORECASE | re.DOTALL,
)
_PARAMETER = re.compile(
    r"""(?:^|[;\s])name(?P<star>\*?)\s*=\s*(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|'(?P<single>[^']*)'|(?P<token>[^;\s]*))""",
    re.IGNORECASE,
)


def _part_names(line: str) -> set[str]:
    """The field names a multipart part's header line gives, decoded, lower case."""
    found = set()
    for match in _PARAMETER.finditer(line):
        quoted = match.group("quoted")
        value = (
            re.sub(r"\\(.)", r"\1", quoted)
            if quoted is not None
            else match.group("single") or match.group("token") or ""
        )
        if match.group("star"):  # RFC 2231: charset'language'percent-encoded
            value = unquote(value.rsplit("'", 1)[-1], encoding="utf-8", errors="replace")
        found.add(_decoded_name(value))
    return found


def _decoded_name(key: str) -> str:
    """A name as compared with the policy's: unquoted, its escapes (JSON, percent, entities) undone."""
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        key = key[1:-1]
    if "\\" in key or "%" in key or "&" in key or "+" in key:
        key = _lenient(key.replace("+", " ") if "\\" not in key else key)
    return key.lower()


def _lenient(text: str) -> str:
    view: View | None = View(text)
    for _ in range(3):
        decoded = decoded_view(view, "\"'") if view is not None else None
        if decoded is None:
            break
        view = decoded
    return view.text if view is not None else text


@functools.lru_cache(maxsize=16)
@functools.lru_cache(maxsize=16)
def secret_names(policy: RedactionPolicy) -> frozenset[str]:
    """Every name whose value the policy redacts in a body or a query, lower case."""
    last = {path[-1] for path in policy.json_paths if path}
    return frozenset(name.lower() for name in policy.json_keys | policy.form_fields | policy.query | last)


def replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with each span replaced by the placeholder (spans sorted; an overlapping one skipped)."""
    pieces: list[str] = []
    end = 0
    for start, stop in spans:
        if start < end:
            continue
        pieces.extend((text[end:start], PLACEHOLDER))
        end = stop
    pieces.append(text[end:])
    return "".join(pieces)


def body_text(body: Body) -> str:
    """A text or base64 body as text to search: base64 bytes read as Latin-1, one character a byte, so
    a secret in a body that is not UTF-8 (a form with a Latin-1 byte) is still found."""
    if body.kind == "base64":
        return base64.b64decode(str(body.value)).decode("latin-1")
    return str(body.value)


def text_as_body_value(body: Body, text: str) -> str:
    """The stored value of a body of `body`'s kind holding `text` (as `body_text` gave it)."""
    if body.kind == "base64":
        return base64.b64encode(text.encode("latin-1")).decode("ascii")
    return text
