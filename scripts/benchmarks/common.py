"""What the benchmarks share: processes started and stopped by PID, free ports, medians, tables."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TOOLS = ROOT / ".bench"  # npm packages for the peers (not in git)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Process:
    """A process we started; stopped by its PID only (SIGINT, then SIGTERM, then SIGKILL)."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        log: Path,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.log = log
        with log.open("ab") as out:
            self.popen = subprocess.Popen(
                list(command),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def rss_kb(self) -> int:
        """Resident memory now (Linux /proc), 0 when gone."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            return 0
        return 0

    def stop(self, timeout: float = 120.0) -> float:
        """Stop and wait; returns the seconds it took to exit (a recorder writes its cassette then)."""
        started = time.perf_counter()
        for sent in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            if self.popen.poll() is not None:
                break
            try:
                os.kill(self.pid, sent)
            except ProcessLookupError:
                break
            try:
                self.popen.wait(timeout if sent == signal.SIGINT else 10)
            except subprocess.TimeoutExpired:
                continue
        return time.perf_counter() - started


def wait_until_up(url: str, process: Process, timeout: float = 60.0) -> None:
    """Poll until the server answers at all (any status), or fail naming its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(f"{process.name} exited ({process.popen.returncode}); see {process.log}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{process.name} did not answer {url} within {timeout:g} s; see {process.log}")


def cpu_reference() -> float:
    """Milliseconds of CPU a fixed pure-Python loop takes now (best of three): how fast this machine is
    at the moment. Its speed drifts by up to 3x within an hour here, which ratios measured side by side
    cancel but absolute figures (exchanges/s) do not."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        total = 0
        for number in range(1_000_000):
            total += number
        best = min(best, time.process_time() - started)
    return best * 1000


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A markdown table, numbers right-aligned."""
    align = ["---:" if index else "---" for index in range(len(header))]
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(align) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def tool_version(command: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "not installed"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0] if text else "unknown"
