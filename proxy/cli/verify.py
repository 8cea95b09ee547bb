"""`verify`: send each recorded request to the live service again and report how its answers drifted,
by meaning and by tier; `--update` writes what drifted back into the cassette."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.app.recording_defaults import TOKEN_VARIABLE, UPSTREAM_TIMEOUT
from proxy.cli import options

if TYPE_CHECKING:
    from proxy.app.verify_command import Transport, VerifyRequest

EXIT_STATUS = """\
Re-send recorded requests to the live service and report how its answers drifted.

exit status: 0 when nothing breaking drifted (additive drift, data drift, volatile
differences and findings of the rules on the live answers included); 1 on breaking drift
(data drift too with --strict); with --update, 0 once the drifted answers are written;
2 when the credentials were refused (with -o, a report saying so), the service could
not be reached, or the input is unusable. Findings never change the exit status (to
fail a job on what the live service answers, run a suite through `spy --fail-on error`)."""


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    verify = commands.add_parser(
        "verify",
        parents=[common],
        help="re-send recorded requests to the live service and report drift (exit 1 on breaking drift)",
        description=EXIT_STATUS,
    )
    verify.add_argument("paths", metavar="CASSETTE", type=Path, nargs="+", help="cassette files or folders")
    verify.add_argument("--upstream", metavar="URL", required=True, help="the live service to ask")
    verify.add_argument(
        "--token", metavar="TOKEN", help=f"a live bearer token (default: ${TOKEN_VARIABLE}, else --client-id)"
    )
    verify.add_argument("--client-id", metavar="ID", help="get a token from the token endpoint with this id")
    verify.add_argument("--client-secret", metavar="SECRET", help="... and this secret")
    verify.add_argument(
        "--writes",
        action="store_true",
        help="also re-send PUT, POST, DELETE and PATCH, in recorded order (for a sandbox or staging service)",
    )
    verify.add_argument(
        "--concurrency",
        metavar="N",
        type=options.positive(int),
        default=8,
        help="resources asked at once; one resource's requests go in recorded order (default 8)",
    )
    verify.add_argument(
        "--format",
        choices=("text", "json", "junit", "markdown"),
        default="text",
        help="text for people, json for tools, junit for CI boards, markdown for a pull request",
    )
    verify.add_argument("-o", "--output", metavar="FILE", type=Path, help="write the report here, not stdout")
    verify.add_argument(
        "--update",
        action="store_true",
        help="write the live answers of the exchanges that drifted into their cassettes, and exit 0",
    )
    verify.add_argument("--strict", action="store_true", help="exit 1 on data drift too")
    verify.add_argument("-v", "--verbose", action="store_true", help="also list volatile differences")
    verify.add_argument(
        "--upstream-timeout",
        type=options.positive(float),
        default=UPSTREAM_TIMEOUT,
        metavar="SECONDS",
        help=f"how long one answer may take (default {UPSTREAM_TIMEOUT:g})",
    )
    verify.add_argument(
        "--ca-bundle",
        type=Path,
        metavar="FILE",
        help="PEM certificates of a private CA (default: the system's)",
    )
    options.add_redaction(verify)
    options.add_contract_options(verify)
    options.add_rule_options(verify)
    verify.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`verify`: 0 when nothing breaking drifted (or once --update wrote), 1 on breaking drift (data
    drift too with --strict), 2 on unusable input, an upstream that cannot be reached, or credentials
    it refused."""
    from proxy.app.verify_command import run_verify
    from proxy.cli.reporting import shown

    return run_verify(request_of(arguments), pool_transport, shown())


def request_of(arguments: argparse.Namespace) -> VerifyRequest:
    """The typed request `verify`'s arguments make, built once; the upstream is checked first, so its
    mistake is the one reported first."""
    from proxy.app.verify_command import VerifyRequest
    from proxy.cli.inputs import checked_upstream, extra_redaction, rule_choice

    return VerifyRequest(
        paths=tuple(arguments.paths),
        upstream=checked_upstream(arguments.upstream, "verify"),
        token=arguments.token or os.environ.get(TOKEN_VARIABLE) or None,
        client_id=arguments.client_id,
        client_secret=arguments.client_secret,
        writes=arguments.writes,
        concurrency=arguments.concurrency,
        format=arguments.format,
        output=arguments.output,
        update=arguments.update,
        strict=arguments.strict,
        verbose=arguments.verbose,
        upstream_timeout=arguments.upstream_timeout,
        ca_bundle=arguments.ca_bundle,
        redaction=extra_redaction(arguments),
        rules=rule_choice(arguments),
    )


def pool_transport(upstream: str, timeout: float, max_body: int, ca_bundle: Path | None) -> Transport:
    """The pooled upstream client, its failures told as the use case's `NoAnswer`."""
    from proxy.app.verify_command import NoAnswer
    from proxy.core.model.exchange import Headers
    from proxy.server.upstream import UpstreamAnswer, UpstreamError, UpstreamPool

    class PoolTransport:
        def __init__(self) -> None:
            self.pool = UpstreamPool(upstream, timeout, max_body, ca_bundle=ca_bundle)

        async def send(self, method: str, target: str, headers: Headers, body: bytes) -> UpstreamAnswer:
            try:
                return await self.pool.send(method, target, headers, body)
            except UpstreamError as error:
                raise NoAnswer(str(error)) from None

        def close(self) -> None:
            self.pool.close()

    return PoolTransport()
