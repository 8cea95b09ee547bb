"""`sandbox`: the in-memory stand-in for the real service, built from the documentation alone."""

from __future__ import annotations

import argparse
from typing import Any

from proxy.cli import options
from proxy.cli.serving import serve
from proxy.errors import UsageError
from proxy.sandbox.datasets import CHANGES


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    sandbox = commands.add_parser(
        "sandbox", parents=[common], help="run the in-memory stand-in for the real service"
    )
    options.add_serving(sandbox, default_port=9000)
    sandbox.add_argument(
        "--client-id", default="sandbox-client", help="the client_id the token endpoint takes"
    )
    sandbox.add_argument(
        "--client-secret", default="sandbox-secret", help="the client_secret the token endpoint takes"
    )
    sandbox.add_argument(
        "--default-page-length",
        type=int,
        choices=range(1, 101),
        default=25,
        metavar="N",
        help="25 as documented; 100 behaves like an older store",
    )
    sandbox.add_argument(
        "--break",
        dest="broken",
        metavar="RULE_ID",
        action="append",
        default=[],
        help="break a documented rule, for demos and end-to-end tests (see `commerce-proxy rules`); "
        "repeat it, or give several separated by commas",
    )
    sandbox.add_argument(
        "--change",
        dest="changes",
        metavar="KIND",
        action="append",
        default=[],
        help="answer lists as a later service might, to try verify and cassette diff on: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in CHANGES.items()),
    )
    sandbox.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`sandbox`: serve the stand-in until stopped."""
    from proxy.sandbox.app import SandboxSettings, create_sandbox_app

    try:
        settings = SandboxSettings(
            client_id=arguments.client_id,
            client_secret=arguments.client_secret,
            default_page_length=arguments.default_page_length,
            broken=[rule.strip() for given in arguments.broken for rule in given.split(",") if rule.strip()],
            changes=[
                kind.strip() for given in arguments.changes for kind in given.split(",") if kind.strip()
            ],
            allowed_hosts=frozenset([*arguments.allow_host, arguments.host.strip("[]").lower()]),
        )
    except ValueError as error:
        option = "--change" if "no change" in str(error) else "--break"
        raise UsageError(f"{option}: {error}") from None

    def ready(url: str) -> str:
        return (
            f"commerce-proxy sandbox: listening on {url} "
            f"(client_id={settings.client_id}, client_secret={settings.client_secret})"
            + (f", breaking {', '.join(sorted(settings.broken or ()))}" if settings.broken else "")
            + (f", changed: {', '.join(sorted(settings.changes))}" if settings.changes else "")
        )

    return serve(create_sandbox_app(settings), arguments, ready)
