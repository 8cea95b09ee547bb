"""Hostile and broken cassettes through the command line: one error line naming the file, exit 2, no
traceback, no code run, within generous time and memory ceilings; plus property and fuzz runs."""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.cli.main import main
from tests.reliability.figures import ROOT, write_figure

MEMORY_CEILING_MB = 1024
TIME_CEILING_S = 60
CANARY = "hostile-canary"
HEAD = "cassette_format: 2\nexchanges:\n"
REQUEST = "- request: {method: GET, path: /v2/brands, headers: {}}\n"


def exchange(response: str) -> str:
    return HEAD + REQUEST + f"  response: {response}\n"


def billion_laughs() -> str:
    laughs = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    laughs += "".join(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 10))
    return HEAD.replace("exchanges:\n", "") + laughs + "exchanges: [*a9]\n"


HOSTILE: dict[str, str | bytes] = {
    "deep-flow": HEAD.replace("\n", " ", 1).replace("exchanges:\n", "exchanges: ")
    + "[" * 100_000
    + "]" * 100_000,
    "deep-block": HEAD + "".join(" " * depth + "- k:\n" for depth in range(0, 6_000, 2)),
    "deep-json-body": exchange("{status: 200, headers: {}, json: '" + "[" * 100_000 + "]" * 100_000 + "'}"),
    "billion-laughs": billion_laughs(),
    "alias-cycle": HEAD + "- &e {request: *e}\n",
    "python-apply": f"!!python/object/apply:os.system ['touch {CANARY}']\n",
    "python-new": HEAD + f"- !!python/object/new:subprocess.Popen [[touch, {CANARY}]]\n",
    "python-name": HEAD + "- !!python/name:os.system\n",
    "python-module": "cassette_format: !!python/module:os\n",
    "huge-string": exchange("{status: '" + "9" * 20_000_000 + "', headers: {}}"),
    "huge-key": HEAD + "- " + "k" * 5_000_000 + ": 1\n",
    "exchanges-a-mapping": HEAD + "  a: 1\n",
    "status-a-word": exchange("{status: two hundred, headers: {}}"),
    "status-out-of-range": exchange("{status: 99999, headers: {}}"),
    "headers-a-list": exchange("{status: 200, headers: [a, b]}"),
    "method-a-number": HEAD + "- request: {method: 7, path: /v2/brands, headers: {}}\n  response: {}\n",
    "header-value-crlf": exchange('{status: 200, headers: {X-A: "a\\r\\nSet-Cookie: injected=1"}}'),
    "header-name-not-token": exchange('{status: 200, headers: {"X-A: b\\r\\nX-B": c}}'),
    "reason-crlf": exchange('{status: 200, reason: "OK\\r\\n\\r\\nHTTP/1.1 200 OK", headers: {}}'),
    "path-crlf": HEAD + '- request: {method: GET, path: "/v2\\r\\nX-A: b"}\n  response: {status: 200}\n',
    "method-request-line": HEAD
    + '- request: {method: "GET / HTTP/1.1", path: /}\n  response: {status: 200}\n',
    "status-100-forges-a-second-answer": exchange(
        '{status: 100, headers: {}, text: "HTTP/1.1 200 OK\\r\\nSet-Cookie: forged=1\\r\\n\\r\\n"}'
    ),
    "status-101-upgrade": exchange("{status: 101, headers: {Upgrade: websocket}}"),
    "duration-infinite": HEAD + "- duration_ms: .inf\n" + "  " + REQUEST[2:] + "  response: {status: 200}\n",
    "recorded-at-a-date": HEAD
    + "- recorded_at: 2026-01-01\n"
    + "  "
    + REQUEST[2:]
    + "  response: {status: 200}\n",
    "recorded-at-the-future": HEAD
    + "- recorded_at: '9999-01-01T00:00:00Z'\n"
    + "  "
    + REQUEST[2:]
    + "  response: {status: 200}\n",
    "header-value-control": exchange('{status: 200, headers: {X-A: "a\\x0bb"}}'),
    "json-not-json": exchange("{status: 200, headers: {}, json: '{not json'}"),
    "json-nan": exchange("{status: 200, headers: {}, json: 'NaN'}"),
    "two-bodies": exchange("{status: 200, headers: {}, json: '1', text: x}"),
    "no-format": "exchanges: []\n",
    "format-from-the-future": "cassette_format: 99999999999999999999\nexchanges: []\n",
    "format-negative": "cassette_format: -1\nexchanges: []\n",
    "no-response": HEAD + REQUEST,
    "duplicate-key": HEAD + "- request: {method: GET, method: PUT}\n",
    "two-documents": HEAD + "---\n" + HEAD,
    "undefined-alias": HEAD + "- *nowhere\n",
    "bad-timestamp-tag": HEAD + "- !!timestamp yesterday\n",
    "unclosed-quote": HEAD + "- 'never closed\n",
    "tab-indentation": HEAD + "-\n\trequest: {}\n",
    "nul-byte": HEAD + "- \x00\n",
    "not-utf8": HEAD.encode() + b"- \xff\xfe\xfd\n",
    "random-bytes": random.Random(8).randbytes(4096),
    "a-list": "- 1\n- 2\n",
    "a-scalar": "hello\n",
}


