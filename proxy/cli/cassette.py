"""`commerce-proxy cassette ...`: list, show, grep and edit cassettes from the command line.

Every edit is written atomically, redacted by the project's policy, and re-checked against the rules;
the findings it adds are shown, and exit code 1 says it added an error. Unusable input is one line and
exit 2 (raised as `CommerceProxyError`, printed by `proxy.cli.main`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proxy.app import cassette_edits as edits
from proxy.cli import cassette_diff, options
from proxy.cli.cassette_reading import run_grep, run_list, run_show, selection_of
from proxy.cli.inputs import checked_upstream, extra_redaction, rule_choice
from proxy.cli.output import say
from proxy.core.editing.edits import FIELDS_HELP, parse_value
from proxy.core.editing.selection import FIELDS_HELP as SELECTION_FIELDS
from proxy.core.reports.cassette_listing import finding_line


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register `cassette` and its sub-commands on the main parser's sub-parsers."""
    cassette = commands.add_parser(
        "cassette",
        parents=[common],
        help="list, show, grep and edit cassettes (re-checked against the rules after every edit)",
        description=f"EXPR selects exchanges: FIELD OP VALUE terms ({SELECTION_FIELDS}; OP one of "
        "= != ~ !~ < <= > >=), side by side or with and/or/not and parentheses. "
        "See docs/editing-and-interchange.md.",
    )
    actions = cassette.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(
        name: str, help_text: str, run: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, parents=[common], help=help_text)
        parser.set_defaults(run=run)
        options.add_rule_options(parser)
        return parser

    def edit(name: str, help_text: str, run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        parser = action(name, help_text, run)
        parser.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
        parser.add_argument("--no-check", action="store_true", help="do not re-check the result")
        parser.add_argument(
            "--drop-comments",
            action="store_true",
            help="rewrite even a cassette with hand-written comments (they are lost)",
        )
        return parser

    listing = action("list", "one line per exchange: index, method, path, status, findings", run_list)
    listing.add_argument("path", metavar="PATH", type=Path, help="a cassette file or folder")
    listing.add_argument("--format", choices=("text", "json"), default="text", help="a table, or JSON")
    listing.add_argument(
        "--stale",
        metavar="AGE",
        nargs="?",
        const="",
        help="only exchanges recorded longer ago than the config's max_age (or AGE, e.g. 90d), with "
        "their recording time",
    )

    show = action("show", "one exchange in full, with its findings", run_show)
    show.add_argument("path", metavar="PATH", type=Path, help="a cassette file")
    show.add_argument("index", metavar="INDEX", help="0 is the first exchange, -1 the last")
    show.add_argument(
        "--format",
        choices=("yaml", "json"),
        default="yaml",
        help="yaml: the exchange's lines as the cassette file holds them; json: bodies parsed, with findings",
    )

    grep = action("grep", "the exchanges an expression selects (exit 1 when none)", run_grep)
    grep.add_argument("path", metavar="PATH", type=Path, help="a cassette file or folder")
    grep.add_argument("expression", metavar="EXPR", help="which exchanges (see the description above)")
    grep.add_argument("--format", choices=("text", "json"), default="text", help="a table, or JSON")

    delete = edit("delete", "remove exchanges by index", run_delete)
    delete.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    delete.add_argument("indexes", metavar="INDEX", nargs="+", help="0 is the first exchange, -1 the last")

    keep = edit("keep", "keep only the exchanges an expression selects", run_keep)
    keep.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    keep.add_argument("--where", metavar="EXPR", required=True, help="the exchanges to keep")

    merge = edit("merge", "merge cassettes by recording time, dropping exact repeats", run_merge)
    merge.add_argument("paths", metavar="CASSETTE", type=Path, nargs="+", help="the cassettes to merge")
    merge.add_argument("-o", "--output", metavar="OUT", type=Path, required=True, help="the merged cassette")
    merge.add_argument("--force", action="store_true", help="replace OUT even when it is not an input")

    split = edit("split", "one cassette per path or per status", run_split)
    split.add_argument("path", metavar="PATH", type=Path, help="the cassette to split")
    split.add_argument(
        "--by", choices=("path", "status"), required=True, help="one cassette per request path, or per status"
    )
    split.add_argument(
        "-o", "--output", metavar="DIR", type=Path, required=True, help="the folder for the parts"
    )
    split.add_argument("--force", action="store_true", help="replace cassettes already in DIR")

    redact = edit("redact", "replace secrets and personal data with a placeholder", run_redact)
    redact.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    for option, dest, metavar in (
        ("--header", "redact_header", "NAME"),
        ("--query", "redact_query", "NAME"),
        ("--form", "redact_form", "NAME"),
        ("--json-path", "redact_json_path", "PATH"),
    ):
        redact.add_argument(
            option,
            dest=dest,
            metavar=metavar,
            action="append",
            default=[],
            help=f"also redact this {option.removeprefix('--').replace('-', ' ')} (repeatable)",
        )

    setter = edit("set", "set one field of one exchange (a header, a JSON body field...)", run_set)
    setter.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    setter.add_argument("index", metavar="INDEX", help="0 is the first exchange, -1 the last")
    setter.add_argument("field", metavar="FIELD", help=f"one of: {FIELDS_HELP}")
    setter.add_argument(
        "value", metavar="VALUE", help="JSON when it reads as JSON (12, true, null), else text"
    )
    setter.add_argument("--string", action="store_true", help="take VALUE as text even if it reads as JSON")

    unset = edit("unset", "remove a header, a JSON body field, a body...", run_unset)
    unset.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    unset.add_argument("index", metavar="INDEX", help="0 is the first exchange, -1 the last")
    unset.add_argument("field", metavar="FIELD", help=f"one of: {FIELDS_HELP}")

    rehost = edit("rehost", "move a cassette to another upstream URL (links in bodies too)", run_rehost)
    rehost.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")
    rehost.add_argument(
        "--to", metavar="URL", required=True, help="the new upstream, e.g. https://shop.example"
    )

    fix = edit("fix-etag", 'set each entry answer\'s ETag to W/"<etag_id>" of its body', run_fix_etag)
    fix.add_argument("path", metavar="PATH", type=Path, help="the cassette file to edit")

    cassette_diff.add_to(actions, common)

    fmt = action("fmt", "rewrite cassettes in the normal layout (--check: only report)", run_fmt)
    fmt.add_argument("paths", metavar="PATH", type=Path, nargs="+", help="cassette files or folders")
    fmt.add_argument(
        "--check",
        action="store_true",
        help="fmt's dry run: list files not in the normal layout, write nothing; exit 1 if any",
    )
    fmt.add_argument("--drop-comments", action="store_true", help="rewrite files with comments anyway")


# ------------------------------------------------------------------------------------------- editing


def _options(arguments: argparse.Namespace) -> edits.EditOptions:
    """What every edit's arguments say about the rules and how to write (`redact`'s names too)."""
    return edits.EditOptions(
        rules=rule_choice(arguments),
        dry_run=arguments.dry_run,
        no_check=arguments.no_check,
        drop_comments=arguments.drop_comments,
        extra_redaction=extra_redaction(arguments) if hasattr(arguments, "redact_header") else None,
    )


def _shown(arguments: argparse.Namespace, edited: edits.Edited) -> int:
    """The edit's summary, then what the re-check found; 1 if the edit added an error."""
    say(("would: " if arguments.dry_run else "") + edited.summary)
    result = edited.recheck
    if result is None:
        return 0
    for finding in result.added:
        where = f"{finding.cassette} " if edited.written > 1 else ""
        say(f"new {where}{finding_line(finding)}")
    say(
        f"re-checked against {result.rules} rules: {len(result.added)} new finding(s), "
        f"{result.errors} of them error(s); {result.gone} finding(s) gone"
    )
    return 1 if result.errors else 0


def run_delete(arguments: argparse.Namespace) -> int:
    """`cassette delete`: remove exchanges by index."""
    request = edits.DeleteRequest(arguments.path, tuple(arguments.indexes), _options(arguments))
    return _shown(arguments, edits.delete(request))


def run_keep(arguments: argparse.Namespace) -> int:
    """`cassette keep --where EXPR`: keep only what the expression selects."""
    request = edits.KeepRequest(arguments.path, selection_of(arguments.where, "--where"), _options(arguments))
    return _shown(arguments, edits.keep(request))


def run_merge(arguments: argparse.Namespace) -> int:
    """`cassette merge A B... -o OUT`: by recording time, exact repeats dropped."""
    request = edits.MergeRequest(
        tuple(arguments.paths), arguments.output, arguments.force, _options(arguments)
    )
    return _shown(arguments, edits.merge(request))


def run_split(arguments: argparse.Namespace) -> int:
    """`cassette split --by path|status -o DIR`: one cassette per group, order kept."""
    request = edits.SplitRequest(
        arguments.path, arguments.by, arguments.output, arguments.force, _options(arguments)
    )
    return _shown(arguments, edits.split(request))


def run_redact(arguments: argparse.Namespace) -> int:
    """`cassette redact`: the default, configured and named secrets replaced by the placeholder."""
    return _shown(arguments, edits.redact(edits.CassetteRequest(arguments.path, _options(arguments))))


def run_set(arguments: argparse.Namespace) -> int:
    """`cassette set PATH INDEX FIELD VALUE`."""
    value = parse_value(arguments.value, arguments.string)
    request = edits.FieldRequest(
        arguments.path, arguments.index, arguments.field, value, options=_options(arguments)
    )
    return _shown(arguments, edits.change_field(request))


def run_unset(arguments: argparse.Namespace) -> int:
    """`cassette unset PATH INDEX FIELD`."""
    request = edits.FieldRequest(
        arguments.path, arguments.index, arguments.field, unset=True, options=_options(arguments)
    )
    return _shown(arguments, edits.change_field(request))


def run_rehost(arguments: argparse.Namespace) -> int:
    """`cassette rehost PATH --to URL`."""
    target = checked_upstream(arguments.to, "rehost", "--to")
    request = edits.CassetteRequest(arguments.path, _options(arguments), to=target)
    return _shown(arguments, edits.rehost(request))


def run_fix_etag(arguments: argparse.Namespace) -> int:
    """`cassette fix-etag`: the ETag/etag_id agreement repaired on purpose."""
    return _shown(arguments, edits.fix_etag(edits.CassetteRequest(arguments.path, _options(arguments))))


def run_fmt(arguments: argparse.Namespace) -> int:
    """`cassette fmt`: the normal layout (what a clean recording writes); --check lists files off it."""
    from proxy.app.cassette_format import FormatRequest, format_cassettes

    request = FormatRequest(
        tuple(arguments.paths), arguments.check, arguments.drop_comments, rule_choice(arguments)
    )
    unformatted = format_cassettes(request, say)
    if arguments.check:
        if unformatted:
            say(f"{len(unformatted)} file(s) not in the normal layout", err=True)
        return 1 if unformatted else 0
    return 0
