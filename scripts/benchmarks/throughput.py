"""HTTP throughput: commerce-proxy against the baseline and the peers, all on 127.0.0.1, driven by wrk.

nginx serves PAGES static JSON list pages (the upstream; it is not the bottleneck), wrk rotates over them
with a bearer token. Every subject is started fresh in every round, rounds are interleaved, and each figure
is reported as the median over rounds plus the median of same-round ratios to the direct upstream and to
the baseline. Replay peers are fed from their own short recording of the PAGES requests, and a replay
figure counts only when wrk saw no non-2xx answer and every page then read back equals the recording.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from common import ROOT, TOOLS, Process, free_port, median, table, wait_until_up
from upstream import Nginx, targets

TOKEN = "bench-token"
PYTHON = sys.executable
COMMERCE_PROXY = [PYTHON, "-m", "proxy"]


@dataclass
class Measurement:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    errors: int  # connect, read and write errors: a connection failed
    timeouts: int = 0  # answers slower than wrk's timeout (2 s): slow, still counted in requests/s


def parse_wrk(text: str) -> Measurement:
    """Requests/s, the 50% and 99% latencies, and wrk's counts of bad answers, socket errors and slow
    answers (wrk counts those among its socket errors, as timeouts)."""
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if rate is None:
        raise RuntimeError(f"wrk printed no Requests/sec:\n{text}")

    def latency(percent: str) -> float:
        found = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s)\s*$", text, re.MULTILINE)
        if found is None:
            return float("nan")
        value, unit = float(found.group(1)), found.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    return Measurement(
        float(rate.group(1)),
        latency("50"),
        latency("99"),
        int(non_2xx.group(1)) if non_2xx else 0,
        sum(int(group) for group in errors.groups()[:3]) if errors else 0,
        int(errors.group(4)) if errors else 0,
    )


HEADERS = (f"Authorization: Bearer {TOKEN}", "Accept: application/json")


def wrk(
    url: str,
    connections: int,
    seconds: float,
    script: Path,
    threads: int = 2,
    headers: Sequence[str] = HEADERS,
) -> Measurement:
    import subprocess

    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds:g}s", "--latency"]
    command += ["-s", str(script), *(part for header in headers for part in ("-H", header)), url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed: {(done.stderr or done.stdout).strip()}")
    return parse_wrk(done.stdout)


def fetch(url: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def same_as_recorded(base: str, upstream: Nginx) -> str | None:
    """None when every page reads back 2xx and equal to what the upstream sent (links moved to `base`)."""
    for target, document in upstream.documents.items():
        status, body = fetch(base + target)
        if not 200 <= status < 300:
            return f"{target}: status {status}"
        try:
            got = json.loads(body)
        except ValueError:
            return f"{target}: not JSON"
        wanted = json.loads(json.dumps(document).replace(upstream.url, base))
        if got != wanted and got != document:
            return f"{target}: body differs from the recording"
    return None


def rotation(script: Path, paths: Sequence[str]) -> Path:
    """A wrk script asking the paths in turn (each wrk thread from the first), written to `script`."""
    listed = ", ".join(json.dumps(path) for path in paths)
    script.write_text(
        f"local paths = {{{listed}}}\nlocal i = 0\n"
        "request = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n"
    )
    return script


Starter = Callable[[Path, str, int], Process]


@dataclass(frozen=True)
class Load:
    """How wrk loads a subject: its rotation script, threads and headers, and an unmeasured warm-up run
    (seconds, at the most connections; 0: none) before the measured ones."""

    script: Path
    threads: int = 2
    headers: Sequence[str] = HEADERS
    warmup: float = 0.0


@dataclass
class Subject:
    """One thing measured: how to start it (given a work folder, the upstream URL and its port)."""

    name: str
    role: str  # "limit", "baseline", "pass-through", "record", "replay"
    start: Starter | None  # None: the upstream itself, measured directly
    feed: Starter | None = None  # replay: how to make its recording first
    figures: dict[int, list[Measurement]] = field(default_factory=dict)
    ratios_direct: dict[int, list[float]] = field(default_factory=dict)
    ratios_baseline: dict[int, list[float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # before and after load
    exit_s: list[float] = field(default_factory=list)
    failed: str | None = None


def ours(*arguments: str) -> Starter:
    def start(work: Path, upstream: str, port: int) -> Process:
        command = [*COMMERCE_PROXY, arguments[0], "-q", *arguments[1:], "--port", str(port)]
        command = [part.replace("{work}", str(work)).replace("{upstream}", upstream) for part in command]
        return Process(f"commerce-proxy {arguments[0]}", command, work / "commerce-proxy.log", cwd=ROOT)

    return start


def baseline(work: Path, upstream: str, port: int) -> Process:
    return Process(
        "baseline",
        [PYTHON, str(Path(__file__).parent / "baseline.py"), upstream, str(port)],
        work / "baseline.log",
    )


def mitmdump(*arguments: str) -> Starter:
    def start(work: Path, upstream: str, port: int) -> Process:
        command = [
            str(Path(PYTHON).parent / "mitmdump"),
            "-q",
            "--mode",
            f"reverse:{upstream}",
            "-p",
            str(port),
        ]
        command += [part.replace("{work}", str(work)) for part in arguments]
        return Process("mitmdump", command, work / "mitmdump.log")

    return start


def talkback(mode: str) -> Starter:
    def start(work: Path, upstream: str, port: int) -> Process:
        script = Path(__file__).parent / "talkback.js"
        env = {"NODE_PATH": str(TOOLS / "node_modules"), "PATH": "/usr/bin:/bin"}
        return Process(
            "talkback",
            ["node", str(script), upstream, str(port), str(work / "tapes"), mode],
            work / "talkback.log",
            env=env,
        )

    return start


def wiremock(recording: bool) -> Starter:
    def start(work: Path, upstream: str, port: int) -> Process:
        jar = next((TOOLS / "node_modules" / "wiremock").rglob("wiremock-standalone-*.jar"))
        root = work / "wiremock"
        (root / "mappings").mkdir(parents=True, exist_ok=True)
        (root / "__files").mkdir(exist_ok=True)
        command = [
            "java",
            "-jar",
            str(jar),
            "--port",
            str(port),
            "--bind-address",
            "127.0.0.1",
            "--root-dir",
            str(root),
            "--disable-banner",
            "--async-response-enabled",
            "true",
        ]
        if recording:  # recording needs the request journal
            command += ["--proxy-all", upstream, "--record-mappings"]
        else:
            command += ["--no-request-journal"]
        return Process("wiremock", command, work / "wiremock.log")

    return start


def subjects() -> list[Subject]:
    return [
        Subject("direct to nginx (the limit)", "limit", None),
        Subject("baseline: aiohttp pass-through + uvloop", "baseline", baseline),
        Subject(
            "commerce-proxy record (recording, checking)",
            "record",
            ours("record", "--upstream", "{upstream}", "--cassette", "{work}/record.yaml", "--mode", "all"),
        ),
        Subject("commerce-proxy spy (checking)", "pass-through", ours("spy", "--upstream", "{upstream}")),
        Subject(
            "commerce-proxy replay",
            "replay",
            ours("replay", "--cassette", "{work}/feed.yaml"),
            feed=ours(
                "record",
                "--upstream",
                "{upstream}",
                "--cassette",
                "{work}/feed.yaml",
                "--mode",
                "all",
                "--no-check",
            ),
        ),
        Subject("mitmdump reverse (pass-through)", "pass-through", mitmdump()),
        Subject("mitmdump reverse -w (recording)", "record", mitmdump("-w", "{work}/record.flows")),
        Subject(
            "mitmdump --server-replay",
            "replay",
            mitmdump(
                "--server-replay",
                "{work}/feed.flows",
                "--set",
                "server_replay_reuse=true",
                "--set",
                "server_replay_extra=404",
            ),
            feed=mitmdump("-w", "{work}/feed.flows"),
        ),
        Subject("talkback (recording, OVERWRITE)", "record", talkback("overwrite")),
        Subject("talkback (replay)", "replay", talkback("replay"), feed=talkback("record")),
        Subject("WireMock --proxy-all --record-mappings", "record", wiremock(True)),
        Subject("WireMock (playback)", "replay", wiremock(False), feed=wiremock(True)),
    ]


def run(
    work: Path,
    rounds: int,
    connections: list[int],
    seconds: float,
    log: Callable[[str], None],
    only: str | None = None,
) -> list[Subject]:
    """Every subject, every round, every connection count; returns them with their figures."""
    script = rotation(work / "rotate.lua", targets())
    upstream = Nginx(work)
    everything = [
        subject
        for subject in subjects()
        if only is None or subject.role in ("limit", "baseline") or re.search(only, subject.name)
    ]
    try:
        for round_number in range(1, rounds + 1):
            direct: dict[int, float] = {}
            base: dict[int, float] = {}
            for subject in everything:
                if subject.failed:
                    continue
                folder = work / f"round{round_number}" / re.sub(r"\W+", "-", subject.name)[:40]
                folder.mkdir(parents=True, exist_ok=True)
                try:
                    measure(subject, folder, upstream, connections, seconds, Load(script), direct, base, log)
                except (RuntimeError, OSError, StopIteration) as error:
                    subject.failed = f"{type(error).__name__}: {error}".splitlines()[0]
                    log(f"  {subject.name}: failed: {subject.failed}")
    finally:
        upstream.stop()
    return everything


def measure(
    subject: Subject,
    folder: Path,
    upstream: Nginx,
    connections: list[int],
    seconds: float,
    load: Load,
    direct: dict[int, float],
    base: dict[int, float],
    log: Callable[[str], None],
) -> None:
    if subject.feed is not None:
        port = free_port()
        feeder = subject.feed(folder, upstream.url, port)
        try:
            wait_until_up(f"http://127.0.0.1:{port}/", feeder)
            for target in upstream.documents:
                status, _ = fetch(f"http://127.0.0.1:{port}{target}")
                if status != 200:
                    raise RuntimeError(f"recording the replay feed: {target} answered {status}")
        finally:
            feeder.stop()  # also when it never came up: nothing we started outlives the run
    process = None
    url = upstream.url
    if subject.start is not None:
        port = free_port()
        process = subject.start(folder, upstream.url, port)
        url = f"http://127.0.0.1:{port}"
    try:
        if process is not None:
            wait_until_up(url + "/", process)
        if subject.role == "replay":
            problem = same_as_recorded(url, upstream)
            if problem:
                raise RuntimeError(f"replay does not answer as recorded: {problem}")
        if load.warmup:
            wrk(url + "/", max(connections), load.warmup, load.script, load.threads, load.headers)
        before = process.rss_kb() if process else 0
        for count in connections:
            figure = wrk(url + "/", count, seconds, load.script, load.threads, load.headers)
            subject.figures.setdefault(count, []).append(figure)
            if subject.role == "limit":
                direct[count] = figure.requests_per_s
            if subject.role == "baseline":
                base[count] = figure.requests_per_s
            if count in direct:
                subject.ratios_direct.setdefault(count, []).append(figure.requests_per_s / direct[count])
            if count in base:
                subject.ratios_baseline.setdefault(count, []).append(figure.requests_per_s / base[count])
            if figure.non_2xx or figure.errors or figure.timeouts:
                subject.notes.append(
                    f"{count} connections: {figure.non_2xx} non-2xx, {figure.errors} socket errors, "
                    f"{figure.timeouts} answers slower than 2 s"
                )
            log(
                f"  {subject.name} @{count}: {figure.requests_per_s:,.0f} req/s, "
                f"p50 {figure.p50_ms:.2f} ms, p99 {figure.p99_ms:.2f} ms"
            )
        if process:
            subject.rss_kb.append((before, process.rss_kb()))
        if subject.role == "replay":
            if any(
                figure.non_2xx or figure.errors for figures in subject.figures.values() for figure in figures
            ):
                subject.failed = "not counted: wrk saw non-2xx answers or socket errors"
            problem = same_as_recorded(url, upstream)
            if problem:
                subject.failed = f"not counted: after the load, {problem}"
    finally:
        if process:
            subject.exit_s.append(process.stop())


def report(everything: list[Subject], connections: list[int]) -> list[str]:
    """The results table: medians over rounds and medians of same-round ratios."""
    header = ["subject"]
    for count in connections:
        header += [f"req/s @{count}", f"p50 / p99 ms @{count}", f"x direct @{count}", f"x baseline @{count}"]
    rows = []
    for subject in everything:
        row = [subject.name]
        for count in connections:
            figures = subject.figures.get(count, [])
            if not figures or (subject.failed and subject.role == "replay"):
                row += ["-", "-", "-", "-"]
                continue
            row += [
                f"{median([figure.requests_per_s for figure in figures]):,.0f}",
                f"{median([figure.p50_ms for figure in figures]):.2f} / "
                f"{median([figure.p99_ms for figure in figures]):.2f}",
                f"{median(subject.ratios_direct.get(count, [])):.2f}",
                f"{median(subject.ratios_baseline.get(count, [])):.2f}"
                if subject.ratios_baseline.get(count)
                else "-",
            ]
        rows.append(row)
    lines = table(header, rows)
    notes = []
    for subject in everything:
        if subject.failed:
            notes.append(f"- {subject.name}: {subject.failed}")
        for note in sorted(set(subject.notes)):
            notes.append(f"- {subject.name}: {note}")
        if subject.rss_kb and subject.role == "replay":
            grown = [after - before for before, after in subject.rss_kb]
            notes.append(
                f"- {subject.name}: resident memory {subject.rss_kb[-1][0] / 1024:.0f} MB before the load, "
                f"grew by a median {median(grown) / 1024:.1f} MB while serving it"
            )
        if subject.role == "record" and subject.exit_s:
            notes.append(
                f"- {subject.name}: stopping after the load (writing what it recorded) took a median "
                f"{median(subject.exit_s):.1f} s"
            )
    return [*lines, "", *notes] if notes else lines
