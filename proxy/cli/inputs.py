"""What the commands read from their arguments: the cassettes a user named, the rules and redaction in
force, and the upstream URL, each checked with a one-line usage error when it will not do.

Shared by the command modules, so none of them imports the command line itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.cli.output import say
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import UsageError
from proxy.store.files import Loaded, Streamed
from proxy.store.rule_files import RulesInForce, RuleSource
from proxy.store.shipped import shipped_dir

if TYPE_CHECKING:
    from proxy.app.recording import RecordSettings


def redaction_from(
    arguments: argparse.Namespace, configured: RedactionPolicy | None = None
) -> RedactionPolicy:
    """The default redaction policy, plus the project config's `redact` table, plus the command line."""
    return (configured or RedactionPolicy()).extended(
        headers=arguments.redact_header,
        query=arguments.redact_query,
        form_fields=arguments.redact_form,
        json_paths=arguments.redact_json_path,
    )


def matching_from(arguments: argparse.Namespace, configured: MatchPolicy) -> MatchPolicy:
    """The command line's matching, ignoring what the project config's `match` table ignores too."""
    return MatchPolicy.parse(arguments.match_on, arguments.ignore_query, arguments.match_ignore_json).joined(
        configured
    )


def show_notes(loaded: Sequence[Loaded | Streamed]) -> None:
    for one in loaded:
        for note in one.notes:
            say(f"commerce-proxy: {note}", err=True)


def named_cassettes(given: list[Path] | None, arguments: argparse.Namespace, command: str) -> list[Path]:
    """The cassettes a command was told to use: never the shipped examples unless `--examples` says so,
    so a suite cannot pass against example data. `replay --cassette-dir DIR` alone serves only what
    requests name with X-Commerce-Cassette."""
    paths = list(given or [])
    if getattr(arguments, "examples", False):
        paths.append(shipped_dir("cassettes"))
    if not paths and getattr(arguments, "cassette_dir", None) is None:
        how = "--cassette PATH (repeatable) or --cassette-dir DIR" if command == "replay" else "PATH..."
        raise UsageError(f"{command}: no cassettes named: give {how}, or --examples for the shipped examples")
    return paths


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
    return rule_source(arguments).load()


def rule_source(arguments: argparse.Namespace) -> RuleSource:
    """Where the command line's rules come from, as absolute paths another process can load too."""

    def absolute(path: Path | None) -> Path | None:
        return path.absolute() if path is not None else None

    return RuleSource(absolute(arguments.config), absolute(arguments.rules), Path.cwd())


def forwarding_settings(arguments: argparse.Namespace, command: str) -> RecordSettings:
    """What `record` and `spy` share: the upstream and how to reach it, redaction, and live checking
    with the rules in force (the spy's settings; `record` adds its cassette, mode and matching). The
    upstream is checked before the rules are read, so its mistake is the one reported first."""
    from proxy.app.recording import RecordSettings

    upstream = checked_upstream(arguments.upstream, command)
    engine = load_rules_in_force(arguments)
    return RecordSettings(
        upstream=upstream,
        upstream_authorization=upstream_authorization(arguments.upstream),
        cassette=None,
        redaction=redaction_from(arguments, engine.project.redaction),
        upstream_timeout=arguments.upstream_timeout,
        max_body_bytes=arguments.max_body_bytes,
        ca_bundle=arguments.ca_bundle,
        rules=engine.ruleset,
        rule_config=engine.project.config,
        rule_source=rule_source(arguments),
        # record matches (new_episodes, and re-recording's pairing); spy has no matching options
        match=matching_from(arguments, engine.project.match) if "match_on" in arguments else MatchPolicy(),
    )
