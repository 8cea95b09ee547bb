"""The throughput matrix (`scripts/bench --only matrix`): replay against talkback, WireMock and the aiohttp
pass-through, and record against mitmdump's recording, on every workload of workloads.matrix(), with the
throughput part's subjects, checks and wrk runs (throughput.measure). Each workload has its own nginx
upstream; every replay subject replays its own recording of that workload's URLs, and counts only when its
answers read back 2xx and equal to the recording before and after the load. Rounds are interleaved within a
workload; a ratio is the median of same-round ratios. A ratio below its goal is named at the end."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import throughput
from common import median, table
from throughput import Load, Subject, measure, rotation
from upstream import Nginx
from workloads import BASE, Workload, documents, targets

NAMES = {
    "limit": "direct to nginx (the limit)",
    "pass-through": "baseline: aiohttp pass-through + uvloop",
    "replay": "commerce-proxy replay",
    "talkback": "talkback (replay)",
    "WireMock": "WireMock (playback)",
    "record": "commerce-proxy record (recording, checking)",
    "mitmdump -w": "mitmdump reverse -w (recording)",
}
GOALS_TEXT = (
    "replay >= 1.3x talkback at the base workload's 16 and 64 connections and >= 1.0x in every cell; "
    "record >= 6x mitmdump -w in every cell"
)


@dataclass
class Group:
    """One workload's subjects and, per round, each subject's requests/s per connection count."""

    workload: Workload
    subjects: dict[str, Subject]
    rounds: list[dict[str, dict[int, float]]] = field(default_factory=list)

    def counted(self, key: str) -> bool:
        subject = self.subjects[key]
        return not (subject.failed and subject.role == "replay") and bool(subject.figures)

    def rate(self, key: str, count: int) -> float | None:
        figures = self.subjects[key].figures.get(count, [])
        return (
            median([figure.requests_per_s for figure in figures]) if self.counted(key) and figures else None
        )

    def ratio(self, key: str, against: str, count: int) -> float | None:
        """The median of same-round ratios; None when either side has no counted figure."""
        if not (self.counted(key) and self.counted(against)):
            return None
        ratios = [
            rates[key][count] / rates[against][count]
            for rates in self.rounds
            if count in rates.get(key, {}) and count in rates.get(against, {})
        ]
        return median(ratios) if ratios else None


def run(
    work: Path,
    plan: list[Workload],
    rounds: int,
    seconds: float,
    warmup: float,
    log: Callable[[str], None],
) -> list[Group]:
    groups = []
    for folder in (work.parent, work):  # nginx's worker runs unprivileged when started as root
        folder.chmod(0o755)
    for number, workload in enumerate(plan, 1):
        log(f"matrix {number}/{len(plan)}: {workload.label}, connections {list(workload.connections)}")
        folder = work / f"workload{number}"
        upstream = Nginx(folder, partial(documents, workload.urls, workload.size))
        load = Load(
            rotation(folder / "rotate.lua", targets(workload.urls)),
            workload.threads,
            workload.headers,
            warmup,
        )
        group = Group(workload, {key: subject(name) for key, name in NAMES.items()})
        try:
            for round_number in range(1, rounds + 1):
                group.rounds.append(
                    one_round(group, folder / f"round{round_number}", upstream, seconds, load, log)
                )
        finally:
            upstream.stop()
            shutil.rmtree(folder, ignore_errors=True)
        groups.append(group)
    return groups


def subject(name: str) -> Subject:
    return next(subject for subject in throughput.subjects() if subject.name == name)


def one_round(
    group: Group, folder: Path, upstream: Nginx, seconds: float, load: Load, log: Callable[[str], None]
) -> dict[str, dict[int, float]]:
    """Every subject of the group once, in turn; their requests/s this round."""
    connections = list(group.workload.connections)
    rates: dict[str, dict[int, float]] = {}
    for key, measured in group.subjects.items():
        if measured.failed:
            continue
        before = {count: len(measured.figures.get(count, [])) for count in connections}
        place = folder / re.sub(r"\W+", "-", key)
        place.mkdir(parents=True, exist_ok=True)
        try:
            measure(measured, place, upstream, connections, seconds, load, {}, {}, log)
        except (RuntimeError, OSError, StopIteration) as error:
            measured.failed = f"{type(error).__name__}: {error}".splitlines()[0]
            log(f"  {measured.name}: failed: {measured.failed}")
        finally:
            shutil.rmtree(place, ignore_errors=True)  # recordings of 64 KB answers fill a disk
        rates[key] = {
            count: measured.figures[count][-1].requests_per_s
            for count in connections
            if len(measured.figures.get(count, [])) > before[count]
        }
    return rates


def goals(workload: Workload, count: int) -> list[tuple[str, str, float]]:
    """Issue 40's goals for one cell: (subject, against, least ratio)."""
    base = workload.varied == BASE.varied and count in BASE.connections
    return [("replay", "talkback", 1.3 if base else 1.0), ("record", "mitmdump -w", 6.0)]


def shortfalls(groups: list[Group]) -> list[str]:
    """One line per cell and goal not met (a ratio below it, or no ratio to compare)."""
    found = []
    for group in groups:
        for count in group.workload.connections:
            cell = f"{group.workload.varied}: {group.workload.label}, {count} connection(s)"
            for key, against, goal in goals(group.workload, count):
                ratio = group.ratio(key, against, count)
                if ratio is None:
                    found.append(f"{cell}: no {key} / {against} ratio (goal {goal:g}x): see the notes")
                elif ratio < goal:
                    found.append(f"{cell}: {key} is {ratio:.2f}x {against}, below the goal of {goal:g}x")
    return found


def report(groups: list[Group], rounds: int, seconds: float, warmup: float, load: str) -> list[str]:
    """The matrix table, its notes and the goals not met."""
    header = ["varied", "workload", "conns", "replay req/s", "x talkback", "x WireMock", "x pass-through"]
    header += ["talkback / WireMock / pass-through / limit req/s", "record req/s", "x mitmdump -w"]
    rows = []
    for group in groups:
        for count in group.workload.connections:
            peers = [group.rate(key, count) for key in ("talkback", "WireMock", "pass-through", "limit")]
            rows.append(
                [
                    group.workload.varied,
                    group.workload.label,
                    str(count),
                    rate(group.rate("replay", count)),
                    ratio(group.ratio("replay", "talkback", count)),
                    ratio(group.ratio("replay", "WireMock", count)),
                    ratio(group.ratio("replay", "pass-through", count)),
                    " / ".join(rate(figure) for figure in peers),
                    rate(group.rate("record", count)),
                    ratio(group.ratio("record", "mitmdump -w", count)),
                ]
            )
    lines = [
        f"{rounds} interleaved round(s) per workload, {seconds:g} s wrk runs after a {warmup:g} s warm-up "
        f"(once per start of a subject); load average {load}. Requests/s are medians over rounds, ratios "
        "medians of same-round ratios.",
        "",
        *table(header, rows),
        "",
    ]
    notes = [
        f"- {group.workload.label}: {measured.name}: {text}"
        for group in groups
        for measured in group.subjects.values()
        for text in ([measured.failed] if measured.failed else []) + sorted(set(measured.notes))
    ]
    below = shortfalls(groups)
    if below:
        notes += [f"- Below its goal ({GOALS_TEXT}):", *(f"  - {line}" for line in below)]
    else:
        notes.append(f"- Every cell meets its goal ({GOALS_TEXT}).")
    return lines + notes


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def load_average() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
