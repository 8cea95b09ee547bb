"""Two answers to one request compared by meaning, each difference in a tier.

- breaking: the status class changed, a recorded field is missing, a value changed type, the list
  envelope or the ETag's form changed, the content type changed;
- additive: a field the recorded answer lacks (the service promises new fields are compatible);
- data: the same field and type with another value;
- volatile: what changes on every call by the API's nature: timestamps, `Date`, `etag_id` and its ETag
  while they agree, a token's `expires`, a `lower_bound` total at the documented cap, the id of what a
  request created, and an exchange's own recording time and duration.

Each difference names its place with one dotted path: `status`, `headers.Content-Type`,
`json.data[0].attributes.name`, and its kind (`Kind`); a side the answer lacks is `ABSENT` (a JSON
`null` is None), so a report can tell a missing field from a null one. A link that differs only in
origin (the same service at another address) is no difference at all (`origins.py`), and a difference
shows the live value as the service sent it. Pure: values in, differences out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, get_args

from proxy.core.drift.origins import SAME, Origins
from proxy.core.model.exchange import Body, Exchange, Response, header_value

Tier = Literal["breaking", "additive", "data", "volatile"]
TIERS: tuple[Tier, ...] = ("breaking", "additive", "data", "volatile")
# What kind of difference it is, named where it is found, so that whatever judges differences (the
# specs: `proxy.core.contract.drift_tiers`) is given each kind by name and must say what it does with
# every one: the status, a header, a body that is not JSON on both sides, a JSON field removed or added,
# a JSON value of the same type changed, of another type (the whole body too), a list's length (items
# on one side only), and the exchange's own recording time and duration.
Kind = Literal["status", "header", "body", "removed", "added", "changed", "retyped", "length", "recording"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# Field names whose values change on every call whatever the data: the service's clocks.
VOLATILE_FIELDS = frozenset({"created_at", "updated_at", "expires", "timestamp", "date"})
LOWER_BOUND_CAP = 10_000  # the documented cap of a lower_bound total


class _Absent:
    """The value of a side that lacks the field or header: not JSON's `null`, which is a value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Final = _Absent()


@dataclass(frozen=True, slots=True)
class Difference:
    """One place where the two answers differ, and how much it matters; `recorded` or `live` is
    `ABSENT` where that answer lacks the place."""

    tier: Tier
    where: str
    recorded: Any
    live: Any
    source: str | None = None  # the spec's place that decided the tier (`file#pointer`), when one did
    kind: Kind = field(kw_only=True)

    def to_json(self, recorded: str = "recorded", live: str = "live") -> dict[str, Any]:
        """Its JSON item: an absent side has no key (`null` is a value the answer holds); `source`
        only when a spec decided the tier."""
        document: dict[str, Any] = {"tier": self.tier, "where": self.where}
        for name, value in ((recorded, self.recorded), (live, self.live)):
            if value is not ABSENT:
                document[name] = value
        if self.source is not None:
            document["source"] = self.source
        return document


class Tiering(Protocol):
    """What tiers differences by a published spec where it decides (`proxy.core.contract.drift_tiers`):
    the differences of one exchange, every kind, given back re-tiered where the spec says, with their
    source."""

    def __call__(self, recorded: Exchange, live: Exchange, found: list[Difference]) -> list[Difference]: ...


def compare_exchanges(
    recorded: Exchange, live: Exchange, origins: Origins = SAME, tiering: Tiering | None = None
) -> list[Difference]:
    """The answers compared, then the exchange's own recording time and duration (always volatile);
    the live answer's links at `origins.live` are read as at `origins.recorded`, and shown as sent.
    `tiering`: the published specs, which tier a difference they decide (`verify`, `cassette diff`)."""
    found = compare_responses(recorded.response, live.response, _creates(recorded), origins)
    for where, old, new in (
        ("recorded_at", recorded.recorded_at, live.recorded_at),
        ("duration_ms", recorded.duration_ms, live.duration_ms),
    ):
        if old != new:
            found.append(Difference("volatile", where, old, new, kind="recording"))
    return found if tiering is None else tiering(recorded, live, found)


def compare_responses(
    recorded: Response, live: Response, created: bool = False, origins: Origins = SAME
) -> list[Difference]:
    """Every difference between two answers; `created`: the request made a resource, whose generated
    id is volatile; `origins`: where each answer came from, so a link that only moved is none."""
    found: list[Difference] = []
    if recorded.status != live.status:
        tier: Tier = "breaking" if recorded.status // 100 != live.status // 100 else "data"
        found.append(Difference(tier, "status", recorded.status, live.status, kind="status"))
    found.extend(_header_differences(recorded, live))
    found.extend(_body_differences(recorded, live, created, origins))
    return found


def is_drift(differences: Iterable[Difference]) -> bool:
    """Whether anything but volatile values differs."""
    return any(difference.tier != "volatile" for difference in differences)


