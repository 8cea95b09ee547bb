"""Exchanges read from other tools' files (HAR, mitmproxy flows) gathered into one cassette.

A cassette holds one service's traffic, while a browser HAR or a forward proxy's flows hold many sites'.
So one origin is chosen (the only one, or the one asked for) and the others are counted, not mixed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from proxy.core.cassette.document import Cassette
from proxy.core.model.domain import refuse_outside
from proxy.core.model.exchange import Exchange
from proxy.core.model.links import origin_of
from proxy.errors import CassetteFormatError, SettingError


@dataclass(frozen=True, slots=True)
class Imported:
    """One exchange from a foreign file and the origin (scheme://host[:port]) it was sent to."""

    origin: str
    exchange: Exchange


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The cassette built, and how many exchanges were left out because they went elsewhere."""

    cassette: Cassette
    other_origins: dict[str, int]


def assemble(
    items: Iterable[Imported], source: str, wanted: str | None = None, now: float | None = None
) -> ImportResult:
    """The exchanges of one origin as a cassette, in file order.

    `wanted` (an origin, maybe with a base path such as `https://gateway/commerce`) picks the origin
    and strips the base path from request paths; without it the file must hold exactly one origin.
    """
    collected = list(items)
    for position, item in enumerate(collected):  # `now`: a recording after it cannot load
        refuse_outside(item.exchange, now, source, position)
    counts = Counter(item.origin for item in collected)
    if wanted is not None:
        origin = origin_of(wanted)
        base = urlsplit(wanted).path.rstrip("/")
        if origin not in counts:
            found = ", ".join(sorted(counts)) or "none"
            raise CassetteFormatError(f"{source}: no exchanges with {origin} (origins in the file: {found})")
    elif len(counts) > 1:
        listed = ", ".join(f"{name} ({count})" for name, count in counts.most_common())
        raise SettingError(
            "origin", f"{source} has exchanges with {len(counts)} origins ({listed}): pick one"
        )
    elif not counts:
        raise CassetteFormatError(f"{source}: no HTTP exchanges with a response in the file")
    else:
        origin, base = next(iter(counts)), ""
    kept = []
    for item in collected:
        if item.origin != origin:
            continue
        exchange = item.exchange
        path = exchange.request.path
        if base and (path == base or path.startswith(base + "/")):
            path = path[len(base) :] or "/"
            exchange = replace(exchange, request=replace(exchange.request, path=path))
        kept.append(exchange)
    others = {name: count for name, count in counts.items() if name != origin}
    return ImportResult(Cassette(tuple(kept), origin + base), others)
