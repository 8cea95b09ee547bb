"""An edit session: a cassette read for editing, the edited cassettes redacted and written atomically,
then re-checked against the rules, with the findings the edit added and the ones it removed.

The edits themselves are pure (`proxy.core.editing`); this is the workflow around them that every
`cassette` command shares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from proxy.app.check_run import check_cassette
from proxy.core.cassette.document import Cassette
from proxy.core.redaction.redact import RedactionPolicy, redact_exchange
from proxy.core.rules.findings import Finding
from proxy.errors import UsageError
from proxy.store.cassette_reader.for_edit import Editable, load_for_edit
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette

Named = tuple[Path, Cassette]


def editable(path: Path, drop_comments: bool) -> Editable:
    """The cassette as read for editing; refused when rewriting it would drop a hand-written comment."""
    read = load_for_edit(path)
    if read.comment_line is not None and not drop_comments:
        raise UsageError(
            f"{path}:{read.comment_line}: has a hand-written comment that rewriting would drop; "
            "move it out or pass --drop-comments"
        )
    return read


def redacted(cassette: Cassette, policy: RedactionPolicy) -> Cassette:
    exchanges = tuple(redact_exchange(item, policy) for item in cassette.exchanges)
    return Cassette(exchanges, cassette.upstream, cassette.confirmed_at)


@dataclass(frozen=True, slots=True)
class Recheck:
    """What an edit did to the findings: those it added, how many it removed, out of how many rules."""

    added: list[Finding]
    gone: int
    rules: int

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.added if finding.severity == "error")


def save_edit(
    in_force: RulesInForce,
    policy: RedactionPolicy,
    outputs: Sequence[Named],
    *,
    dry_run: bool = False,
    redacted_already: bool = False,
) -> list[Named]:
    """Redact the edited cassettes and write each atomically (not with `dry_run`); the cassettes as
    written, for the re-check."""
    written = [
        (path, cassette if redacted_already else redacted(cassette, policy)) for path, cassette in outputs
    ]
    if not dry_run:
        for path, cassette in written:
            save_cassette(path, cassette)  # makes missing folders, never through a link
    return written


def recheck(
    in_force: RulesInForce,
    written: Sequence[Named],
    originals: Sequence[Named],
    before: Sequence[Finding] | None = None,
    in_place: bool = False,
) -> Recheck:
    """The edited cassettes' findings against the originals' (`before`, when the caller has them).

    A finding is the same before and after when the same rule, at the same severity, finds it at the
    same place of the same exchange, whatever its text quotes: an edit changes values the text shows
    (a link's origin after `rehost`, a value `set` replaced, an index `delete` moved), and such a
    finding was there before the edit. The exchange is its position when the edit kept every exchange
    in its place (`in_place`: the request line itself may have been edited), else its request line
    (the edit moved exchanges, never changed them). A second finding at the same place is new."""
    if before is None:
        before = [
            finding
            for path, cassette in originals
            for finding in check_cassette(in_force, cassette, str(path))
        ]
    after = [
        finding for path, cassette in written for finding in check_cassette(in_force, cassette, str(path))
    ]
    old = Counter(_signature(finding, in_place) for finding in before)
    added: list[Finding] = []
    for finding in after:
        if old[_signature(finding, in_place)]:
            old[_signature(finding, in_place)] -= 1
        else:
            added.append(finding)
    return Recheck(added, sum(old.values()), len(in_force.ruleset.rules))


def _signature(finding: Finding, in_place: bool) -> tuple[object, ...]:
    """Which rule found what where: never the text (expected, found), which quotes edited values."""
    exchange = finding.exchange if in_place else (finding.method, finding.target)
    return (finding.rule, finding.severity, exchange, finding.where)
