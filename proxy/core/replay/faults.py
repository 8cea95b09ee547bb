"""Timing and faults for testing clients: `--latency` and `--fault`, deterministic with a seed.

A fault fires for a share of the requests a matcher selects. Whether it fires depends only on the seed,
the fault's position, the request line and how many times that request line came before, so the same
test suite sees the same faults whatever the interleaving of its concurrent requests.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from urllib.parse import unquote

from proxy.errors import SettingError

FAULT_KINDS = ("429", "500", "503", "drop", "slow")
FAULT_TITLES = {429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}
METHOD = re.compile(r"^[A-Za-z]+$")


@dataclass(frozen=True, slots=True)
class Latency:
    """`--latency recorded|none|MS`: the recorded upstream time, nothing, or a fixed delay."""

    mode: str = "none"
    fixed_ms: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Latency:
        """`recorded`, `none`, or milliseconds (`250`, `250ms`)."""
        cleaned = text.strip().lower()
        if cleaned in ("recorded", "none"):
            return cls(cleaned)
        number = cleaned.removesuffix("ms")
        try:
            value = float(number)
        except ValueError:
            raise SettingError(
                "latency", f"expected recorded, none or milliseconds, found {text!r}"
            ) from None
        if not 0 <= value <= 600_000:
            raise SettingError("latency", f"{text!r} is outside 0 to 600000 ms")
        return cls("fixed", value)

    def seconds(self, recorded_ms: float | None) -> float:
        """How long to wait before answering, given the recording's upstream time (None if unknown)."""
        if self.mode == "fixed":
            return self.fixed_ms / 1000
        if self.mode == "recorded" and recorded_ms:
            return recorded_ms / 1000
        return 0.0


@dataclass(frozen=True, slots=True)
class Fault:
    """One `--fault KIND:SHARE[:MATCHER]`: what happens, to which share of which requests."""

    kind: str
    share: float
    method: str | None
    path_glob: str | None
    text: str

    @property
    def status(self) -> int | None:
        """The status a status fault answers with (None for drop and slow)."""
        return int(self.kind) if self.kind.isdigit() else None

    @classmethod
    def parse(cls, text: str) -> Fault:
        """`503:10%`, `drop:0.05`, `429:100%:GET /v2/orders*`, `slow:1:/v2/extensions/*`."""
        kind, _, rest = text.strip().partition(":")
        share_text, _, matcher = rest.partition(":")
        if kind not in FAULT_KINDS:
            raise SettingError("fault", f"kind must be one of {', '.join(FAULT_KINDS)}, found {kind!r}", text)
        share = _share(share_text, text)
        method: str | None = None
        path_glob: str | None = None
        matcher = matcher.strip()
        if matcher:
            first, _, second = matcher.partition(" ")
            if second:
                if not METHOD.match(first):
                    raise SettingError("fault", "matcher must be 'METHOD /path-glob' or '/path-glob'", text)
                method, path_glob = first.upper(), second.strip()
            else:
                path_glob = first
            if not path_glob.startswith("/"):
                raise SettingError("fault", f"the path glob must start with '/', found {path_glob!r}", text)
        return cls(kind, share, method, path_glob, text.strip())

    def selects(self, method: str, path: str) -> bool:
        """Whether the matcher takes this request (no matcher: every request)."""
        if self.method is not None and self.method != method.upper():
            return False
        return self.path_glob is None or fnmatchcase(unquote(path), self.path_glob)


def _share(text: str, whole: str) -> float:
    cleaned = text.strip()
    try:
        value = float(cleaned.removesuffix("%")) / (100 if cleaned.endswith("%") else 1)
    except ValueError:
        raise SettingError("fault", f"share must be like 0.1 or 10%, found {text!r}", whole) from None
    if not 0 <= value <= 1:
        raise SettingError("fault", f"share must be between 0 and 1 (0% and 100%), found {text!r}", whole)
    return value


@dataclass(slots=True)
class FaultPlan:
    """The faults in the order given (the first that fires wins) and how often each request came."""

    faults: tuple[Fault, ...]
    seed: int = 0
    _seen: dict[tuple[str, str], int] = field(default_factory=dict)

    def decide(self, method: str, target: str, path: str) -> Fault | None:
        """The fault for this request, if one fires; counts the request either way."""
        key = (method.upper(), target)
        occurrence = self._seen.get(key, 0)
        self._seen[key] = occurrence + 1
        for position, fault in enumerate(self.faults):
            if fault.selects(method, path) and _draw(self.seed, position, key, occurrence) < fault.share:
                return fault
        return None

    def reset(self) -> None:
        """Start the count again (with `POST /_proxy/reset`), so a rerun sees the same faults."""
        self._seen.clear()


def _draw(seed: int, position: int, key: tuple[str, str], occurrence: int) -> float:
    """A number in [0, 1) fixed by its inputs."""
    text = f"{seed}\0{position}\0{key[0]}\0{key[1]}\0{occurrence}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64
