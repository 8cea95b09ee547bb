"""`verify`: is this cassette still true? Each recorded request is sent again to the live service and
the live answer compared with the recorded one by meaning (core/drift), then checked against the
rules; with `update`, what drifted is written back into the cassette.

The sending is handed in (`Send`): the command line gives it the pooled upstream client. Reads go by
default, writes only when asked; the token request is never re-sent (the cassette holds no secret to
send). Requests to a resource that is written go in recorded order, one at a time, so a sequence
replays as it happened; reads of a resource nobody writes have no order to keep and go at once. At most
`concurrency` requests are out at a time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from proxy.app.contract_inputs import drift_tiers
from proxy.app.recording import TOKEN_VARIABLE
from proxy.core.cassette.document import Cassette
from proxy.core.contract.findings import ContractJudge
from proxy.core.drift.compare import compare_exchanges
from proxy.core.drift.origins import Origins
from proxy.core.drift.verification import Verification, Verified
from proxy.core.model.confirmation import confirmation
from proxy.core.model.exchange import Exchange, Request, Response, with_header
from proxy.core.redaction.placeholders import redacted_places
from proxy.core.redaction.policy import PLACEHOLDER, RedactionPolicy
from proxy.core.redaction.redact import is_token_request, redact_exchange
from proxy.core.rules.engine import Checker
from proxy.core.rules.findings import Finding
from proxy.errors import UsageError
from proxy.store import clock
from proxy.store.cassette_folders import cassette_paths
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.clock import now_stamp
from proxy.store.rule_files import RulesInForce
from proxy.store.saving import save_cassette
from proxy.store.writing import folder_lock

Send = Callable[[Request], Awaitable[Response]]
READS = frozenset({"GET", "HEAD", "OPTIONS"})

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    writes: bool = False  # also re-send PUT, POST, DELETE, PATCH (meant for a sandbox or staging)
    concurrency: int = 8
    token: str | None = None  # put in place of a redacted bearer token
    upstream: str | None = None  # where the live answers come from: their links are moved to the cassette's


async def verify(
    cassettes: Sequence[tuple[Path, Cassette]],
    send: Send,
    in_force: RulesInForce,
    policy: RedactionPolicy,
    options: VerifyOptions,
    contract: ContractJudge | None = None,
) -> Verification:
    """Re-send, compare and check every chosen exchange of every cassette (against the rules, and the
    published specs of `contract` too, which also tier the differences they decide)."""
    results: list[Verified] = []
    groups: dict[tuple[int, str], list[tuple[Verified, Exchange]]] = {}
    for number, (path, cassette) in enumerate(cassettes):
        for index, exchange in enumerate(cassette.exchanges):
            request = exchange.request
            result = Verified(str(path), index, f"{request.method} {request.target}")
            result.recorded_status = exchange.response.status
            results.append(result)
            result.skipped = _why_not_sent(request, options)
            if result.skipped is None:
                groups.setdefault((number, request.path), []).append((result, exchange))
    missing = [result for result in results if result.skipped == NEEDS_TOKEN]
    if missing and options.token is None:
        raise UsageError(
            f"{missing[0].cassette}: #{missing[0].index} {missing[0].request} sends a redacted bearer "
            f"token: give a live one with --token, {TOKEN_VARIABLE}, or --client-id and --client-secret"
        )
    gate = asyncio.Semaphore(max(1, options.concurrency))
    tiering = drift_tiers(contract, in_force)

    async def resource(items: list[tuple[Verified, Exchange]], origins: Origins) -> None:
        async with gate:
            for result, recorded in items:  # in recorded order: a sequence replays as it happened
                # compared, checked and shown as the service sent it; its links read (and, for
                # --update, written) at the cassette's origin
                result.live = await _live(recorded, send, policy, options.token)
                result.kept = origins.exchange(result.live)
                result.differences = compare_exchanges(recorded, result.live, origins, tiering)

    batches: list[tuple[list[tuple[Verified, Exchange]], Origins]] = []
    for (number, _), items in groups.items():
        origins = Origins(cassettes[number][1].upstream, options.upstream)
        if any(recorded.request.method.upper() not in READS for _, recorded in items):
            batches.append((items, origins))  # written: in recorded order, one at a time
        else:
            batches.extend(([item], origins) for item in items)  # only read: no order to keep
    await asyncio.gather(*(resource(batch, origins) for batch, origins in batches))
    findings: list[Finding] = []
    for path, _ in cassettes:
        checker = Checker(in_force.ruleset, in_force.project.config, cassette=str(path), contract=contract)
        for result in results:
            if result.cassette == str(path) and result.live is not None:
                findings.extend(checker.check(result.live, result.index))
    return Verification(results, findings)


NEEDS_TOKEN = "needs a token"


def _why_not_sent(request: Request, options: VerifyOptions) -> str | None:
    if is_token_request(request):
        return "the token request is never re-sent: its recording holds no secret"
    if request.method.upper() not in READS and not options.writes:
        return "a write: re-sent only with --writes"
    # Anywhere, not only where the policy redacts a credential: a request sent again must never
    # carry the placeholder (a bearer token it takes from --token is the one place given back).
    places = redacted_places(request)
    others = [where for where in places if where.lower() != "header authorization"]
    if len(others) < len(places) and options.token is None:
        return NEEDS_TOKEN
    if others:
        return f"its {others[0]} holds a redacted value the live service would refuse"
    return None


async def _live(recorded: Exchange, send: Send, policy: RedactionPolicy, token: str | None) -> Exchange:
    """The live answer to the recorded request, as a recording of it would be: redacted, timed."""
    request = recorded.request
    sent = request
    if token is not None and any(
        PLACEHOLDER in value for name, value in request.headers if name.lower() == "authorization"
    ):
        sent = replace(request, headers=with_header(request.headers, "Authorization", f"Bearer {token}"))
    started = time.perf_counter()
    response = await send(sent)
    duration_ms = round((time.perf_counter() - started) * 1000, 3)
    known = frozenset({token}) if token else frozenset()
    live = redact_exchange(Exchange(sent, response, now_stamp(), duration_ms), policy, known)
    return replace(live, request=request)


@dataclass(frozen=True, slots=True)
class Updated:
    """What `--update` did to one cassette: how many drifted answers it wrote, the `confirmed_at` it
    wrote (None: unchanged), and why its recordings are not confirmed (None: they are)."""

    path: Path
    replaced: int
    confirmed_at: str | None
    unconfirmed: str | None


def update_cassettes(cassettes: Sequence[tuple[Path, Cassette]], verification: Verification) -> list[Updated]:
    """Write each drifted exchange's live answer into its cassette (atomically); every other exchange
    stays as it was. A cassette whose every exchange was re-sent (the token request aside) now holds
    what the service answers: that confirms it, and its `confirmed_at` becomes today (when later than
    its recordings; `proxy.core.model.confirmation`), which `max_age` counts.

    A verification takes a while, and the cassette may be edited meanwhile: under the cassette's lock it
    is read again, and a drifted exchange is replaced only where it still is what was verified; the
    others, and every edit made meanwhile, are kept (an exchange edited meanwhile is left as edited),
    and a cassette edited meanwhile is not confirmed."""
    updated: list[Updated] = []
    for path, cassette in cassettes:
        mine = [result for result in verification.results if result.cassette == str(path)]
        drifted = {
            result.index: result.to_write for result in mine if result.drifted and result.to_write is not None
        }
        unconfirmed = _not_confirmed(cassette, mine)
        with folder_lock(path):
            current = load_cassette(path).cassette
            exchanges = list(current.exchanges)
            replaced = 0
            for index, live in drifted.items():
                if index < len(exchanges) and exchanges[index] == cassette.exchanges[index]:
                    exchanges[index] = live
                    replaced += 1
                else:
                    log.warning(
                        "%s: exchange %d was changed while it was verified; left as it is", path, index
                    )
            if unconfirmed is None and current.exchanges != cassette.exchanges:
                unconfirmed = "it was changed while it was verified"
            confirmed_at = current.confirmed_at
            if unconfirmed is None:
                confirmed_at = confirmation(exchanges, clock.now())
            if replaced or confirmed_at != current.confirmed_at:
                save_cassette(path, Cassette(tuple(exchanges), current.upstream, confirmed_at))
            new_date = confirmed_at if confirmed_at != current.confirmed_at else None
            updated.append(Updated(path, replaced, new_date, unconfirmed))
    return updated


def _not_confirmed(cassette: Cassette, results: list[Verified]) -> str | None:
    """Why verifying did not confirm every recording of the cassette (some were not re-sent), or None."""
    reasons: dict[str, int] = {}
    for result in results:
        exchange = cassette.exchanges[result.index]
        if result.live is None and not is_token_request(exchange.request):
            reason = result.skipped or "not re-sent"
            reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return None
    count = sum(reasons.values())
    return f"{count} exchange{'s' if count != 1 else ''} not re-sent ({'; '.join(reasons)})"


def update_lines(updated: Updated) -> list[str]:
    """What `verify --update` says it did to one cassette, a note for a person each."""
    lines = []
    if updated.replaced:
        lines.append(f"updated {updated.path} with the live answers that drifted")
    if updated.confirmed_at is not None:
        lines.append(
            f"{updated.path}: every recording confirmed: "
            f"confirmed_at {updated.confirmed_at}, which max_age counts from"
        )
    if updated.unconfirmed is not None:
        lines.append(
            f"{updated.path}: not confirmed, so max_age still counts from each recorded_at: "
            f"{updated.unconfirmed}"
        )
    return lines


def cassette_files(paths: Sequence[Path]) -> list[Path]:
    """Every cassette file the paths name (files or folders), before any is read."""
    return cassette_paths(list(paths))


def read_cassettes(files: Sequence[Path]) -> list[tuple[Path, Cassette]]:
    """Each file's cassette, as verified and updated."""
    return [(path, load_cassette(path).cassette) for path in files]
