"""The options several commands share, defined once so they read and default the same everywhere."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from proxy.app.recording_defaults import MAX_BODY_BYTES, UPSTREAM_TIMEOUT
from proxy.cli.output import say

# How the command line spells the settings the core names in its errors (`proxy.errors.SettingError`).
FLAGS = {
    "latency": "--latency",
    "fault": "--fault",
    "match_on": "--match-on",
    "match_ignore_json": "--match-ignore-json",
    "origin": "--origin",
    "mode": "--mode",
    "max_body_bytes": "--max-body-bytes",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (what is wrong, and where to read more) and exit 2."""

    def error(self, message: str) -> NoReturn:
        say(f"{self.prog}: error: {message} (see `{self.prog} --help`)", err=True)
        self.exit(2)


def common_options() -> argparse.ArgumentParser:
    """The options every command takes (a parent parser)."""
    common = OneLineParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")
    return common


def add_serving(command: argparse.ArgumentParser, default_port: int = 8080) -> None:
    command.add_argument(
        "--host",
        type=bind_address,
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only)",
    )
    command.add_argument("--port", type=port_number, default=default_port, help="0 picks a free port")
    command.add_argument(
        "--allow-host",
        metavar="NAME",
        type=allowed_host,
        action="append",
        default=[],
        help="also answer requests whose Host is NAME (another name for this machine); repeatable. "
        "Others than localhost, 127.0.0.1, [::1] and the --host address get a 421",
    )


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (the system would take 65536 as 0 and 85012 as 19476)."""
    given = text.strip()
    if not (given.isascii() and given.isdigit()) or int(given) > 65535:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a port: give 0 to 65535 (0 picks a free one)")
    return int(given)


def bind_address(text: str) -> str:
    """An argparse type: the address to listen on, given (an empty one would mean every address)."""
    given = text.strip()
    if not given:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no address: give one to listen on (127.0.0.1: this machine only; 0.0.0.0: all)"
        )
    return given


def allowed_host(text: str) -> str:
    """An argparse type: a host name or IP literal without a port, lower-cased; not one ending in a dot,
    which never names this machine (a resolver may send it past the hosts file)."""
    from proxy.core.model.hosts import host_name

    given = text.strip()
    if given.endswith("."):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} ends with a dot: such a name never names this machine; give it without"
        )
    if given.count(":") >= 2 and not given.startswith("["):
        given = f"[{given}]"  # a bare IPv6 address
    name = host_name(given)
    if name is None or given.rpartition("]")[2].count(":"):
        raise argparse.ArgumentTypeError(
            f"expected a host name or IP address without a port, found {text[:80]!r}"
        )
    return name


def add_ui(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--no-ui",
        action="store_true",
        help="do not serve the web UI at /_proxy/ui/ (by default it is served, behind the token printed "
        "on the line after 'listening on')",
    )


def add_wire_limits(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--head-timeout",
        metavar="S",
        type=positive(float),
        default=30.0,
        help="a request line and headers must arrive within S seconds of their first byte (default 30)",
    )
    command.add_argument(
        "--max-connections",
        metavar="N",
        type=positive(int),
        default=1000,
        help="open client connections served at once; more get 503 (default 1000)",
    )


def add_upstream(command: argparse.ArgumentParser) -> None:
    command.add_argument("--upstream", metavar="URL", help="the real service, e.g. http://127.0.0.1:9000")
    command.add_argument(
        "--upstream-timeout",
        type=positive(float),
        default=UPSTREAM_TIMEOUT,
        metavar="SECONDS",
        help="a client gets a 504 when the upstream's answer is not complete by then "
        f"(default {UPSTREAM_TIMEOUT:g})",
    )
    command.add_argument(
        "--max-body-bytes",
        type=positive(int),
        default=MAX_BODY_BYTES,
        metavar="N",
        help=f"a larger upstream answer is a 502 and is not recorded (default {MAX_BODY_BYTES // 2**20} MiB)",
    )
    command.add_argument(
        "--ca-bundle",
        type=Path,
        metavar="FILE",
        help="PEM certificates of a private CA to verify an https upstream with (default: the system's)",
    )


def positive(kind: type[float] | type[int]) -> Callable[[str], float]:
    """An argparse type: a number above zero, else argparse's own one-line usage error."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, found {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"expected a number above 0, found {text!r}")
        return value

    return parse


def add_rule_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--rules",
        metavar="DIR",
        type=Path,
        help="a rule folder (default: the config's, else the shipped rules)",
    )
    command.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="commerce-proxy.yaml or a pyproject.toml (default: found from the working folder up)",
    )


def add_contract_options(command: argparse.ArgumentParser) -> None:
    """`--spec` and `--overlay`, added to the config's `specs:` and `overlays:` (docs/contract.md)."""
    command.add_argument(
        "--spec",
        metavar="PATH",
        type=Path,
        action="append",
        default=[],
        help="a published OpenAPI spec (3.0 or 3.1, YAML or JSON), or a folder of them, to judge each "
        "exchange against too (repeatable; added to the config's specs:; docs/contract.md)",
    )
    command.add_argument(
        "--overlay",
        metavar="PATH",
        type=Path,
        action="append",
        default=[],
        help="corrections on top of the specs: a merge file or an OpenAPI Overlay 1.0 document, or a "
        "folder of them (repeatable, applied in order after the config's overlays:; docs/overlays.md)",
    )


def add_matching(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--match-on",
        metavar="FIELDS",
        help="comma-separated subset of method,path,query,body (default: all four), and header:NAME "
        "entries, which add that header to the fields in force",
    )
    command.add_argument(
        "--ignore-query",
        metavar="NAME",
        action="append",
        default=[],
        help="a query parameter that never decides a match; repeatable",
    )
    command.add_argument(
        "--match-ignore-json",
        metavar="PATH",
        action="append",
        default=[],
        help="a JSON body field (dotted path, e.g. data.meta.request_id) that never decides a match, "
        "kept as recorded; repeatable (also the config's match.ignore_json)",
    )


def add_redaction(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--redact-header", metavar="NAME", action="append", default=[], help="also redact this header"
    )
    command.add_argument(
        "--redact-query", metavar="NAME", action="append", default=[], help="also redact this query parameter"
    )
    command.add_argument(
        "--redact-form", metavar="NAME", action="append", default=[], help="also redact this form field"
    )
    command.add_argument(
        "--redact-json-path",
        metavar="PATH",
        action="append",
        default=[],
        help="dotted path into JSON bodies, e.g. data.attributes.email",
    )
