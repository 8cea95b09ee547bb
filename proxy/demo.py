"""`commerce-proxy demo`: the sandbox, a recorded scripted session, and its offline replay.

Shows the whole loop on shipped defaults with no real service: a client session goes through `record`
into a cassette, the sandbox is stopped, and the same session replays from the cassette alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

from proxy.app.record_setup import record_settings, shipped_rules_in_force
from proxy.app.recording import recorded_text, recorded_upstream
from proxy.app.replay_setup import build_book
from proxy.app.scratch import scratch_folder
from proxy.core.cassette.document import Cassette
from proxy.core.drift.compare import compare_responses, is_drift
from proxy.core.model.bodies import map_strings
from proxy.core.model.exchange import Body, Response
from proxy.core.redaction.redact import RedactionPolicy, redact_body
from proxy.core.replay.book import ReplayBook
from proxy.core.replay.matching import MatchPolicy
from proxy.core.rules.findings import severity_counts
from proxy.errors import CommerceProxyError
from proxy.sandbox.app import SandboxSettings, create_sandbox_app
from proxy.server.record import RecordProxy
from proxy.server.replay import create_replay_app
from proxy.server.serving import Runner, start

FEATURE = "/v2/subscriptions/features/3f8e2a4c-9b1d-4c6e-8f0a-1b2c3d4e5f60"
ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"
FEATURE_ID = FEATURE.rsplit("/", 1)[1]


@dataclass(frozen=True, slots=True)
class Step:
    """One request of the scripted session and what came back (links made origin-free)."""

    title: str
    method: str
    target: str
    status: int
    body: Any
    etag: str | None


class ScriptedClient:
    """A small API client, the way an integration would call the service."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base
        self.token: str | None = None
        self.steps: list[Step] = []

    async def call(
        self,
        title: str,
        method: str,
        target: str,
        *,
        json_body: Any = None,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        auth: bool = True,
    ) -> Step:
        sent = {"Accept": "application/json", **(headers or {})}
        if auth and self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        url = target if target.startswith("http") else self.base + target
        async with self.session.request(method, url, json=json_body, data=form, headers=sent) as answer:
            text = await answer.text()
            body: Any = json.loads(text) if text and "json" in answer.content_type else text
            etag = answer.headers.get("ETag")
        shown = url.removeprefix(self.base)
        step = Step(
            title,
            method,
            shown,
            answer.status,
            map_strings(body, lambda text: text.replace(self.base, "{origin}")),
            etag,
        )
        self.steps.append(step)
        return step


def _as_response(status: int, body: Any, etag: str | None) -> Response:
    return Response(status, (("ETag", etag),) if etag else (), Body("json", body))


def _feature_update(attributes: dict[str, Any]) -> dict[str, Any]:
    return {"data": {"id": FEATURE_ID, "type": "subscription_feature", "attributes": attributes}}


