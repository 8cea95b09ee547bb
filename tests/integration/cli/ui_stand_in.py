"""`python -m proxy` with stand-ins for the traffic view and the filter reader (Part A's modules), so the
command line's UI wiring is tested on its own: run as `python ui_stand_in.py ARGS`."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


class StandInView:
    def __init__(self, mode: str, sources: Sequence[str]) -> None:
        self.mode, self.sources = mode, list(sources)

    def info(self) -> dict[str, Any]:
        return {"mode": self.mode, "sources": self.sources, "exchanges": 0, "cursor": 0}

    def close(self) -> None:
        print(f"closed the {self.mode} view", file=sys.stderr, flush=True)


def offline_view(paths: Sequence[Path], in_force: object) -> StandInView:
    assert in_force is not None
    return StandInView("offline", [path.name for path in paths])


def live_view(mode: str, live: object) -> StandInView:
    return StandInView(mode, [])


def parse_query(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    return dict(pairs)


def main() -> int:
    view = types.ModuleType("proxy.app.traffic_view")
    view.offline_view = offline_view  # type: ignore[attr-defined]
    view.live_view = live_view  # type: ignore[attr-defined]
    query = types.ModuleType("proxy.core.ui.query")
    query.parse_query = parse_query  # type: ignore[attr-defined]
    sys.modules.update({"proxy.app.traffic_view": view, "proxy.core.ui.query": query})
    import proxy.app

    proxy.app.traffic_view = view  # type: ignore[attr-defined]
    from proxy.cli.main import main as command_line

    return command_line(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
