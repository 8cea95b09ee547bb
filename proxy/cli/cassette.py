"""`commerce-proxy cassette ...`: list, show, grep and edit cassettes from the command line.

Every edit is written atomically, redacted by the project's policy, and re-checked against the rules;
the findings it adds are shown, and exit code 1 says it added an error. Unusable input is one line and
exit 2 (raised as `CommerceProxyError`, printed by `proxy.cli.main`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from proxy.app import editing as session
from proxy.app.check_run import check_cassette
from proxy.cli import cassette_diff, options
from proxy.cli.cassette_reading import (
    files_in,
    finding_line,
    per_exchange,
    rules_in_force_for,
    run_grep,
    run_list,
    run_show,
    selected,
    selection_of,
)
from proxy.cli.inputs import checked_upstream, redaction_from
from proxy.cli.output import say
from proxy.core.cassette.document import Cassette, dump_cassette, exchange_to_document, with_current_header
from proxy.core.editing.edits import (
    FIELDS_HELP,
    checked_indexes,
    delete_exchanges,
    fix_etags,
    keep_exchanges,
    merge_cassettes,
    parse_value,
    rehost_cassette,
    set_field,
    split_cassette,
    unset_field,
)
from proxy.core.editing.selection import FIELDS_HELP as SELECTION_FIELDS
from proxy.core.redaction.redact import RedactionPolicy
from proxy.core.rules.findings import Finding
from proxy.errors import UsageError
from proxy.store import clock
from proxy.store.files import Editable, load_cassette, load_for_edit
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock


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
        parser = action(name, help_text, _under_lock(run))
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
    fmt.add_argument("--check", action="store_true", help="list files not in the normal layout; exit 1")
    fmt.add_argument("--drop-comments", action="store_true", help="rewrite files with comments anyway")


# ------------------------------------------------------------------------------------------- editing


def _under_lock(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """An edit of PATH in place, run under the lock every writer of the cassette takes: it reads the
    cassette, edits and saves it with no other edit or recording's save in between."""

    def locked(arguments: argparse.Namespace) -> int:
        path = getattr(arguments, "path", None)
        if path is None or arguments.dry_run or not path.parent.is_dir():
            return run(arguments)  # no cassette to edit in place; its own error says why
        with folder_lock(path):
            return run(arguments)

    return locked


def _policy(arguments: argparse.Namespace, engine: Any) -> RedactionPolicy:
    if hasattr(arguments, "redact_header"):
        return redaction_from(arguments, engine.project.redaction)
    return engine.project.redaction  # type: ignore[no-any-return]


def _editable(arguments: argparse.Namespace, path: Path) -> Editable:
    return session.editable(path, arguments.drop_comments)


def _write(
    arguments: argparse.Namespace,
    engine: Any,
    outputs: Sequence[tuple[Path, Cassette]],
    originals: Sequence[tuple[Path, Cassette]],
    summary: str,
    redacted_already: bool = False,
    before: Sequence[Finding] | None = None,
) -> int:
    """Redact, write atomically (unless --dry-run), re-check, show what the edit added; 1 if errors.

    The originals' findings (`before`, unless the caller already has them) are worked out only when
    the result is re-checked, so --no-check runs no rule at all.
    """
    written = session.save_edit(
        engine,
        _policy(arguments, engine),
        outputs,
        dry_run=arguments.dry_run,
        redacted_already=redacted_already,
    )
    say(("would: " if arguments.dry_run else "") + summary)
    if arguments.no_check:
        return 0
    result = session.recheck(engine, written, originals, before)
    for finding in result.added:
        where = f"{finding.cassette} " if len(written) > 1 else ""
        say(f"new {where}{finding_line(finding)}")
    say(
        f"re-checked against {result.rules} rules: {len(result.added)} new finding(s), "
        f"{result.errors} of them error(s); {result.gone} finding(s) gone"
    )
    return 1 if result.errors else 0


def run_delete(arguments: argparse.Namespace) -> int:
    """`cassette delete`: remove exchanges by index."""
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    indexes = checked_indexes(editable.cassette, arguments.indexes)
    edited = delete_exchanges(editable.cassette, indexes)
    summary = f"{arguments.path}: deleted {len(set(indexes))} exchange(s); {len(edited.exchanges)} left"
    return _write(
        arguments, engine, [(arguments.path, edited)], [(arguments.path, editable.cassette)], summary
    )


def run_keep(arguments: argparse.Namespace) -> int:
    """`cassette keep --where EXPR`: keep only what the expression selects."""
    selection = selection_of(arguments.where, "--where")
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    before = (
        check_cassette(engine, editable.cassette, str(arguments.path)) if selection.uses_findings else None
    )
    picked = set(selected(selection, editable.cassette, per_exchange(before or [])))
    edited = keep_exchanges(editable.cassette, lambda index, _: index in picked)
    total = len(editable.cassette.exchanges)
    summary = f"{arguments.path}: kept {len(edited.exchanges)} of {total} exchange(s)"
    originals = [(arguments.path, editable.cassette)]
    return _write(arguments, engine, [(arguments.path, edited)], originals, summary, before=before)


def run_merge(arguments: argparse.Namespace) -> int:
    """`cassette merge A B... -o OUT`: by recording time, exact repeats dropped."""
    engine = rules_in_force_for(arguments)
    output = arguments.output
    inputs = [path.resolve() for path in arguments.paths]
    if output.exists() and output.resolve() not in inputs and not arguments.force:
        raise UsageError(f"{output} exists and is not one of the inputs: pass --force to replace it")
    loaded = [(path, load_cassette(path).cassette) for path in arguments.paths]
    merged, dropped = merge_cassettes([(str(path), cassette) for path, cassette in loaded])
    summary = (
        f"{output}: merged {len(loaded)} cassette(s) into {len(merged.exchanges)} exchange(s); "
        f"{dropped} exact repeat(s) dropped"
    )
    return _write(arguments, engine, [(output, merged)], loaded, summary)


