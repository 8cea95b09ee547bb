"""The `commerce-proxy` command line: the parser built from one module per command, and one-line errors.

Bad input ends in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from proxy.app.command_log import use_command_log
from proxy.cli import cassette, check, demo, interchange, record, replay, rules, sandbox, spy, ui, verify
from proxy.cli.cassette_diff import git_driver_argv
from proxy.cli.help import finish_help
from proxy.cli.options import FLAGS, OneLineParser, common_options
from proxy.cli.output import say
from proxy.core.redaction.book import KNOWN
from proxy.errors import CommerceProxyError, SettingError
from proxy.version import __version__

COMMANDS = (record, spy, replay, check, verify, rules, sandbox, demo, cassette, interchange, ui)

log = logging.getLogger("proxy")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    parser = build_parser()
    arguments = parser.parse_args(git_driver_argv(sys.argv[1:] if argv is None else argv))
    use_command_log(logging.WARNING if arguments.quiet else logging.INFO)
    try:
        return int(arguments.run(arguments))
    except CommerceProxyError as error:
        said = error.named(FLAGS) if isinstance(error, SettingError) else error  # the core's words, our flags
        say(f"commerce-proxy: error: {KNOWN.scrub(str(said))}", err=True)
        return 2
    except BrokenPipeError:  # the reader left (`| head`): not an error of ours, nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        say(f"commerce-proxy: error: {KNOWN.scrub(str(error))}", err=True)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug of ours: still one line, the traceback when asked for
        if os.environ.get("COMMERCE_PROXY_TRACEBACK"):
            raise
        problem = KNOWN.scrub(" ".join(f"{type(error).__name__}: {error}".split()))
        say(
            f"commerce-proxy: internal error: {problem} (a bug: please report it; "
            "COMMERCE_PROXY_TRACEBACK=1 shows where)",
            err=True,
        )
        return 70


def build_parser() -> argparse.ArgumentParser:
    """All commands and their options, each command's from its own module."""
    parser = OneLineParser(
        prog="commerce-proxy",
        description="Record, check and replay traffic of the commerce API.",
    )
    parser.add_argument("--version", action="version", version=f"commerce-proxy {__version__}")
    common = common_options()
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_to(commands, common)
    finish_help(parser)
    return parser
