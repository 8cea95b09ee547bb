"""What `--help` shows besides the arguments: each command's example, and defaults beside the options
that have one, so a user can go from `--help` to a working command line."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

EXAMPLES: dict[str, str] = {
    "record": "commerce-proxy record --upstream https://useast.api.elasticpath.com "
    "--cassette cassettes/session.yaml",
    "spy": "commerce-proxy spy --upstream https://useast.api.elasticpath.com --port 8080 "
    "--format junit -o spy.xml --fail-on error",
    "replay": "commerce-proxy replay --cassette cassettes/session.yaml --simulate --port 8080",
    "check": "commerce-proxy check cassettes/ --format junit -o conformance.xml",
    "verify": "commerce-proxy verify cassettes/ --upstream https://useast.api.elasticpath.com "
    "--format markdown",
    "rules": "commerce-proxy rules --format json",
    "sandbox": "commerce-proxy sandbox --port 9000 --break pagination.links.next",
    "demo": "commerce-proxy demo --cassette demo.yaml",
    "ui": "commerce-proxy ui cassettes/ build/spy.journal --port 8090",
    "cassette": "commerce-proxy cassette list cassettes/session.yaml",
    "cassette list": "commerce-proxy cassette list cassettes/",
    "cassette show": "commerce-proxy cassette show cassettes/session.yaml 6",
    "cassette grep": "commerce-proxy cassette grep cassettes/ 'method=PUT status>=400'",
    "cassette diff": "commerce-proxy cassette diff old/session.yaml cassettes/session.yaml --format markdown",
    "cassette delete": "commerce-proxy cassette delete cassettes/session.yaml 3 7 -1",
    "cassette keep": "commerce-proxy cassette keep cassettes/session.yaml --where 'path~/v2/subscriptions'",
    "cassette merge": "commerce-proxy cassette merge a.yaml b.yaml -o all.yaml",
    "cassette split": "commerce-proxy cassette split cassettes/session.yaml --by path -o parts/",
    "cassette redact": "commerce-proxy cassette redact cassettes/session.yaml "
    "--json-path data.attributes.email",
    "cassette set": "commerce-proxy cassette set cassettes/session.yaml 6 "
    "resp.json.data.attributes.name '\"Gold\"'",
    "cassette unset": "commerce-proxy cassette unset cassettes/session.yaml 6 resp.header.Date",
    "cassette rehost": "commerce-proxy cassette rehost cassettes/session.yaml "
    "--to https://shop.example/commerce",
    "cassette fix-etag": "commerce-proxy cassette fix-etag cassettes/session.yaml",
    "cassette fmt": "commerce-proxy cassette fmt --check cassettes/",
    "import-har": "commerce-proxy import-har browser.har -o cassettes/from-browser.yaml "
    "--origin https://shop.example",
    "import-mitm": "commerce-proxy import-mitm flows.mitm -o cassettes/phone.yaml",
    "export-har": "commerce-proxy export-har cassettes/session.yaml -o session.har",
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and examples as written, and `(default: X)` after an option's help when it has a
    default worth saying (not None, False or empty) that its help does not already give."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            action.option_strings
            and default not in (None, False, [], ())
            and default is not argparse.SUPPRESS
            and "default" not in text
        ):
            text += " (default: %(default)s)"
        return text


def commands(
    parser: argparse.ArgumentParser, name: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command and sub-command parser, by its words (`cassette list`), the top one as ""."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, child in action.choices.items():
                yield from commands(child, f"{name} {word}".strip())


def finish_help(parser: argparse.ArgumentParser) -> None:
    """Give every command the formatter and its example."""
    for name, command in commands(parser):
        command.formatter_class = HelpFormatter
        if name in EXAMPLES:
            command.epilog = f"example:\n  {EXAMPLES[name]}"
