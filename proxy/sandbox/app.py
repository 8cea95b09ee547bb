"""The sandbox's aiohttp app: routes, bearer auth and the token endpoint around the pure pieces."""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from proxy.sandbox.breakage import BREAKABLE, Asked, rewrite_for
from proxy.sandbox.datasets import CHANGES, LIST_ALIASES, LIST_SIZES, changed, format_timestamp, make_list
from proxy.sandbox.entries import entry_update_errors, etag_of, seed_entries, update_entry
from proxy.sandbox.features import apply_update, is_uuid, seed_features, sent_attributes, validate_update
from proxy.sandbox.hosts import ALLOWED, same_machine
from proxy.sandbox.listing import ListError, list_page, parse_page_request, select

HARD_OFFSET_LIMITED = frozenset({"orders", "files"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """Credentials the token endpoint accepts, token lifetime, data seed, and the clock."""

    client_id: str = "sandbox-client"
    client_secret: str = "sandbox-secret"
    token_lifetime: int = 3600
    seed: int = 1
    # Limits: the default page length is 25; older stores may still have the previous default of 100.
    default_page_length: int = 25
    clock: Callable[[], datetime] = field(default=_system_clock)
    # `--break RULE_ID` (one or more): misbehave in these documented ways (see proxy/sandbox/breakage.py).
    broken: str | Iterable[str] | None = None
    # `--change KIND` (one or more): answer lists as a later service might (see datasets.CHANGES).
    changes: Iterable[str] = ()
    # `--allow-host NAME` and the --host address: Host names answered besides loopback (see hosts.py).
    allowed_hosts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown_changes = sorted(set(self.changes) - set(CHANGES))
        if unknown_changes:
            raise ValueError(
                f"the sandbox has no change {', '.join(map(repr, unknown_changes))}; "
                f"it has: {', '.join(sorted(CHANGES))}"
            )
        object.__setattr__(self, "changes", frozenset(self.changes))
        rules = [self.broken] if isinstance(self.broken, str) else list(self.broken or ())
        unknown = [rule for rule in rules if rule not in BREAKABLE]
        if unknown:
            raise ValueError(
                f"the sandbox cannot break {', '.join(map(repr, unknown))}; "
                f"it can break: {', '.join(sorted(BREAKABLE))}"
            )
        object.__setattr__(self, "broken", frozenset(rules))

    def breaks(self, rule: str) -> bool:
        """Whether the sandbox was told to break this rule."""
        return rule in (self.broken or ())


class SandboxState:
    """Everything the sandbox holds in memory; it changes only through PUT."""

    def __init__(self, settings: SandboxSettings) -> None:
        self.settings = settings
        started = format_timestamp(settings.clock())
        self.features = seed_features(started)
        self.entries = seed_entries(started)
        self.tokens: dict[str, float] = {}
        self._lists: dict[str, list[dict[str, Any]]] = {}

    def records(self, name: str) -> list[dict[str, Any]] | None:
        """A list's records, built on first use (the large ones take a moment)."""
        if name not in self._lists:
            made = make_list(name, self.settings.seed)
            if made is None:
                return None
            self._lists[name] = changed(made, frozenset(self.settings.changes))
        return self._lists[name]

    def now(self) -> str:
        """The current time in the service's timestamp format."""
        return format_timestamp(self.settings.clock())


STATE = web.AppKey("sandbox_state", SandboxState)


def broken_answer(
    request: web.Request, kind: str, document: Any, headers: dict[str, str] | None = None, payload: Any = None
) -> web.Response:
    """A 200 answer, rewritten when the sandbox was told to break a rule about this kind of answer."""
    headers = dict(headers or {})
    rewrite = rewrite_for(kind, request.app[STATE].settings.broken or ())
    if rewrite is not None:
        asked = Asked({key: request.query.getone(key) for key in request.query}, payload)
        document = rewrite(copy.deepcopy(document), headers, asked)
    return json_answer(200, document, headers)


def _shown_etag(request: web.Request, entry: Any) -> str | None:
    """The ETag a read of the entry shows now (a broken one under `--break`): a client's If-Match
    naming it is the current version as far as the client can know."""
    headers = {"ETag": etag_of(entry)}
    rewrite = rewrite_for("entry", request.app[STATE].settings.broken or ())
    if rewrite is not None:
        rewrite(copy.deepcopy({"data": entry}), headers, Asked({}, None))
    return headers.get("ETag")


def json_answer(status: int, document: Any, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer the way the service writes it."""
    return web.Response(
        status=status,
        body=json.dumps(document).encode("utf-8"),
        content_type="application/json",
        headers=headers,
    )


def error_answer(status: int, title: str, detail: str, source: str | None = None) -> web.Response:
    """An `{"errors": [...]}` answer (api-notes, Errors)."""
    error: dict[str, Any] = {"status": str(status), "title": title, "detail": detail}
    if source:
        error["source"] = source
    return json_answer(status, {"errors": [error]})


@web.middleware
async def bearer_auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Spec, Authentication: a bearer token is required on every /v2 operation."""
    state = request.app[STATE]
    if request.path.startswith("/v2/") and not state.settings.breaks("auth.bearer.accepted-without"):
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        expires = state.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if expires is None or expires < state.settings.clock().timestamp():
            return error_answer(401, "Unauthorized", "Unable to validate access token")
    return await handler(request)


async def access_token(request: web.Request) -> web.Response:
    """POST /oauth/access_token with the client credentials grant (form-encoded)."""
    state = request.app[STATE]
    form = await request.post()
    grant = form.get("grant_type")
    if grant != "client_credentials":
        return error_answer(400, "Bad Request", f"unsupported grant_type {grant!r}", "grant_type")
    if (
        form.get("client_id") != state.settings.client_id
        or form.get("client_secret") != state.settings.client_secret
    ):
        return error_answer(401, "Unauthorized", "invalid client credentials")
    token = secrets.token_hex(20)
    expires = int(state.settings.clock().timestamp()) + state.settings.token_lifetime
    state.tokens[token] = expires
    return json_answer(
        200,
        {
            "identifier": "client_credentials",
            "expires": expires,
            "expires_in": state.settings.token_lifetime,
            "access_token": token,
            "token_type": "Bearer",
        },
    )


async def _json_body(request: web.Request) -> tuple[Any, web.Response | None]:
    try:
        return json.loads(await request.read() or b"null"), None
    except ValueError:
        return None, error_answer(400, "Bad Request", "the request body is not valid JSON")


async def update_feature(request: web.Request) -> web.Response:
    """PUT /v2/subscriptions/features/{feature_uuid}: validated partial update, 200 with the feature."""
    state = request.app[STATE]
    feature_id = request.match_info["feature_id"]
    if not is_uuid(feature_id):
        return error_answer(400, "Validation Error", f"{feature_id!r} is not a UUID", "feature_uuid")
    feature = state.features.get(feature_id)
    if feature is None:
        return error_answer(404, "Not Found", f"no feature {feature_id}")
    payload, refusal = await _json_body(request)
    if refusal:
        return refusal
    problems = validate_update(payload, feature_id)
    if problems and state.settings.breaks("feature.update.invalid-accepted"):
        attributes = sent_attributes(payload) or {}
        try:
            updated = apply_update(feature, attributes, state.now())
        except (TypeError, ValueError, KeyError, AttributeError):
            updated = feature
        state.features[feature_id] = updated
        return broken_answer(request, "feature", {"data": updated}, payload=payload)
    if problems:
        errors = [
            {
                "status": "400",
                "title": "Validation Error",
                "detail": problem.detail,
                "source": problem.source,
            }
            for problem in problems
        ]
        return json_answer(400, {"errors": errors})
    updated = apply_update(feature, payload["data"]["attributes"], state.now())
    state.features[feature_id] = updated
    return broken_answer(request, "feature", {"data": updated}, payload=payload)


async def get_entry(request: web.Request) -> web.Response:
    """GET /v2/extensions/{slug}/{id}: the entry with a weak ETag of its etag_id."""
    state = request.app[STATE]
    entry = state.entries.get((request.match_info["slug"], request.match_info["entry_id"]))
    if entry is None:
        return error_answer(404, "Not Found", "no such custom API entry")
    return broken_answer(request, "entry", {"data": entry}, headers={"ETag": etag_of(entry)})


async def put_entry(request: web.Request) -> web.Response:
    """PUT /v2/extensions/{slug}/{id}: change fields; If-Match guards against lost updates."""
    state = request.app[STATE]
    key = (request.match_info["slug"], request.match_info["entry_id"])
    entry = state.entries.get(key)
    if entry is None:
        return error_answer(404, "Not Found", "no such custom API entry")
    expected = request.headers.get("If-Match")
    if expected is not None and expected not in (etag_of(entry), _shown_etag(request, entry)):
        return error_answer(
            412,
            "Precondition Failed",
            f"The provided ETag {expected} does not match the current ETag {etag_of(entry)}",
        )
    payload, refusal = await _json_body(request)
    if refusal:
        return refusal
    problems = entry_update_errors(entry, payload)
    if problems:
        errors = [
            {"status": "400", "title": "Validation Error", "detail": detail, "source": source}
            for source, detail in problems
        ]
        return json_answer(400, {"errors": errors})
    updated = update_entry(entry, payload["data"], state.now())
    state.entries[key] = updated
    # A broken ETag is broken on the update's answer too: the checks learn the entry's version from it.
    return broken_answer(request, "entry", {"data": updated}, headers={"ETag": etag_of(updated)})


async def list_records(request: web.Request) -> web.Response:
    """GET on a paginated list: the window the page parameters ask for, in the full envelope."""
    state = request.app[STATE]
    name = request.path.removeprefix("/v2/").removesuffix("/")
    records = state.records(name)
    if records is None:
        return error_answer(404, "Not Found", f"no list at {request.path}")
    query = {key: request.query.getone(key) for key in request.query}
    breaks = state.settings.breaks
    hard_limit = name in HARD_OFFSET_LIMITED and not breaks("pagination.offset.hard-limit-accepted")
    try:
        page = parse_page_request(query, hard_limit, state.settings.default_page_length)
        chosen = select(records, replace(page, filters=()) if breaks("pagination.filter.honoured") else page)
    except ListError as error:
        return error_answer(400, "Bad Request", error.detail, error.source)
    base_url = f"{request.scheme}://{request.host}{request.path}"
    return broken_answer(request, "list", list_page(chosen, len(records), page, base_url))


async def not_found(request: web.Request) -> web.Response:
    """Anything else: the service's 404."""
    return error_answer(404, "Not Found", f"no route {request.method} {request.path}")


def create_sandbox_app(settings: SandboxSettings | None = None) -> web.Application:
    """A fresh sandbox with its own in-memory state."""
    settings = settings or SandboxSettings()
    app = web.Application(middlewares=[same_machine, bearer_auth])
    app[STATE] = SandboxState(settings)
    app[ALLOWED] = settings.allowed_hosts
    app.router.add_post("/oauth/access_token", access_token)
    # The service routes a path with a trailing slash as the path without it (`/v2/accounts/`): so do
    # the sandbox, the rules and replay's matching.
    for ending in ("", "/"):
        app.router.add_put("/v2/subscriptions/features/{feature_id}" + ending, update_feature)
        app.router.add_get("/v2/extensions/{slug}/{entry_id}" + ending, get_entry)
        app.router.add_put("/v2/extensions/{slug}/{entry_id}" + ending, put_entry)
        for name in (*LIST_SIZES, *LIST_ALIASES):
            app.router.add_get(f"/v2/{name}" + ending, list_records)
        app.router.add_get("/v2/flows/{slug}/entries" + ending, list_records)
    app.router.add_route("*", "/{tail:.*}", not_found)
    return app