def tier_counts(differences: Iterable[Difference]) -> dict[Tier, int]:
    """How many differences of each tier, every tier present."""
    counted = dict.fromkeys(TIERS, 0)
    for difference in differences:
        counted[difference.tier] += 1
    return counted


def _creates(exchange: Exchange) -> bool:
    return exchange.request.method.upper() == "POST" and exchange.response.status == 201


def _media_type(response: Response) -> str | None:
    value = header_value(response.headers, "Content-Type")
    return value.split(";", 1)[0].strip().lower() if value is not None else None


def _header_differences(recorded: Response, live: Response) -> Iterator[Difference]:
    old_type, new_type = _media_type(recorded), _media_type(live)
    if old_type != new_type:
        yield Difference(
            "breaking", "headers.Content-Type", _present(old_type), _present(new_type), kind="header"
        )
    old_tag = header_value(recorded.headers, "ETag")
    new_tag = header_value(live.headers, "ETag")
    if old_tag != new_tag:
        yield _etag_difference(old_tag, new_tag, live)
    old_date, new_date = header_value(recorded.headers, "Date"), header_value(live.headers, "Date")
    if old_date != new_date:
        yield Difference("volatile", "headers.Date", _present(old_date), _present(new_date), kind="header")


def _present(value: str | None) -> Any:
    """A header's value, or ABSENT when the answer has none."""
    return ABSENT if value is None else value


def _etag_difference(old: str | None, new: str | None, live: Response) -> Difference:
    """A changed ETag is breaking when its form changed (present, weak), volatile when it still agrees
    with the live etag_id (the version moved, as documented), and data otherwise."""
    if old is None or new is None or old.startswith("W/") != new.startswith("W/"):
        return Difference("breaking", "headers.ETag", _present(old), _present(new), kind="header")
    etag_id = _dig(live.body.value if live.body.kind == "json" else None, ("data", "meta", "etag_id"))
    agrees = isinstance(etag_id, str) and new.removeprefix("W/").strip('"') == etag_id
    return Difference("volatile" if agrees else "data", "headers.ETag", old, new, kind="header")


def _dig(document: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document


def _body_differences(
    recorded: Response, live: Response, created: bool, origins: Origins
) -> Iterator[Difference]:
    old, new = recorded.body, live.body
    if old.kind == "json" and new.kind == "json":
        context = _Context(old.value, new.value, created, origins)
        yield from _json_differences("json", old.value, new.value, context)
        return
    if old.kind != new.kind:
        yield Difference("breaking", "body", _shown(old), _shown(new), kind="body")
    elif old.value != new.value and not (
        new.kind == "text" and isinstance(new.value, str) and origins.text(new.value) == old.value
    ):
        yield Difference("data", "body", _shown(old), _shown(new), kind="body")


def _shown(body: Body) -> Any:
    return body.value if body.kind in ("json", "text") else f"<{body.kind}>"


@dataclass(frozen=True, slots=True)
class _Context:
    """What decides volatility beyond a field's own name: the documents' total methods and whether
    the request created the resource."""

    recorded: Any
    live: Any
    created: bool
    origins: Origins = SAME

    def lower_bound_cap(self, old: Any, new: Any) -> bool:
        methods = {
            _dig(document, ("meta", "results", "total_method")) for document in (self.recorded, self.live)
        }
        return methods == {"lower_bound"} and LOWER_BOUND_CAP in (old, new)


def _json_differences(where: str, old: Any, new: Any, context: _Context) -> Iterator[Difference]:
    if old == new and type(old) is type(new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in old.items():
            place = f"{where}.{key}"
            if key not in new:
                yield Difference("breaking", place, value, ABSENT, kind="removed")
            else:
                yield from _json_differences(place, value, new[key], context)
        for key, value in new.items():
            if key not in old:
                yield Difference("additive", f"{where}.{key}", ABSENT, value, kind="added")
        return
    if isinstance(old, list) and isinstance(new, list):
        for index, (one, two) in enumerate(zip(old, new, strict=False)):
            yield from _json_differences(f"{where}[{index}]", one, two, context)
        if len(old) != len(new):
            yield Difference("data", f"{where}.length", len(old), len(new), kind="length")
        return
    kind_old, kind_new = _json_type(old), _json_type(new)
    if kind_old != kind_new:
        # An optional value set or removed (null) is data; any other change of type breaks readers.
        tier: Tier = "data" if "null" in (kind_old, kind_new) else "breaking"
        yield Difference(tier, where, old, new, kind="retyped")
        return
    if kind_new == "string" and context.origins.link(new) == old:
        return  # a link that only moved origin
    tier = "volatile" if _volatile(where, old, new, context) else "data"
    yield Difference(tier, where, old, new, kind="changed")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "other"


def _volatile(where: str, old: Any, new: Any, context: _Context) -> bool:
    field = where.rsplit(".", 1)[-1].split("[", 1)[0]
    if field in VOLATILE_FIELDS or field == "etag_id":
        return True
    if where == "json.meta.results.total":
        return context.lower_bound_cap(old, new)
    return context.created and where in ("json.data.id", "json.id")
