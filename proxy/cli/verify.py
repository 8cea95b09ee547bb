"""`verify`: send each recorded request to the live service again and report how its answers drifted,
by meaning and by tier; `--update` writes what drifted back into the cassette."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from proxy.cli import options
from proxy.cli.output import say, write_document
from proxy.cli.reporting import placeholder_in
from proxy.core.redaction.book import KNOWN
from proxy.errors import UsageError


class CredentialsRefused(UsageError):
    """The live service refused the token or client credentials `verify` was given (exit 2)."""


TOKEN_VARIABLE = "COMMERCE_PROXY_TOKEN"
ANOTHER_TOKEN = (
    f"give another with --token or ${TOKEN_VARIABLE}, or --client-id and --client-secret; "
    "no drift is reported"
)
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
        default=30.0,
        metavar="SECONDS",
        help="how long one answer may take (default 30)",
    )
    verify.add_argument(
        "--ca-bundle",
        type=Path,
        metavar="FILE",
        help="PEM certificates of a private CA (default: the system's)",
    )
    options.add_redaction(verify)
    options.add_rule_options(verify)
    verify.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`verify`: 0 when nothing breaking drifted (or once --update wrote), 1 on breaking drift (data
    drift too with --strict), 2 on unusable input, an upstream that cannot be reached, or credentials
    it refused (`Verification.refused`)."""
    import asyncio

    from proxy.app.verify import VerifyOptions, update_cassettes, update_lines, verify
    from proxy.cli.inputs import checked_upstream, load_rules_in_force, redaction_from
    from proxy.cli.report_path import refuse_bad_output
    from proxy.core.reports.verification import (
        refused_report,
        verify_json,
        verify_junit,
        verify_markdown,
        verify_text,
    )
    from proxy.store.files import cassette_paths, load_cassette
    from proxy.store.saving import write_atomically

    upstream = checked_upstream(arguments.upstream, "verify")
    files = cassette_paths(arguments.paths)
    if arguments.output is not None:
        refuse_bad_output(arguments, arguments.output, files)
    engine = load_rules_in_force(arguments)
    policy = redaction_from(arguments, engine.project.redaction)
    cassettes = [(path, load_cassette(path).cassette) for path in files]

    async def verified() -> Any:
        from proxy.server.upstream import UpstreamPool

        pool = UpstreamPool(
            upstream, arguments.upstream_timeout, 50 * 1024 * 1024, ca_bundle=arguments.ca_bundle
        )
        try:
            token = arguments.token or os.environ.get(TOKEN_VARIABLE) or await _client_token(pool, arguments)
            KNOWN.add([token] if token else [])
            choices = VerifyOptions(arguments.writes, arguments.concurrency, token, upstream)
            return await verify(cassettes, _sender(pool, upstream), engine, policy, choices)
        finally:
            pool.close()

    try:
        verification = asyncio.run(verified())
        refused = verification.refused()
        if refused is not None:  # an expired secret is no change of the service: no drift, no update
            raise CredentialsRefused(f"the live service refused the token ({refused}); {ANOTHER_TOKEN}")
    except CredentialsRefused as error:
        if arguments.output is not None:  # a job that uploads its report gets one saying why
            document = KNOWN.scrub(
                refused_report(arguments.format, str(error)), placeholder_in(arguments.format)
            )
            write_atomically(arguments.output, document, "the report")
        raise
    verbose = arguments.verbose
    chunks = {
        "text": lambda: [verify_text(verification, verbose)],
        "json": lambda: [verify_json(verification, verbose)],
        "markdown": lambda: [verify_markdown(verification, verbose)],
        "junit": lambda: list(verify_junit(verification, arguments.strict)),
    }[arguments.format]()
    # a live answer may echo the token or client secret
    report = KNOWN.scrub("".join(chunks), placeholder_in(arguments.format))
    if arguments.output is None:
        write_document(report)
    else:
        write_atomically(arguments.output, report, "the report")
        say(f"commerce-proxy: wrote {arguments.output}", err=True)
    if arguments.update:
        for updated in update_cassettes(cassettes, verification):
            for line in update_lines(updated):
                say(line, err=True)
        return 0
    return 1 if verification.failed(arguments.strict) else 0


async def _client_token(pool: Any, arguments: argparse.Namespace) -> str | None:
    """A fresh token from the token endpoint, with client credentials; None without them."""
    import json
    from urllib.parse import urlencode

    from proxy.core.drift.verification import answer_error, token_refusal

    if not arguments.client_id and not arguments.client_secret:
        return None
    if not (arguments.client_id and arguments.client_secret):
        raise UsageError("--client-id and --client-secret go together")
    # the secret is never written, even when echoed; the client id is an identifier recordings keep
    # (record's redaction keeps it too), so an update rewrites no token request for it
    KNOWN.add((arguments.client_secret,))
    form = urlencode(
        {
            "grant_type": "client_credentials",
            "client_id": arguments.client_id,
            "client_secret": arguments.client_secret,
        }
    ).encode()
    headers = (("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"))
    answer = await _send(pool, "POST", "/oauth/access_token", headers, form)
    error = answer_error(answer.body) if answer.status >= 400 else None
    named = f"{answer.status} {error}" if error else str(answer.status)
    if token_refusal(answer.status, error):
        raise CredentialsRefused(
            f"the token endpoint refused the client credentials ({named}); {ANOTHER_TOKEN}"
        )
    try:
        token = json.loads(answer.body)["access_token"]
    except (ValueError, KeyError, TypeError):
        token = None
    if not isinstance(token, str) or not token:
        said = f" (error {error!r})" if error else ""
        raise UsageError(f"the token endpoint answered {answer.status}{said} without an access_token")
    KNOWN.add((token,))
    return token


async def _send(pool: Any, method: str, target: str, headers: Any, body: bytes) -> Any:
    from proxy.errors import CommerceProxyError
    from proxy.server.upstream import UpstreamError

    try:
        return await pool.send(method, target, headers, body)
    except UpstreamError as error:
        raise CommerceProxyError(f"{method} {target}: the live service gave no answer: {error}") from None


def _sender(pool: Any, upstream: str) -> Any:
    """Send one recorded request as the client sent it, less what belongs to the connection."""
    from proxy.core.model.bodies import body_from_bytes, body_to_bytes
    from proxy.core.model.exchange import Request, Response
    from proxy.core.model.hop_by_hop import end_to_end

    async def send(request: Request) -> Response:
        headers = end_to_end(request.headers, frozenset({"host", "content-length"}))
        answer = await _send(pool, request.method, request.target, headers, body_to_bytes(request.body))
        body = body_from_bytes(answer.body, answer.headers)
        return Response(answer.status, answer.headers, body, answer.reason)

    return send