async def scripted_session(base: str, client_id: str, client_secret: str) -> list[Step]:
    """Token, feature updates, entry reads and updates, list walks: what an integration does."""
    async with aiohttp.ClientSession() as session:
        client = ScriptedClient(session, base)
        token = await client.call(
            "get an access token",
            "POST",
            "/oauth/access_token",
            auth=False,
            form={"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret},
        )
        client.token = token.body["access_token"]
        await client.call("list without a token: refused", "GET", "/v2/products", auth=False)
        await client.call(
            "rename a feature (partial update)",
            "PUT",
            FEATURE,
            json_body=_feature_update({"name": "Premium support plus"}),
        )
        await client.call(
            "remove its description with null",
            "PUT",
            FEATURE,
            json_body=_feature_update({"description": None}),
        )
        await client.call("empty attributes: nothing changes", "PUT", FEATURE, json_body=_feature_update({}))
        await client.call(
            "invalid tag: refused",
            "PUT",
            FEATURE,
            json_body=_feature_update({"configuration": {"type": "access", "tag": "not ok!"}}),
        )
        entry = await client.call("read a custom API entry", "GET", ENTRY)
        await client.call(
            "update it with If-Match",
            "PUT",
            ENTRY,
            json_body={"data": {"type": "wishlist_ext", "items_count": 4}},
            headers={"If-Match": entry.etag or ""},
        )
        await client.call("read it again: new ETag", "GET", ENTRY)
        page = await client.call("first page of products", "GET", "/v2/products?page[limit]=5")
        for number in (2, 3):
            following = page.body["links"]["next"].replace("{origin}", base)
            page = await client.call(f"follow links.next to page {number}", "GET", following)
        await client.call("orders at offset 10,000", "GET", "/v2/orders?page[limit]=100&page[offset]=10000")
        await client.call(
            "orders past the hard limit: refused", "GET", "/v2/orders?page[limit]=100&page[offset]=10100"
        )
        accounts = await client.call(
            "accounts sorted by created_at", "GET", "/v2/accounts?sort=created_at&page[limit]=10"
        )
        last = accounts.body["data"][-1]["meta"]["timestamps"]["created_at"]
        await client.call(
            "next accounts by filter, not offset",
            "GET",
            f"/v2/accounts?sort=created_at&page[limit]=10&filter=ge(created_at,{last})",
        )
        await client.call(
            "customers, observed total", "GET", "/v2/customers?page[total_method]=observed&page[limit]=50"
        )
        await client.call("an empty list keeps its envelope", "GET", "/v2/flows/empty-flow/entries")
        return client.steps


async def start_sandbox_at_its_address(settings: SandboxSettings, cassette: Path) -> tuple[Runner, str]:
    """A sandbox on the port `cassette` was recorded from, when it has one and the port is free (else
    any): re-recording an unchanged session then keeps every unchanged exchange byte for byte, links
    to the upstream included."""
    port = 0
    with contextlib.suppress(CommerceProxyError, ValueError):
        port = urlsplit(recorded_upstream(cassette) or "").port or 0 if cassette.is_file() else 0
    try:
        return await start(create_sandbox_app(settings), "127.0.0.1", port)
    except OSError:  # taken: any port will do, the cassette is then written anew
        return await start(create_sandbox_app(settings), "127.0.0.1", 0)


def run_demo(cassette: Path | None, say: Callable[[str], None]) -> int:
    """The demo, into `cassette`, or into a temporary folder removed however the demo ends (done, an
    error, Ctrl-C, SIGTERM or SIGHUP)."""
    if cassette is not None:
        return asyncio.run(run_demo_session(cassette, say))
    with scratch_folder("commerce-proxy-demo-") as (folder, _):
        return asyncio.run(run_demo_session(folder / "demo.yaml", say, temporary=True))


async def run_demo_session(path: Path, say: Callable[[str], None], temporary: bool = False) -> int:
    """Record the scripted session from the sandbox into `path`, replay it offline, print what
    happened; `temporary`: `path` goes when the demo ends, so the next steps say how to keep it."""
    settings = SandboxSettings()
    in_force = shipped_rules_in_force()
    rules = in_force.ruleset
    sandbox, sandbox_url = await start_sandbox_at_its_address(settings, path)
    try:  # every server started is stopped, however the demo ends
        record_app = RecordProxy(record_settings(sandbox_url, path, in_force, mode="all"))
        if record_app.recording.live is not None:  # the demo lists the findings itself, once
            record_app.recording.live.follow(lambda checked: None, quiet=True)
        recorder, record_url = await start(record_app.server, "127.0.0.1", 0)
        try:
            say(f"sandbox  {sandbox_url}  (in-memory stand-in for the real service)")
            say(f"record   {record_url}  -> {path}")
            live = await scripted_session(record_url, settings.client_id, settings.client_secret)
        finally:
            await recorder.cleanup()  # writes the cassette
    finally:
        await sandbox.cleanup()  # from here on, nothing but the cassette answers
    book, (loaded,) = build_book([path], MatchPolicy(), RedactionPolicy())
    replayer, replay_url = await start(create_replay_app(book), "127.0.0.1", 0)
    try:
        say(f"replay   {replay_url}  (sandbox stopped: answers come from the cassette only)")
        replayed = await scripted_session(replay_url, settings.client_id, settings.client_secret)
    finally:
        await replayer.cleanup()
    same = 0
    policy = RedactionPolicy()
    kept = 0
    # Numbered from 0, as the cassette numbers them: `cassette show PATH N` opens step N.
    for number, (one, two) in enumerate(zip(live, replayed, strict=True)):
        # Replay serves what the cassette holds: the live answer with its secrets redacted.
        expected = redact_body(Body("json", one.body), (), policy).value if one.body else one.body
        identical = (one.status, expected, one.etag) == (two.status, two.body, two.etag)
        # Re-recorded over an earlier demo, an unchanged answer keeps its earlier entry: the replay
        # then differs from today's answer in volatile values only (timestamps, a moved ETag).
        kept_earlier = not identical and not is_drift(
            compare_responses(
                _as_response(one.status, expected, one.etag), _as_response(two.status, two.body, two.etag)
            )
        )
        same += identical or kept_earlier
        kept += kept_earlier
        mark = "replay: same" if identical else "replay: same, kept" if kept_earlier else "replay: DIFFERS"
        say(f"  #{number:<2} {one.status} {one.method:4} {_short(one.target)}  {one.title}  [{mark}]")
    text = recorded_text(path)
    secrets = {"client secret": settings.client_secret, "access token": str(live[0].body["access_token"])}
    leaked = [name for name, value in secrets.items() if value in text]
    size = len(text.encode()) // 1024
    written = ", ".join(leaked) if leaked else "none (client secret and token redacted)"
    count = len(loaded.cassette.exchanges)
    say(f"recorded {count} exchanges into {path} ({size} KiB); secrets written: {written}")
    earlier = f" ({kept} kept from the earlier recording: volatile values aside)" if kept else ""
    say(f"replayed {same}/{len(live)} requests offline with the same status, body and ETag{earlier}")
    checked = record_app.recording.findings
    counts = severity_counts(checked.recent)
    say(
        f"checked {checked.exchanges} exchanges live against {len(rules.rules)} rules: "
        f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"
    )
    for finding in checked.recent:
        if finding.severity != "info":
            say(f"  {finding.severity} {finding.rule} {finding.number}: {finding.message}")
    simulated_ok = await simulated_session(loaded.cassette, path.name, say)
    if not temporary:
        say(f"next: scripts/run replay --cassette {path}   (serves it on http://127.0.0.1:8080)")
        say(f"      scripts/run check {path}   (the same rules, offline)")
    else:
        say("the recording was in a temporary folder, removed now: keep it with --cassette demo.yaml")
    return 0 if same == len(live) and not leaked and simulated_ok else 1


async def simulated_session(cassette: Cassette, name: str, say: Callable[[str], None]) -> bool:
    """`replay --simulate` on the cassette: a walk with another page size, and an unrecorded update."""
    book = ReplayBook.build([(name, cassette)], MatchPolicy(), RedactionPolicy(), simulate=True)
    recorded: list[str] = []
    for exchange in cassette.exchanges:
        if exchange.request.path == "/v2/products" and exchange.response.status == 200:
            document: Any = exchange.response.body.value
            recorded.extend(record["id"] for record in document["data"])
    replayer, replay_url = await start(create_replay_app(book), "127.0.0.1", 0)
    marks: list[str] = []
    walked: list[str] = []
    try:
        say(f"simulate {replay_url}  (replay --simulate: answers what was not recorded)")
        async with aiohttp.ClientSession(headers={"Authorization": "Bearer demo"}) as session:
            target: str | None = f"{replay_url}/v2/products?page[limit]=3"
            while target is not None and len(walked) < len(recorded):
                async with session.get(URL(target, encoded=True)) as answer:
                    marks.append(answer.headers.get("X-Commerce-Proxy", "recorded"))
                    page = await answer.json()
                walked.extend(record["id"] for record in page["data"])
                target = page["links"]["next"]
            rename = _feature_update({"name": "Renamed offline", "external_ref": None})
            async with session.put(f"{replay_url}{FEATURE}", json=rename) as answer:
                marks.append(answer.headers.get("X-Commerce-Proxy", "recorded"))
                feature = (await answer.json())["data"]["attributes"]
    finally:
        await replayer.cleanup()
    same = walked == recorded
    verdict = "the same records in order" if same else "DIFFERENT records"
    pages = marks.count("simulated") - 1
    say(f"  walked /v2/products with page[limit]=3 over the {len(recorded)} recorded records: {verdict}")
    say(f"  ({pages} pages simulated from recorded pages of 5)")
    renamed = feature.get("name") == "Renamed offline" and "external_ref" not in feature
    outcome = "name changed, external_ref removed, the rest kept" if renamed else "WRONG"
    say(f"  unrecorded PUT {FEATURE}: {outcome} ({marks[-1]})")
    return same and renamed and set(marks) == {"simulated"}


def _short(target: str, width: int = 52) -> str:
    return (target if len(target) <= width else target[: width - 3] + "...").ljust(width)
