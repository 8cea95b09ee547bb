"""`cassette diff A B`: what changed for the API between two versions of a cassette, and the same as
a git diff driver (`--git`), so `git diff` of a re-recorded cassette shows meaning, not moved lines."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proxy.app.cassette_diff import DIFF_FORMATS
from proxy.cli import options
from proxy.cli.inputs import rule_choice
from proxy.cli.output import say
from proxy.errors import CommerceProxyError, UsageError

# git's external diff gets: path old-file old-hex old-mode new-file new-hex new-mode, then new-path
# and a similarity message for a rename; only the path for an unmerged one.
GIT_ARGUMENTS = 7
GIT_RENAMED = 9
GIT_UNMERGED = 1


def add_to(actions: Any, common: argparse.ArgumentParser) -> None:
    diff = actions.add_parser(
        "diff",
        parents=[common],
        help="compare two versions of a cassette by meaning (exit 1 when more than volatile values differ)",
    )
    diff.add_argument("paths", metavar="CASSETTE", type=Path, nargs="+", help="A and B (or git's seven)")
    diff.add_argument("--format", choices=DIFF_FORMATS, default="text", help="for people, a PR, or tools")
    diff.add_argument("-v", "--verbose", action="store_true", help="also list volatile differences")
    diff.add_argument("-o", "--output", metavar="FILE", type=Path, help="write the diff here, not stdout")
    diff.add_argument(
        "--git",
        action="store_true",
        help="run as git's external diff (last, before git's arguments): print the text diff, exit 0",
    )
    options.add_contract_options(diff)
    options.add_rule_options(diff)
    diff.set_defaults(run=run)


def git_driver_argv(argv: Sequence[str]) -> list[str]:
    """The command line with `--` put after `cassette diff ... --git`: git appends its arguments to the
    configured command, and a path of its may start with `-`, so none of them is read as an option."""
    arguments = list(argv)
    if arguments[:2] != ["cassette", "diff"] or "--git" not in arguments:
        return arguments
    flag = arguments.index("--git")
    if "--" in arguments[2:flag]:
        return arguments
    given = arguments[flag + 1 :]
    if len(given) not in (GIT_ARGUMENTS, GIT_RENAMED, GIT_UNMERGED) and given[:1] == ["--"]:
        return arguments  # `--git -- ...` written out by hand
    return [*arguments[: flag + 1], "--", *given]


def run(arguments: argparse.Namespace) -> int:
    paths: list[Path] = arguments.paths
    if not arguments.git:
        if len(paths) != 2:
            raise UsageError(f"cassette diff compares two cassettes, A and B; got {len(paths)}")
        a, b = paths
        if arguments.output is not None:
            from proxy.app.command_inputs import Reads

            Reads((a, b), rule_choice(arguments)).refuse_bad_output(arguments.output, "the diff")
        return _compare(arguments, a, b, str(a), str(b))
    if arguments.output is not None:
        raise UsageError("--git prints the diff for git: -o is not taken with it")
    if len(paths) == GIT_UNMERGED:
        say(f"{paths[0]}: unmerged, not compared")
        return 0
    if len(paths) not in (GIT_ARGUMENTS, GIT_RENAMED):
        raise UsageError(f"--git takes the {GIT_ARGUMENTS} arguments git gives an external diff")
    name = str(paths[0])
    label_a, label_b = f"a/{name}", f"b/{paths[7] if len(paths) == GIT_RENAMED else name}"
    try:
        _compare(arguments, paths[1], paths[4], label_a, label_b)
    except (CommerceProxyError, OSError) as error:
        # git stops at an external diff that fails: say why here, in the diff, and let git go on
        say(f"{label_a} -> {label_b}: not compared: {error}")
    return 0  # git stops at an external diff that exits non-zero


def _compare(arguments: argparse.Namespace, a: Path, b: Path, label_a: str, label_b: str) -> int:
    from proxy.app.cassette_diff import DiffFormat, DiffRequest, rendered_diff
    from proxy.app.report_writing import write_report
    from proxy.cli.reporting import shown

    kind: DiffFormat = "text" if arguments.git else arguments.format
    asked = DiffRequest(a, b, label_a, label_b, kind, arguments.verbose, rule_choice(arguments))
    done = rendered_diff(asked)
    write_report([done.document], arguments.output, shown(), "the diff")
    return 1 if done.drifted else 0
