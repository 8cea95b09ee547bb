"""The `cassette` edits as use cases: from the typed request its parser built, each reads the cassette
(under the lock every writer takes, when it edits in place), edits it with a pure edit of
`proxy.core.editing`, redacts and writes the result atomically and re-checks it (`proxy.app.editing`).
The adapter only shows the summary and the findings the edit added."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proxy.app import editing as session
from proxy.app.cassette_reading import per_exchange, selected
from proxy.app.check_run import check_cassette
from proxy.app.command_inputs import ExtraRedaction, Reads, RuleChoice
from proxy.core.cassette.document import Cassette, exchange_to_document
from proxy.core.editing.edits import (
    SplitBy,
    checked_indexes,
    delete_exchanges,
    exchange_identity,
    fix_etags,
    keep_exchanges,
    merge_cassettes,
    rehost_cassette,
    set_field,
    split_cassette,
    unset_field,
)
from proxy.core.editing.selection import Selection
from proxy.core.model.exchange import Exchange, JSONValue
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from proxy.core.rules.findings import Finding
from proxy.errors import UsageError
from proxy.store import clock
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.rule_files import RulesInForce
from proxy.store.writing import folder_lock

Named = session.Named


@dataclass(frozen=True, slots=True)
class EditOptions:
    """What every edit takes: the rules it is re-checked against, and how it writes."""

    rules: RuleChoice = field(default_factory=RuleChoice)
    dry_run: bool = False  # work out and re-check the result; write nothing
    no_check: bool = False  # do not re-check the result (no rule runs at all)
    drop_comments: bool = False  # rewrite even a cassette with hand-written comments
    extra_redaction: ExtraRedaction | None = None  # `redact`'s names, on top of the project's


@dataclass(frozen=True, slots=True)
class Edited:
    """What an edit did: one line saying so, how many cassettes it wrote, and (unless told not to
    re-check) the findings it added and removed."""

    summary: str
    written: int
    recheck: session.Recheck | None


class Moved(UsageError):
    """The exchange at the index an edit names is not the one its caller saw there."""


MOVED = "the cassette changed since it was indexed; reload"


@dataclass(frozen=True, slots=True)
class DeleteRequest:
    path: Path
    indexes: tuple[str, ...]  # as given: 0 the first, -1 the last
    options: EditOptions = field(default_factory=EditOptions)
    expected: str | None = None  # the one index's `indexed_identity` as its caller saw it (the UI)


@dataclass(frozen=True, slots=True)
class KeepRequest:
    path: Path
    where: Selection
    options: EditOptions = field(default_factory=EditOptions)


@dataclass(frozen=True, slots=True)
class MergeRequest:
    paths: tuple[Path, ...]
    output: Path
    force: bool = False  # replace OUT even when it is not one of the inputs
    options: EditOptions = field(default_factory=EditOptions)


@dataclass(frozen=True, slots=True)
class SplitRequest:
    path: Path
    by: SplitBy
    output: Path  # the folder for the parts
    force: bool = False  # replace cassettes already there
    options: EditOptions = field(default_factory=EditOptions)


@dataclass(frozen=True, slots=True)
class FieldRequest:
    """`set` (with a value) or `unset` (value None and `unset`) one field of one exchange."""

    path: Path
    index: str
    name: str  # the field: a header, a JSON body field... (`proxy.core.editing.edits.FIELDS_HELP`)
    value: JSONValue = None
    unset: bool = False
    options: EditOptions = field(default_factory=EditOptions)
    expected: str | None = None  # the exchange's `indexed_identity` as its caller saw it (the UI)


@dataclass(frozen=True, slots=True)
class CassetteRequest:
    """An edit of a whole cassette in place that takes nothing else (`redact`, `fix-etag`); `rehost`
    takes its checked upstream URL too."""

    path: Path
    options: EditOptions = field(default_factory=EditOptions)
    to: str = ""


def delete(request: DeleteRequest) -> Edited:
    """`cassette delete`: remove exchanges by index."""
    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        indexes = checked_indexes(original, request.indexes)
        _refuse_moved(original, indexes, request.expected, _policy(request.options, in_force))
        edited = delete_exchanges(original, indexes)
        summary = f"{request.path}: deleted {len(set(indexes))} exchange(s); {len(edited.exchanges)} left"
        return _write(
            request.options, in_force, [(request.path, edited)], [(request.path, original)], summary
        )


def keep(request: KeepRequest) -> Edited:
    """`cassette keep --where EXPR`: keep only what the expression selects."""
    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        where = request.where
        before = check_cassette(in_force, original, str(request.path)) if where.uses_findings else None
        picked = set(selected(where, original, per_exchange(before or [])))
        edited = keep_exchanges(original, lambda index, _: index in picked)
        summary = f"{request.path}: kept {len(edited.exchanges)} of {len(original.exchanges)} exchange(s)"
        originals = [(request.path, original)]
        return _write(request.options, in_force, [(request.path, edited)], originals, summary, before=before)


def merge(request: MergeRequest) -> Edited:
    """`cassette merge A B... -o OUT`: by recording time, exact repeats dropped; OUT is replaced only
    when it is one of the inputs, or with `force`."""
    output = request.output
    if output.resolve() not in [path.resolve() for path in request.paths]:  # else merged in place
        reads = Reads(tuple(request.paths), request.options.rules)
        reads.refuse_bad_output(output, "the merged cassette", force=request.force, any_file=True)
    in_force = request.options.rules.load()
    loaded = [(path, load_cassette(path).cassette) for path in request.paths]
    merged, dropped = merge_cassettes([(str(path), cassette) for path, cassette in loaded])
    summary = (
        f"{output}: merged {len(loaded)} cassette(s) into {len(merged.exchanges)} exchange(s); "
        f"{dropped} exact repeat(s) dropped"
    )
    before = None if request.options.no_check else _once_each(in_force, loaded)
    return _write(request.options, in_force, [(output, merged)], loaded, summary, before=before)


def split(request: SplitRequest) -> Edited:
    """`cassette split --by path|status -o DIR`: one cassette per group, order kept; a part already in
    DIR is replaced only with `force`."""
    _refuse_missing_folder(request.output, "the folder of the parts")
    with _in_place(request.path, request.options):
        in_force = request.options.rules.load()
        cassette = load_cassette(request.path).cassette
        parts = split_cassette(cassette, request.by)
        outputs = [(request.output / f"{name}.yaml", part) for name, part in parts.items()]
        reads = Reads((request.path,), request.options.rules)
        for path, _ in outputs:
            reads.refuse_bad_output(path, "a part", force=request.force, any_file=True, create_folders=True)
        summary = f"{request.output}: split {request.path} by {request.by} into {len(outputs)} cassette(s)"
        return _write(request.options, in_force, outputs, [(request.path, cassette)], summary)


def redact(request: CassetteRequest) -> Edited:
    """`cassette redact`: the default, configured and named secrets replaced by the placeholder."""
    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        cleaned = session.redacted(original, _policy(request.options, in_force))
        changed = sum(
            exchange_to_document(old) != exchange_to_document(new)
            for old, new in zip(original.exchanges, cleaned.exchanges, strict=True)
        )
        summary = f"{request.path}: redacted {changed} exchange(s)"
        originals = [(request.path, original)]
        outputs = [(request.path, cleaned)]
        return _write(
            request.options, in_force, outputs, originals, summary, redacted_already=True, in_place=True
        )


def change_field(request: FieldRequest) -> Edited:
    """`cassette set PATH INDEX FIELD VALUE` and `cassette unset PATH INDEX FIELD`."""
    if request.unset:
        what = f"removed {request.name}"
    else:
        what = f"set {request.name} to {json.dumps(request.value, ensure_ascii=False)}"

    def change(exchange: Exchange) -> Exchange:
        if request.unset:
            return unset_field(exchange, request.name)
        return set_field(exchange, request.name, request.value, clock.now())

    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        [index] = checked_indexes(original, [request.index])
        _refuse_moved(original, [index], request.expected, _policy(request.options, in_force))
        exchanges = list(original.exchanges)
        exchanges[index] = change(exchanges[index])
        edited = Cassette(tuple(exchanges), original.upstream, original.confirmed_at)
        summary = f"{request.path}: #{index}: {what}"
        return _in_place_write(request, in_force, original, edited, summary)


def rehost(request: CassetteRequest) -> Edited:
    """`cassette rehost PATH --to URL` (the URL already checked by the adapter)."""
    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        moved, changed = rehost_cassette(original, request.to)
        summary = (
            f"{request.path}: moved from {original.upstream} to {request.to}; {changed} exchange(s) changed"
        )
        return _in_place_write(request, in_force, original, moved, summary)


def fix_etag(request: CassetteRequest) -> Edited:
    """`cassette fix-etag`: the ETag/etag_id agreement repaired on purpose."""
    with _in_place(request.path, request.options):
        in_force, original = _read(request.path, request.options)
        fixed_cassette, fixed = fix_etags(original)
        listed = ", ".join(f"#{index}" for index in fixed) or "none needed it"
        summary = f"{request.path}: set ETag from etag_id on {len(fixed)} exchange(s) ({listed})"
        return _in_place_write(request, in_force, original, fixed_cassette, summary)


def _once_each(in_force: RulesInForce, loaded: Sequence[Named]) -> list[Finding]:
    """The inputs' findings, each exchange's once as the merge keeps one copy of an exact repeat:
    a repeat's findings are counted with the first copy's, never again."""
    seen: set[str] = set()
    before: list[Finding] = []
    for path, cassette in loaded:
        found = per_exchange(check_cassette(in_force, cassette, str(path)))
        for index, exchange in enumerate(cassette.exchanges):
            identity = exchange_identity(exchange)
            if identity not in seen:
                seen.add(identity)
                before.extend(found.get(index, []))
    return before


def _refuse_moved(
    cassette: Cassette, indexes: Sequence[int], expected: str | None, policy: RedactionPolicy
) -> None:
    """Under the lock, before anything changes: the exchange at the index is the one the caller saw
    (redacted as it was shown), else the edit is refused. A file changed by another writer in
    between (a delete before it, an insert, a reorder, a rewrite) never makes it edit another one."""
    if expected is None:
        return
    [index] = indexes
    from proxy.app.traffic_rows import indexed_identity  # the UI's index (SQLite): only for the UI's edits

    if indexed_identity(redact_exchange(cassette.exchanges[index], policy)) != expected:
        raise Moved(MOVED)


def _refuse_missing_folder(output: Path, what: str) -> None:
    """An edit writes its `-o` only into an existing folder (as `check -o` does), before any work;
    `split` makes its own DIR there."""
    folder = output.parent
    if not folder.is_dir():
        raise UsageError(
            f"{output}: no such folder {folder}; {what} is written only into an existing folder: "
            "make it first"
        )


@contextlib.contextmanager
def _in_place(path: Path, options: EditOptions) -> Iterator[None]:
    """An edit of `path` runs under the lock every writer of the cassette takes: it reads the cassette,
    edits and saves it with no other edit or recording's save in between. A dry run, or a path whose
    folder is missing (its own error says why), takes no lock."""
    if options.dry_run or not path.parent.is_dir():
        yield
        return
    with folder_lock(path):
        yield


def _read(path: Path, options: EditOptions) -> tuple[RulesInForce, Cassette]:
    """The rules in force, then the cassette as read for editing (comments refused unless dropped)."""
    in_force = options.rules.load()
    return in_force, session.editable(path, options.drop_comments).cassette


def _policy(options: EditOptions, in_force: RulesInForce) -> RedactionPolicy:
    configured = in_force.project.redaction
    return configured if options.extra_redaction is None else options.extra_redaction.over(configured)


def _in_place_write(
    request: FieldRequest | CassetteRequest,
    in_force: RulesInForce,
    original: Cassette,
    edited: Cassette,
    summary: str,
) -> Edited:
    """An edit that keeps every exchange at its position, written over its cassette."""
    path, options = request.path, request.options
    return _write(options, in_force, [(path, edited)], [(path, original)], summary, in_place=True)


def _write(
    options: EditOptions,
    in_force: RulesInForce,
    outputs: Sequence[Named],
    originals: Sequence[Named],
    summary: str,
    redacted_already: bool = False,
    before: Sequence[Finding] | None = None,
    in_place: bool = False,
) -> Edited:
    """Redact, write atomically (unless a dry run), re-check (unless told not to).

    The originals' findings (`before`, unless the caller already has them) are worked out only when
    the result is re-checked, so `no_check` runs no rule at all. `in_place`: the edit kept every
    exchange at its position (findings are compared exchange by exchange).
    """
    written = session.save_edit(
        in_force,
        _policy(options, in_force),
        outputs,
        dry_run=options.dry_run,
        redacted_already=redacted_already,
    )
    recheck = None if options.no_check else session.recheck(in_force, written, originals, before, in_place)
    return Edited(summary, len(written), recheck)
