"""The filter of the UI's list, as the page's URL and the JSON API spell it: one parameter a field, all
optional, every one given narrowing the list. Parsed once here, so the index compiles a checked value
and a bad parameter is one line naming it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields

from proxy.core.rules.findings import SEVERITIES, Severity
from proxy.errors import UsageError

PARAMETERS = ("method", "status", "path", "endpoint", "rule", "severity", "has_findings", "cassette", "text")
TEXT_SHORTEST = 3  # body text is searched by its substrings of three characters (trigrams)
LONGEST = 2000  # characters in one parameter's value
_METHOD = re.compile(r"[A-Za-z]{1,20}")
_STATUS = re.compile(r"([1-5])xx|([1-5][0-9][0-9])")


class QueryError(UsageError):
    """A filter parameter the UI cannot use: one line naming it (the API answers 400 with it)."""


@dataclass(frozen=True, slots=True)
class Query:
    """Which exchanges a list shows. `status`: a class ("2xx") or one status ("404"); `path`: a glob
    over the path without its query (`*` any run of characters, `?` one; nothing else is special);
    `endpoint`: the operation as the rules name it; `rule`/`severity`: exchanges with a finding of
    that rule / at least one of that severity; `text`: a substring of a body, case-insensitive."""

    method: str | None = None
    status: str | None = None
    path: str | None = None
    endpoint: str | None = None
    rule: str | None = None
    severity: Severity | None = None
    has_findings: bool | None = None
    cassette: str | None = None
    text: str | None = None

    def to_pairs(self) -> list[tuple[str, str]]:
        """The parameters that give this query back through `parse_query`, in a fixed order."""
        pairs: list[tuple[str, str]] = []
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            pairs.append((field.name, ("true" if value else "false") if isinstance(value, bool) else value))
        return pairs

    @property
    def status_range(self) -> tuple[int, int] | None:
        """The statuses `status` covers, both ends included."""
        if self.status is None:
            return None
        if self.status.endswith("xx"):
            low = int(self.status[0]) * 100
            return low, low + 99
        return int(self.status), int(self.status)


def parse_query(pairs: Iterable[tuple[str, str]]) -> Query:
    """The query the parameters ask for (the caller takes its own, offset and limit, out first).
    `QueryError` on a bad value, one given twice, or a parameter no filter has: a script's typo
    (`stauts=404`) would otherwise list everything as if it were the filtered view."""
    given: dict[str, str] = {}
    for name, value in pairs:
        if name not in PARAMETERS:
            raise QueryError(f"unknown parameter {name[:40]!r}: a filter takes {', '.join(PARAMETERS)}")
        if name in given:
            raise QueryError(f"filter parameter {name!r}: given twice; give it once")
        if len(value) > LONGEST:
            raise QueryError(f"filter parameter {name!r}: longer than {LONGEST} characters")
        if "\x00" in value:  # SQLite's text search reads it as the end of the text
            raise QueryError(f"filter parameter {name!r}: holds a NUL character, which nothing can match")
        given[name] = value
    values: dict[str, object] = {}
    for name, value in given.items():
        if value == "":
            continue  # an empty field of the page's form: no filter
        values[name] = _PARSERS[name](value)
    return Query(**values)  # type: ignore[arg-type]


def _method(value: str) -> str:
    if not _METHOD.fullmatch(value):
        raise QueryError(f"filter parameter 'method': expected an HTTP method such as GET, found {value!r}")
    return value.upper()


def _status(value: str) -> str:
    found = _STATUS.fullmatch(value.lower())
    if found is None:
        raise QueryError(
            "filter parameter 'status': expected a class such as 2xx or a status such as 404, "
            f"found {value!r}"
        )
    return value.lower()


def _path(value: str) -> str:
    if not value.startswith(("/", "*")):
        raise QueryError(
            f"filter parameter 'path': expected a path pattern starting with / or *, found {value!r}"
        )
    return value


def _severity(value: str) -> Severity:
    for severity in SEVERITIES:
        if value == severity:
            return severity
    raise QueryError(f"filter parameter 'severity': expected one of error, warning, info, found {value!r}")


def _has_findings(value: str) -> bool:
    # Only the two documented words: a script's `yes` or `1` is refused, not guessed at.
    if value in ("true", "false"):
        return value == "true"
    raise QueryError(f"filter parameter 'has_findings': expected true or false, found {value!r}")


def _text(value: str) -> str:
    if len(value) < TEXT_SHORTEST:
        raise QueryError(
            f"filter parameter 'text': give at least {TEXT_SHORTEST} characters to search bodies for, "
            f"found {value!r}"
        )
    return value


def _as_is(value: str) -> str:
    return value


_PARSERS = {
    "method": _method,
    "status": _status,
    "path": _path,
    "endpoint": _as_is,
    "rule": _as_is,
    "severity": _severity,
    "has_findings": _has_findings,
    "cassette": _as_is,
    "text": _text,
}


def cassette_named(given: str, names: Sequence[str]) -> str:
    """The view's cassette `given` names: as the list and the rows show it (the path as opened), else
    its file name, else that without its last suffix, else without every suffix (`checkout` for
    `cassettes/checkout.yaml`), the closest form first: a cassette that has `given` in a closer form
    wins over those that have it in a farther one (`a` is `d1/a.yaml`'s name less its suffix, and only
    `d2/a.yaml.yaml`'s less both). Two cassettes at the closest form: a 400 naming them; none: a 400."""
    if given in names:
        return given
    if not names:
        raise QueryError(
            f"filter parameter 'cassette': no row of this view names a cassette ({given[:80]!r} asked): "
            "spy's and replay's rows are answers, in no cassette (replay's name the recording that "
            "answered, under `answered`)"
        )
    for form in range(3):
        same = [name for name in names if _short_names(name)[form] == given]
        if len(same) == 1:
            return same[0]
        if same:
            raise QueryError(
                f"filter parameter 'cassette': {given!r} names {len(same)} cassettes; give one of {same}"
            )
    known = ", ".join(names[:10]) or "none"
    raise QueryError(f"filter parameter 'cassette': no cassette {given!r} in this view (it has: {known})")


def rule_named(given: str, rules: Collection[str]) -> str:
    """The rule a `rule` filter names: one of the rules in force (a typo must not read as "no
    findings of it"); else a 400 naming the closest few."""
    if given in rules:
        return given
    close = difflib.get_close_matches(given, sorted(rules), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `commerce-proxy rules` lists them"
    raise QueryError(f"filter parameter 'rule': no rule {given[:80]!r} is in force{hint}")


def _short_names(name: str) -> tuple[str, str, str]:
    """A cassette's file name, that less its last suffix, and less every suffix."""
    file_name = name.rsplit("/", 1)[-1]
    stem = file_name.rsplit(".", 1)[0] if "." in file_name[1:] else file_name
    return file_name, stem, file_name.partition(".")[0]