def run_split(arguments: argparse.Namespace) -> int:
    """`cassette split --by path|status -o DIR`: one cassette per group, order kept."""
    engine = rules_in_force_for(arguments)
    cassette = load_cassette(arguments.path).cassette
    parts = split_cassette(cassette, arguments.by)
    outputs = [(arguments.output / f"{name}.yaml", part) for name, part in parts.items()]
    existing = [str(path) for path, _ in outputs if path.exists()]
    if existing and not arguments.force:
        raise UsageError(f"{existing[0]} exists ({len(existing)} of the outputs do): pass --force to replace")
    summary = f"{arguments.output}: split {arguments.path} by {arguments.by} into {len(outputs)} cassette(s)"
    return _write(arguments, engine, outputs, [(arguments.path, cassette)], summary)


def run_redact(arguments: argparse.Namespace) -> int:
    """`cassette redact`: the default, configured and named secrets replaced by the placeholder."""
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    policy = _policy(arguments, engine)
    cleaned = session.redacted(editable.cassette, policy)
    changed = sum(
        exchange_to_document(old) != exchange_to_document(new)
        for old, new in zip(editable.cassette.exchanges, cleaned.exchanges, strict=True)
    )
    summary = f"{arguments.path}: redacted {changed} exchange(s)"
    originals = [(arguments.path, editable.cassette)]
    return _write(arguments, engine, [(arguments.path, cleaned)], originals, summary, redacted_already=True)


def _edit_one(arguments: argparse.Namespace, change: Callable[[Any], Any], what: str) -> int:
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    [index] = checked_indexes(editable.cassette, [arguments.index])
    exchanges = list(editable.cassette.exchanges)
    exchanges[index] = change(exchanges[index])
    edited = Cassette(tuple(exchanges), editable.cassette.upstream, editable.cassette.confirmed_at)
    originals = [(arguments.path, editable.cassette)]
    return _write(
        arguments, engine, [(arguments.path, edited)], originals, f"{arguments.path}: #{index}: {what}"
    )


def run_set(arguments: argparse.Namespace) -> int:
    """`cassette set PATH INDEX FIELD VALUE`."""
    value = parse_value(arguments.value, arguments.string)
    return _edit_one(
        arguments,
        lambda exchange: set_field(exchange, arguments.field, value, clock.now()),
        f"set {arguments.field} to {json.dumps(value, ensure_ascii=False)}",
    )


def run_unset(arguments: argparse.Namespace) -> int:
    """`cassette unset PATH INDEX FIELD`."""
    return _edit_one(
        arguments, lambda exchange: unset_field(exchange, arguments.field), f"removed {arguments.field}"
    )


def run_rehost(arguments: argparse.Namespace) -> int:
    """`cassette rehost PATH --to URL`."""

    target = checked_upstream(arguments.to, "rehost", "--to")
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    moved, changed = rehost_cassette(editable.cassette, target)
    old = editable.cassette.upstream
    summary = f"{arguments.path}: moved from {old} to {target}; {changed} exchange(s) changed"
    return _write(
        arguments, engine, [(arguments.path, moved)], [(arguments.path, editable.cassette)], summary
    )


def run_fix_etag(arguments: argparse.Namespace) -> int:
    """`cassette fix-etag`: the ETag/etag_id agreement repaired on purpose."""
    engine = rules_in_force_for(arguments)
    editable = _editable(arguments, arguments.path)
    fixed_cassette, fixed = fix_etags(editable.cassette)
    listed = ", ".join(f"#{index}" for index in fixed) or "none needed it"
    summary = f"{arguments.path}: set ETag from etag_id on {len(fixed)} exchange(s) ({listed})"
    return _write(
        arguments, engine, [(arguments.path, fixed_cassette)], [(arguments.path, editable.cassette)], summary
    )


def run_fmt(arguments: argparse.Namespace) -> int:
    """`cassette fmt`: the normal layout (what a clean recording writes); --check lists files off it."""
    engine = rules_in_force_for(arguments)
    policy = engine.project.redaction
    unformatted: list[Path] = []
    for given in arguments.paths:
        for path in files_in(given):
            # read, reformatted and saved with no other write in between
            with contextlib.nullcontext() if arguments.check else folder_lock(path):
                if not _reformat(arguments, path, policy):
                    continue
            unformatted.append(path)
    if arguments.check:
        if unformatted:
            say(f"{len(unformatted)} file(s) not in the normal layout", err=True)
        return 1 if unformatted else 0
    return 0


def _reformat(arguments: argparse.Namespace, path: Path, policy: RedactionPolicy) -> bool:
    """Whether the file was off the normal layout (rewritten unless --check)."""
    editable = load_for_edit(path)
    cassette = session.redacted(editable.cassette, policy)
    if dump_cassette(cassette) == with_current_header(editable.text):
        return False
    if arguments.check:
        say(f"{path}: not in the normal layout (run `commerce-proxy cassette fmt {path}`)")
        return True
    if editable.comment_line is not None and not arguments.drop_comments:
        raise UsageError(
            f"{path}:{editable.comment_line}: has a hand-written comment that fmt would drop; "
            "move it out or pass --drop-comments"
        )
    save_cassette(path, cassette)
    say(f"{path}: reformatted")
    return True
