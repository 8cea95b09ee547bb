"""Where a server listens, as the command line takes it and as it prints it: a port is 0 to 65535 on
every serving command (the system took 65536 as 0, a free port, and 85012 as 19476); a wildcard bind
prints an address a client here can open, and answers the Host it names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from proxy.cli.main import build_parser
from proxy.core.model.hosts import HostPolicy
from proxy.server.serving import shown_url

SERVING = ["record", "spy", "replay", "ui", "sandbox"]
REQUIRED = {
    "record": ["--upstream", "http://127.0.0.1:9", "--cassette", "c.yaml"],
    "spy": ["--upstream", "http://127.0.0.1:9"],
    "replay": ["--cassette", "c.yaml"],
    "ui": ["c.yaml"],
}
NOT_PORTS = ["65536", "85012", "99999", "-1", "1e3", "8080.0", "0x1f90", "", " ", "\u0668\u0660"]


@pytest.mark.parametrize("command", SERVING)
def test_every_serving_command_takes_only_a_port(command: str) -> None:
    parser = build_parser()
    for port in ("0", "1", "8080", "65535", "08080"):
        arguments = parser.parse_args([command, "--port", port, *REQUIRED.get(command, [])])
        assert arguments.port == int(port)


@pytest.mark.parametrize("command", SERVING)
def test_a_port_out_of_range_is_one_line_and_exit_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for port in NOT_PORTS:
        with pytest.raises(SystemExit) as stopped:
            parser.parse_args([command, f"--port={port}", *REQUIRED.get(command, [])])
        lines = capsys.readouterr().err.strip().splitlines()
        assert stopped.value.code == 2 and len(lines) == 1, (command, port, lines)
        assert "is not a port: give 0 to 65535" in lines[0], lines[0]
    done = subprocess.run(  # and as a user meets it
        [sys.executable, "-m", "proxy", command, "--port", "65536", *REQUIRED.get(command, [])],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "'65536' is not a port" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8080"),
        ("::", "http://[::1]:8080"),
        ("127.0.0.1", "http://127.0.0.1:8080"),
        ("::1", "http://[::1]:8080"),
        ("192.0.2.7", "http://192.0.2.7:8080"),
        ("localhost", "http://localhost:8080"),
    ],
)
def test_a_wildcard_bind_prints_this_machines_loopback(host: str, url: str) -> None:
    assert shown_url(host, 8080) == url


@pytest.mark.parametrize("bound", ["0.0.0.0", "::"])
def test_a_wildcard_bind_answers_the_host_it_names_and_still_no_other(bound: str) -> None:
    policy = HostPolicy.of((), bound)
    assert policy.answers_to("0.0.0.0" if bound == "0.0.0.0" else "::", None)
    assert policy.answers_to("127.0.0.1", None) and policy.answers_to("localhost", None)
    for foreign in ("evil.example", "10.0.0.1", "192.168.1.10", "0.0.0.1", "::2"):
        assert not policy.answers_to(foreign, None), foreign


@pytest.mark.parametrize("command", SERVING)
def test_an_empty_host_and_an_allowed_name_ending_in_a_dot_are_refused(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--host ''` would bind every address (asyncio reads an empty host so); `--allow-host NAME.` names
    nothing a request can be answered for (a name with a trailing dot never names this machine)."""
    parser = build_parser()
    for given, said in (
        (["--host", ""], "is no address"),
        (["--host", "  "], "is no address"),
        (["--allow-host", "127.0.0.1."], "ends with a dot"),
        (["--allow-host", "dev.local."], "ends with a dot"),
    ):
        with pytest.raises(SystemExit):
            parser.parse_args([command, *given, *REQUIRED.get(command, [])])
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], (command, given, lines)
