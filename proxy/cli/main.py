"""The `commerce-proxy` command line: the parser built from one module per command, and one-line errors.

Bad input ends in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from proxy.app.command_log import use_command_log
from proxy.cli.help import finish_help
from proxy.cli.options import FLAGS, OneLineParser, common_options
from proxy.cli.output import say
from proxy.core.redaction.book import KNOWN
from proxy.errors import JOURNAL_KEPT, CommerceProxyError, SettingError
from proxy.version import __version__

# The module of proxy/cli/ that adds each command, in the order --help lists them. A command line names
# its command first, so only that module is imported and its parser built: each start of the tool
# (a server, a checker, a `check` in a script) skips the others' imports and options.
COMMANDS = {
    "record": "record",
    "spy": "spy",
    "replay": "replay",
    "check": "check",
    "verify": "verify",
    "rules": "rules",
    "sandbox": "sandbox",
    "demo": "demo",
    "cassette": "cassette",
    "import-har": "interchange",
    "import-mitm": "interchange",
    "export-har": "interchange",
    "ui": "ui",
}

log = logging.getLogger("proxy")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["cassette"]:  # git's own arguments, in the diff driver's command line
        from proxy.cli.cassette_diff import git_driver_argv

        words = git_driver_argv(words)
    parser = build_parser(words[0] if words else None)
    arguments = parser.parse_args(words)
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
    except KeyboardInterrupt as stop:  # a second Ctrl-C while the command stops: it stops at once
        line = "commerce-proxy: interrupted"
        if str(stop) == JOURNAL_KEPT:  # a `record` stopped at once after it recorded
            line += (
                "; the cassette was not saved: its journal keeps every exchange recorded, and the next "
                "command that loads the cassette folds it in"
            )
        say(line, err=True)
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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The commands and their options, each command's from its own module: only `command`'s when it
    names one, else all of them (for --help, --version and a word that names none)."""
    parser = OneLineParser(
        prog="commerce-proxy",
        description="Record, check and replay traffic of the commerce API.",
    )
    parser.add_argument("--version", action="version", version=f"commerce-proxy {__version__}")
    common = common_options()
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"proxy.cli.{module}").add_to(commands, common)
    finish_help(parser)
    return parser
