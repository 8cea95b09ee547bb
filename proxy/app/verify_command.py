"""The `verify` use case: from the typed request its parser built, the whole workflow: where the report
may go (refused before any traffic), the rules and redaction in force, the live token (fetched once with
client credentials), the re-sending (`proxy.app.verify`), the report in its format, scrubbed of every
secret, the report saying why when the credentials are refused, and `--update`'s writes.

The HTTP transport is handed in (`Connect`): the adapter opens its pooled client to the upstream, and
this module never imports a server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlencode

from proxy.app.command_inputs import ExtraRedaction, Reads, RuleChoice
from proxy.app.contract_inputs import project_contract
from proxy.app.recording import MAX_BODY_BYTES, TOKEN_VARIABLE, UPSTREAM_TIMEOUT
from proxy.app.report_writing import Shown, placeholder_in, save_document, write_report
from proxy.app.verify import (
    Send,
    VerifyOptions,
    cassette_files,
    read_cassettes,
    update_cassettes,
    update_lines,
    verify,
)
from proxy.core.drift.verification import Verification, answer_error, token_refusal
from proxy.core.model.bodies import body_from_bytes, body_to_bytes
from proxy.core.model.exchange import Headers, Request, Response
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.redaction.book import KNOWN
from proxy.errors import CommerceProxyError, UsageError

ANOTHER_TOKEN = (
    f"give another with --token or ${TOKEN_VARIABLE}, or --client-id and --client-secret; "
    "no drift is reported"
)


class CredentialsRefused(UsageError):
    """The live service refused the token or client credentials `verify` was given (exit 2)."""


class NoAnswer(Exception):
    """What a transport raises when the live service gave no complete answer (its text says why)."""


class Answer(Protocol):
    """One whole answer of the live service, as the transport read it."""

    @property
    def status(self) -> int: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def headers(self) -> Headers: ...
    @property
    def body(self) -> bytes: ...


class Transport(Protocol):
    """An HTTP client to the upstream: `send` one request (its target below the upstream's base path)
    and read the whole answer, raising `NoAnswer` when there is none; `close` its connections."""

    async def send(self, method: str, target: str, headers: Headers, body: bytes) -> Answer: ...

    def close(self) -> None: ...


# upstream, timeout in seconds, largest answer body, private CA bundle (None: the system's)
Connect = Callable[[str, float, int, Path | None], Transport]


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    """What `verify` was asked: its cassettes and upstream, its credentials, what to re-send, its report
    and whether to write the drifted answers back."""

    paths: tuple[Path, ...]
    upstream: str  # checked: an http(s) URL with a host, without its trailing slash
    token: str | None = None  # --token, else $COMMERCE_PROXY_TOKEN
    client_id: str | None = None
    client_secret: str | None = None
    writes: bool = False
    concurrency: int = 8
    format: str = "text"  # text, json, junit or markdown
    output: Path | None = None
    update: bool = False
    strict: bool = False
    verbose: bool = False
    upstream_timeout: float = UPSTREAM_TIMEOUT
    ca_bundle: Path | None = None
    redaction: ExtraRedaction = field(default_factory=ExtraRedaction)
    rules: RuleChoice = field(default_factory=RuleChoice)


def run_verify(request: VerifyRequest, connect: Connect, shown: Shown) -> int:
    """`verify`: 0 when nothing breaking drifted (or once --update wrote), 1 on breaking drift (data
    drift too with --strict); `CredentialsRefused` (exit 2) when the service refused the credentials,
    after writing, with -o, a report saying so."""
    files = cassette_files(request.paths)
    if request.output is not None:
        Reads(tuple(files), request.rules, ca_bundle=request.ca_bundle).refuse_bad_output(request.output)
    in_force = request.rules.load()
    contract = project_contract(in_force.project, request.rules.specs, request.rules.overlays)
    policy = request.redaction.over(in_force.project.redaction)
    cassettes = read_cassettes(files)

    async def verified() -> Verification:
        transport = connect(request.upstream, request.upstream_timeout, MAX_BODY_BYTES, request.ca_bundle)
        try:
            token = request.token or await client_token(transport, request.client_id, request.client_secret)
            KNOWN.add([token] if token else [])
            choices = VerifyOptions(request.writes, request.concurrency, token, request.upstream)
            return await verify(cassettes, sender(transport), in_force, policy, choices, contract)
        finally:
            transport.close()

    try:
        verification = asyncio.run(verified())
        refused = verification.refused()
        if refused is not None:  # an expired secret is no change of the service: no drift, no update
            raise CredentialsRefused(f"the live service refused the token ({refused}); {ANOTHER_TOKEN}")
    except CredentialsRefused as error:
        if request.output is not None:  # a job that uploads its report gets one saying why
            from proxy.core.reports.verification import refused_report

            document = refused_report(request.format, str(error))
            save_document(request.output, KNOWN.scrub(document, placeholder_in(request.format)))
        raise
    # a live answer may echo the token or client secret
    report = KNOWN.scrub("".join(_chunks(verification, request)), placeholder_in(request.format))
    write_report([report], request.output, shown)
    if request.update:
        for updated in update_cassettes(cassettes, verification):
            for line in update_lines(updated):
                shown.note(line)
        return 0
    return 1 if verification.failed(request.strict) else 0


def _chunks(verification: Verification, request: VerifyRequest) -> Iterable[str]:
    """The report in the format asked for."""
    from proxy.core.reports import verification as reports

    if request.format == "junit":
        return reports.verify_junit(verification, request.strict)
    render = {"text": reports.verify_text, "json": reports.verify_json, "markdown": reports.verify_markdown}
    return [render[request.format](verification, request.verbose)]


async def client_token(transport: Transport, client_id: str | None, client_secret: str | None) -> str | None:
    """A fresh token from the token endpoint, with client credentials; None without them."""
    if not client_id and not client_secret:
        return None
    if not (client_id and client_secret):
        raise UsageError("--client-id and --client-secret go together")
    # the secret is never written, even when echoed; the client id is an identifier recordings keep
    # (record's redaction keeps it too), so an update rewrites no token request for it
    KNOWN.add((client_secret,))
    form = urlencode(
        {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
    ).encode()
    headers = (("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"))
    answer = await _send(transport, "POST", "/oauth/access_token", headers, form)
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


async def _send(transport: Transport, method: str, target: str, headers: Headers, body: bytes) -> Answer:
    try:
        return await transport.send(method, target, headers, body)
    except NoAnswer as error:
        raise CommerceProxyError(f"{method} {target}: the live service gave no answer: {error}") from None


def sender(transport: Transport) -> Send:
    """Send one recorded request as the client sent it, less what belongs to the connection."""

    async def send(request: Request) -> Response:
        headers = end_to_end(request.headers, frozenset({"host", "content-length"}))
        answer = await _send(transport, request.method, request.target, headers, body_to_bytes(request.body))
        body = body_from_bytes(answer.body, answer.headers)
        return Response(answer.status, answer.headers, body, answer.reason)

    return send
