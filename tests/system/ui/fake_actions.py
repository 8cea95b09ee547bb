"""The action routes of docs/ui.md in the fake server: curl, diff, export, baseline, delete, edit and
resend over the fake's detail documents, in their documented shapes, so the page's tests stay fast.

What they compute is a plain stand-in (the real diff is `cassette diff`'s); what the page is tested on
is that it calls each route as documented (POSTs as JSON with the token header) and shows the answer.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from aiohttp import web

from tests.system.ui.fake_api import FakeTraffic, compile_filter_or_400, row_of

VOLATILE = {"date", "x-request-id"}
Detail = dict[str, Any]


def add_action_routes(app: web.Application, traffic: FakeTraffic) -> None:
    def api(document: Any, status: int = 200) -> web.Response:
        return web.json_response(document, status=status, headers={"Cache-Control": "no-store"})

    def one_line(status: int, text: str) -> web.Response:
        return api({"errors": [{"status": str(status), "title": "refused", "detail": text}]}, status)

    def found(request: web.Request) -> Detail | None:
        return traffic.detail(int(request.match_info["number"]))

    async def body_of(request: web.Request) -> Any:
        if request.content_type != "application/json":
            raise web.HTTPUnsupportedMediaType(text="send the body as application/json")
        return await request.json()

    async def curl(request: web.Request) -> web.Response:
        detail = found(request)
        if detail is None:
            return one_line(404, "no such exchange")
        parts = ["curl", "-X", detail["method"], f"{traffic.upstream}{detail['path']}"]
        for name, value in detail["request"]["headers"]:
            parts += ["-H", f"{name}: {value}"]
        return api({"command": shlex.join(parts)})

    async def diff(request: web.Request) -> web.Response:
        a = traffic.detail(int(request.query.get("a", "0")))
        b = traffic.detail(int(request.query.get("b", "0")))
        if a is None or b is None:
            return one_line(404, "no such exchange")
        traffic.asked.append(("diff", dict(request.query)))
        return api(diff_document(a, b, request.query.get("all") == "1"))

    async def export(request: web.Request) -> web.StreamResponse:
        kind = request.query.get("format", "")
        if kind not in ("har", "cassette"):
            return one_line(400, "format: expected har or cassette")
        query = {k: v for k, v in request.query.items() if k != "format"}
        compile_filter_or_400(query)
        rows = [row_of(detail) for detail in traffic.matching(query)]
        name = f"exchanges.{'har' if kind == 'har' else 'yaml'}"
        return web.Response(
            body=json.dumps({"kind": kind, "exchanges": rows}).encode(),
            content_type="application/json",
            headers={"Content-Disposition": f"attachment; filename={name}"},
        )

    async def baseline(request: web.Request) -> web.Response:
        document = await body_of(request)
        if traffic.baseline is None:
            return one_line(409, "no baseline file is configured (name one in the project's config)")
        traffic.baseline.append((document["exchange"], document["rule"]))
        return api({"path": "baseline.yaml", "added": 1, "total": len(traffic.baseline)})

    async def delete(request: web.Request) -> web.Response:
        await body_of(request)
        if traffic.mode != "offline":
            return one_line(405, "delete works offline only (commerce-proxy ui PATH)")
        detail = found(request)
        if detail is None:
            return one_line(404, "no such exchange")
        traffic.remove(detail["id"])
        summary = f"deleted exchange {detail['index']} of {detail['cassette']}"
        return api({"summary": summary, "added": [], "removed": detail["findings"], "cursor": traffic.total})

    async def edit(request: web.Request) -> web.Response:
        document = await body_of(request)
        if traffic.mode != "offline":
            return one_line(405, "edit works offline only (commerce-proxy ui PATH)")
        detail = found(request)
        if detail is None:
            return one_line(404, "no such exchange")
        text = str(document.get("text", ""))  # the page sends the value as typed
        if document.get("field") != "status" or not text.isdigit():
            return one_line(400, f"field {document.get('field')!r}: the fake edits status (a number) only")
        detail["status"] = detail["response"]["status"] = int(text)
        added = [
            {
                "rule": "status.documented",
                "severity": "error",
                "message": "status not documented",
                "where": "response.status",
                "expected": None,
                "found": int(text),
                "citation": "",
                "section": "",
                "compared_with": None,
            }
        ]
        detail["findings"] = detail["findings"] + added
        summary = f"set status of exchange {detail['index']} of {detail['cassette']}"
        return api({"summary": summary, "added": added, "removed": [], "cursor": traffic.total})

    async def resend(request: web.Request) -> web.Response:
        await body_of(request)
        if traffic.mode not in ("record", "spy"):
            return one_line(405, "resend works in record and spy only")
        detail = found(request)
        if detail is None:
            return one_line(404, "no such exchange")
        live = {**detail, "response": {**detail["response"], "status": 503}}
        return api({"status": 503, "diff": diff_document(detail, live, False)})

    async def sources(request: web.Request) -> web.Response:
        kind = "cassette" if traffic.mode == "offline" else "live"
        return api({"sources": [{"name": name, "kind": kind} for name in traffic.sources]})

    number = r"{number:\d+}"
    app.router.add_get(f"/_proxy/ui/api/exchanges/{number}/curl", curl)
    app.router.add_get("/_proxy/ui/api/diff", diff)
    app.router.add_get("/_proxy/ui/api/sources", sources)
    app.router.add_get("/_proxy/ui/api/export", export)
    app.router.add_post("/_proxy/ui/api/baseline", baseline)
    app.router.add_post(f"/_proxy/ui/api/exchanges/{number}/delete", delete)
    app.router.add_post(f"/_proxy/ui/api/exchanges/{number}/edit", edit)
    app.router.add_post(f"/_proxy/ui/api/exchanges/{number}/resend", resend)


def diff_document(a: Detail, b: Detail, every_tier: bool) -> dict[str, Any]:
    """The diff document's shape: the request lines, request differences, the answers' changes in
    tiers (a key gone: breaking, a key added: additive, a value changed: data, Date: volatile)."""
    request = [
        {"where": f"request.{name}", "a": one, "b": two}
        for name, one, two in (("method", a["method"], b["method"]), ("target", a["path"], b["path"]))
        if one != two
    ]
    changes: list[dict[str, Any]] = []
    if a["response"]["status"] != b["response"]["status"]:
        changes.append(
            {"tier": "breaking", "where": "status", "a": a["status"], "b": b["response"]["status"]}
        )
    heads_a, heads_b = dict(a["response"]["headers"]), dict(b["response"]["headers"])
    for name in sorted(set(heads_a) | set(heads_b)):
        if heads_a.get(name) != heads_b.get(name):
            tier = "volatile" if name.lower() in VOLATILE else "data"
            changes.append(
                {"tier": tier, "where": f"headers.{name}", "a": heads_a.get(name), "b": heads_b.get(name)}
            )
    json_a, json_b = _json(a), _json(b)
    for key in [*json_a, *(key for key in json_b if key not in json_a)]:
        if key not in json_b:
            changes.append({"tier": "breaking", "where": f"json.{key}", "a": json_a[key]})
        elif key not in json_a:
            changes.append({"tier": "additive", "where": f"json.{key}", "b": json_b[key]})
        elif json_a[key] != json_b[key]:
            changes.append({"tier": "data", "where": f"json.{key}", "a": json_a[key], "b": json_b[key]})
    counts = {
        tier: sum(1 for c in changes if c["tier"] == tier)
        for tier in ("breaking", "additive", "data", "volatile")
    }
    return {
        "a": {"request": f"{a['method']} {a['path']}", "status": a["response"]["status"]},
        "b": {"request": f"{b['method']} {b['path']}", "status": b["response"]["status"]},
        "request": request,
        "changes": [c for c in changes if every_tier or c["tier"] != "volatile"],
        "counts": counts,
        "drifted": any(c["tier"] != "volatile" for c in changes),
    }


def _json(detail: Detail) -> dict[str, Any]:
    text = (detail["response"].get("body") or {}).get("text") or ""
    try:
        loaded = json.loads(text)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
