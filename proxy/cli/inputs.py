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
    from proxy.app.recording import RecordSettings


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


def matching_from(arguments: argparse.Namespace, configured: MatchPolicy) -> MatchPolicy:
    """The command line's matching, ignoring what the project config's `match` table ignores too."""
    return command_matching(arguments).joined(configured)


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
    from urllib.parse import urlsplit

    if not upstream:
        hint = " (or --mode none to replay only)" if command == "record" else ""
        raise UsageError(f"{command} needs {option} URL{hint}")
    from proxy.core.redaction.book import KNOWN
    from proxy.core.redaction.urls import url_without_secrets

    shown, secrets = url_without_secrets(upstream)  # a password or api_key in the URL is never echoed
    KNOWN.add(secrets)
    KNOWN.add([value for value in [upstream_authorization(upstream)] if value])
    parts = urlsplit(upstream)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{option} {shown!r}: expected an http:// or https:// URL with a host")
    return shown.rstrip("/")


def upstream_authorization(upstream: str) -> str | None:
    """The Authorization value of credentials written in an --upstream URL (`http://user:pw@host`)."""
    from proxy.core.model.links import without_credentials

    return without_credentials(upstream)[1]


def load_rules_in_force(arguments: argparse.Namespace) -> RulesInForce:
    """The rules and the project config, as the command line and the config name them."""
    return rule_choice(arguments).load()


def rule_choice(arguments: argparse.Namespace) -> RuleChoice:
    """`--config` and `--rules`, as given."""
    return RuleChoice(arguments.config, arguments.rules)


def rule_source(arguments: argparse.Namespace) -> RuleSource:
    """Where the command line's rules come from, as absolute paths another process can load too."""
    return rule_choice(arguments).source()


def forwarding_settings(arguments: argparse.Namespace, command: str) -> RecordSettings:
    """`record`'s and `spy`'s settings from their arguments (spy has no cassette, mode or matching
    options). The upstream is checked before the rules are read, so its mistake is the one reported
    first."""
    from proxy.app.record_setup import record_settings

    checked_upstream(arguments.upstream, command)
    in_force = load_rules_in_force(arguments)
    matching = "match_on" in arguments  # record matches (new_episodes, and re-recording's pairing)
    return record_settings(
        arguments.upstream,
        getattr(arguments, "cassette", None),
        in_force,
        mode=getattr(arguments, "mode", "once"),
        fresh=getattr(arguments, "fresh", False),
        checking=not getattr(arguments, "no_check", False),
        match=MatchPolicy.parse(arguments.match_on, arguments.ignore_query, arguments.match_ignore_json)
        if matching
        else None,
        redact_headers=arguments.redact_header,
        redact_query=arguments.redact_query,
        redact_form=arguments.redact_form,
        redact_json_paths=arguments.redact_json_path,
        upstream_timeout=arguments.upstream_timeout,
        max_body_bytes=arguments.max_body_bytes,
        ca_bundle=arguments.ca_bundle,
        rule_source=rule_source(arguments),
        spellings=FLAGS,
    )
