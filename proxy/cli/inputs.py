"""What the commands read from their arguments: the cassettes a user named, the rules and redaction in
force, and the upstream URL, each checked with a one-line usage error when it will not do.

Shared by the command modules, so none of them imports the command line itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from proxy.app.command_inputs import ExtraRedaction, RuleChoice
from proxy.cli.options import FLAGS
from proxy.cli.output import say
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import UsageError

if TYPE_CHECKING:
    from proxy.app.project_rules import RulesInForce, RuleSource
    from proxy.app.record_setup import ForwardRequest
    from proxy.app.session_report import SessionReportRequest


def redaction_from(
    arguments: argparse.Namespace, configured: RedactionPolicy | None = None
) -> RedactionPolicy:
    """The default redaction policy, plus the project config's `redact` table, plus the command line."""
    return extra_redaction(arguments).over(configured)


def extra_redaction(arguments: argparse.Namespace) -> ExtraRedaction:
    """`--redact-header`, `--redact-query`, `--redact-form` and `--redact-json-path`, as given."""
    return ExtraRedaction(
        tuple(arguments.redact_header),
        tuple(arguments.redact_query),
        tuple(arguments.redact_form),
        tuple(arguments.redact_json_path),
    )


def command_matching(arguments: argparse.Namespace) -> MatchPolicy:
    """`--match-on`, `--ignore-query` and `--match-ignore-json`, as given."""
    return MatchPolicy.parse(arguments.match_on, arguments.ignore_query, arguments.match_ignore_json)


class Noted(Protocol):
    """Something read with notes for the user (a journal folded in, a cache rebuilt)."""

    @property
    def notes(self) -> Sequence[str]: ...


def show_notes(loaded: Sequence[Noted]) -> None:
    for one in loaded:
        for note in one.notes:
            say(f"commerce-proxy: {note}", err=True)


def checked_upstream(upstream: str | None, command: str, option: str = "--upstream") -> str:
    """An http(s) URL with a host, without its trailing slash; anything else is a usage error."""
    from proxy.app.urls import checked_url

    if not upstream:
        hint = " (or --mode none to replay only)" if command == "record" else ""
        raise UsageError(f"{command} needs {option} URL{hint}")
    return checked_url(upstream, option)


def load_rules_in_force(arguments: argparse.Namespace) -> RulesInForce:
    """The rules and the project config, as the command line and the config name them."""
    return rule_choice(arguments).load()


def rule_choice(arguments: argparse.Namespace) -> RuleChoice:
    """`--config` and `--rules`, and `--spec` and `--overlay` where the command has them, as given."""
    specs, overlays = getattr(arguments, "spec", None) or (), getattr(arguments, "overlay", None) or ()
    return RuleChoice(arguments.config, arguments.rules, tuple(specs), tuple(overlays))


def rule_source(arguments: argparse.Namespace) -> RuleSource:
    """Where the command line's rules come from, as absolute paths another process can load too."""
    return rule_choice(arguments).source()


def forward_request(arguments: argparse.Namespace, command: str) -> ForwardRequest:
    """`spy`'s typed request, and `record`'s before its own options (its cassette, mode and matching)
    are added. The upstream is checked now, before the rules are read, so its mistake is the one
    reported first."""
    from proxy.app.record_setup import ForwardRequest

    checked_upstream(arguments.upstream, command)
    return ForwardRequest(
        arguments.upstream,
        redact=extra_redaction(arguments),
        upstream_timeout=arguments.upstream_timeout,
        max_body_bytes=arguments.max_body_bytes,
        ca_bundle=arguments.ca_bundle,
        rules=rule_choice(arguments),
        report=session_request(arguments),
        spellings=FLAGS,
    )


def session_request(arguments: argparse.Namespace) -> SessionReportRequest:
    """`record`'s or `spy`'s report options as the session report's request."""
    from proxy.app.session_report import SessionReportRequest

    return SessionReportRequest(
        format=arguments.format,
        output=arguments.output,
        per_rule=arguments.per_rule,
        summary_only=arguments.quiet,
        fail_on=arguments.fail_on,
        rules=rule_choice(arguments),
        ca_bundle=arguments.ca_bundle,
    )
