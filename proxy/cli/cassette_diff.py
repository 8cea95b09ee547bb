"""`cassette diff A B`: what changed for the API between two versions of a cassette, and the same as
a git diff driver (`--git`), so `git diff` of a re-recorded cassette shows meaning, not moved lines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from proxy.cli import options
from proxy.cli.inputs import load_engine
from proxy.errors import UsageError

GIT_ARGUMENTS = 7  # path old-file old-hex old-mode new-file new-hex new-mode


def add_to(actions: Any, common: argparse.ArgumentParser) -> None:
    diff = actions.add_parser(
        "diff",
        parents=[common],
        help="compare two versions of a cassette by meaning (exit 1 when more than volatile values differ)",
    )
    diff.add_argument("paths", metavar="CASSETTE", type=Path, nargs="+", help="A and B (or git's seven)")
    diff.add_argument(
        "--format", choices=("text", "markdown", "json"), default="text", help="for people, a PR, or tools"
    )
    diff.add_argument("-v", "--verbose", action="store_true", help="also list volatile differences")
    diff.add_argument(
        "--git",
        action="store_true",
        help="run as git's external diff: take git's seven arguments, print the text diff, exit 0",
    )
    options.add_rule_options(diff)
    diff.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    from proxy.app.cassette_diff import diff_cassettes
    from proxy.core.drift.report import diff_json, diff_markdown, diff_text

    paths: list[Path] = arguments.paths
    if arguments.git:
        if len(paths) != GIT_ARGUMENTS:
            raise UsageError(f"--git takes the {GIT_ARGUMENTS} arguments git gives an external diff")
        name, a, b = str(paths[0]), paths[1], paths[4]
        label_a, label_b = f"a/{name}", f"b/{name}"
    else:
        if len(paths) != 2:
            raise UsageError(f"cassette diff compares two cassettes, A and B; got {len(paths)}")
        a, b = paths
        label_a, label_b = str(a), str(b)
    diff = diff_cassettes(a, b, load_engine(arguments).project.match)
    if arguments.git or arguments.format == "text":
        sys.stdout.write(diff_text(diff, label_a, label_b, arguments.verbose))
    elif arguments.format == "markdown":
        sys.stdout.write(diff_markdown(diff, label_a, label_b, arguments.verbose))
    else:
        sys.stdout.write(diff_json(diff, arguments.verbose))
    if arguments.git:
        return 0  # git stops at an external diff that exits non-zero
    return 1 if diff.drifted else 0