# Run in a fresh, small Python: a child forked straight from the test process would report that
# process's size as its own peak (Linux carries the parent's resident high-water mark over fork and
# exec), and a test process that has grown to gigabytes would make every run look as large.
MEASURE = """
import os, resource, subprocess, sys
limit, seconds = int(sys.argv[1]), float(sys.argv[2])
def ceiling():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    done = subprocess.run([sys.executable, "-m", "proxy", *sys.argv[3:]], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=ceiling,
                          timeout=seconds)
except subprocess.TimeoutExpired:
    print("timeout")
    sys.exit(0)
sys.stderr.buffer.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run_limited(arguments: list[str], cwd: Path) -> tuple[int, str, int]:
    """Run the CLI under a memory ceiling; its exit code, stderr and peak RSS in MB."""
    limit = MEMORY_CEILING_MB * 2**20 * 4  # address space: Python maps far more than it touches
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(limit), str(TIME_CEILING_S), *arguments],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**os.environ, "COMMERCE_PROXY_CACHE": "off"},
        timeout=TIME_CEILING_S + 60,
        check=True,
    )
    assert done.stdout.strip() != b"timeout", f"{arguments} ran past {TIME_CEILING_S} s"
    code, peak_kb = (int(word) for word in done.stdout.split())
    return code, done.stderr.decode("utf-8", "replace"), peak_kb // 1024


@pytest.mark.long
def test_every_hostile_cassette_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    """Each hostile cassette, through `check`: exit 2, one line naming it, nothing run, bounded."""
    peaks = []
    for name, content in HOSTILE.items():
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        code, stderr, peak = run_limited(["check", str(path), "-q"], tmp_path)
        peaks.append(peak)
        lines = stderr.splitlines()
        assert code == 2 and len(lines) == 1, (name, code, stderr[-2000:])
        assert lines[0].startswith(f"commerce-proxy: error: {path}"), (name, lines[0])
        assert "Traceback" not in stderr and "internal error" not in stderr, name
        assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())
    assert not (tmp_path / CANARY).exists()
    assert max(peaks) < MEMORY_CEILING_MB
    print(f"hostile cassettes: {len(HOSTILE)}, peak RSS of any run at most {max(peaks)} MB")
    write_figure("hostile_cassettes", len(HOSTILE), "hand-made hostile cassettes, each one line and exit 2")
    write_figure(
        "hostile_memory_ceiling", f"{MEMORY_CEILING_MB} MB", "peak RSS ceiling any of them stayed under"
    )


SHIPPED = (ROOT / "cassettes" / "pagination-walk.yaml").read_text(encoding="utf-8")[:3000]
YAMLISH = st.text(alphabet="ab1 :-[]{}'\"&*!#|>?,\n\t\\<%@`~.", max_size=12)


def test_mutated_cassettes_check_or_fail_in_one_line(tmp_path: Path) -> None:
    """A shipped cassette with a span replaced by YAML punctuation: `check` reports on it or says in
    one line what is wrong with it; it never raises. Derandomized, so each run tries the same inputs."""
    path = tmp_path / "mutated.yaml"
    tried = 0

    @settings(max_examples=300, derandomize=True, database=None, deadline=None)
    @given(cut=st.integers(0, len(SHIPPED)), length=st.integers(0, 20), insert=YAMLISH)
    def check_one(cut: int, length: int, insert: str) -> None:
        nonlocal tried
        tried += 1
        path.write_text(SHIPPED[:cut] + insert + SHIPPED[cut + length :], encoding="utf-8")
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = main(["check", str(path), "-q", "--format", "json"])
        assert code in (0, 1, 2), stderr.getvalue()
        if code == 2:
            [line] = stderr.getvalue().splitlines()
            assert line.startswith(f"commerce-proxy: error: {path}"), line

    check_one()
    write_figure("mutated_cassettes", tried, "mutated shipped cassettes through `check`")
