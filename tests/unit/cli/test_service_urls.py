"""A URL a command is given for a service (`--upstream`, `--to`, `--origin`) is an http(s) base URL
with a host and a port the system takes, or one line naming the option and exit 2: an outsider found
`--upstream 'http://[::1'` and `http://127.0.0.1:99999` an internal error (exit 70) in record, spy
and verify, and a query and fragment taken."""

from __future__ import annotations

import subprocess
import sys

import pytest

from proxy.app.urls import checked_url
from proxy.errors import UsageError

BAD = [
    "http://[::1",
    "http://[::1]x",
    "http://[zz]:80",
    "http://127.0.0.1:99999",
    "http://127.0.0.1:65536",
    "http://127.0.0.1:-5",
    "http://127.0.0.1:8x",
    "http://127.0.0.1: 80",
    "http://host/v2?x=1",
    "http://host/v2#frag",
    "http://host/v2?",
    "ftp://host",
    "http://",
    "127.0.0.1:9000",
    "http://user:pw@[::1",  # cannot be split: shown as nothing, its password neither
]
GOOD = [
    "http://127.0.0.1:9000",
    "https://shop.example/v2/",
    "http://[::1]:8080",
    "http://h:0",
    "http://h:65535",
]


@pytest.mark.parametrize("url", BAD)
def test_a_url_no_service_has_is_one_line_naming_the_option(url: str) -> None:
    with pytest.raises(UsageError) as refused:
        checked_url(url, "--upstream")
    line = str(refused.value)
    assert line.startswith("--upstream") and "\n" not in line and "pw" not in line, line


@pytest.mark.parametrize("url", GOOD)
def test_a_service_url_is_taken_without_its_trailing_slash(url: str) -> None:
    assert checked_url(url, "--upstream") == url.rstrip("/")


@pytest.mark.parametrize(
    "command",
    [
        ["spy", "--upstream"],
        ["record", "--cassette", "c.yaml", "--upstream"],
        ["verify", "c.yaml", "--upstream"],
    ],
)
def test_every_command_taking_an_upstream_says_so_and_exits_2(command: list[str]) -> None:
    for url in ("http://[::1", "http://127.0.0.1:99999"):
        done = subprocess.run(
            [sys.executable, "-m", "proxy", *command, url, "--port", "0"]
            if command[0] != "verify"
            else [sys.executable, "-m", "proxy", *command, url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, (command, url, done.returncode, done.stderr)
        assert (
            "--upstream" in done.stderr
            and "internal error" not in done.stderr
            and "Traceback" not in done.stderr
        )
