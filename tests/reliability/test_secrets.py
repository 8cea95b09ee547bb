"""Secrets never reach anything a person or a CI log can read: record tokens in headers, query strings,
form bodies, JSON bodies and answers (by default and as configured), then search every output for them
(every file written, parse cache and temporary files included; logs, answers, reports) in every
encoding they could take there: plain, percent-encoded, JSON-escaped, base64 at any alignment, and
inside gzip, br or zstd."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import signal
from pathlib import Path
from urllib.parse import quote, quote_plus

import aiohttp
import brotlicffi as brotli
import pytest
import zstandard
from yarl import URL

from proxy.store.journal import journal_path
from tests.conftest import Serve
from tests.integration.server.upstream import ISSUED, create_upstream_app
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, free_port, run_commerce_proxy, stop_with

# Each secret is sent where the default policy or the configured flags below redact it.
BY_DEFAULT = {
    "bearer": "tok-BEARER-1111",
    "api_key_header": "key-HEADER-2222",
    "cookie": "cookie-VALUE-3333",
    "access_token_query": "tok-QUERY-4444",
    "client_secret_form": "secret-FORM-5555",
    "refresh_token_json": "tok-JSON-6666",
}
CONFIGURED = {"shop_header": "shop-HEADER-7777", "shop_query": "shop-QUERY-8888", "pin_form": "pin-FORM-9999"}
CONFIGURED["pin_json"] = "pin-JSON-0000"
FLAGS = ["--redact-header", "X-Shop-Key", "--redact-query", "shop_key", "--redact-form", "pin"]
FLAGS += ["--redact-json-path", "data.pin"]
SECRETS = [*BY_DEFAULT.values(), *CONFIGURED.values(), *ISSUED]
REPORT_FORMATS = ("text", "json", "junit", "markdown", "html")


def headers() -> dict[str, str]:
    return {
        "Authorization": f"Bearer {BY_DEFAULT['bearer']}",
        "X-API-Key": BY_DEFAULT["api_key_header"],
        "Cookie": f"sid={BY_DEFAULT['cookie']}",
        "X-Shop-Key": CONFIGURED["shop_header"],
    }


async def send_everything(session: aiohttp.ClientSession, base: str) -> None:
    query = f"access_token={BY_DEFAULT['access_token_query']}&shop_key={CONFIGURED['shop_query']}"
    async with session.get(URL(f"{base}/v2/products?{query}", encoded=True), headers=headers()) as answer:
        assert answer.status == 200
    form = {"grant_type": "client_credentials", "client_secret": BY_DEFAULT["client_secret_form"]}
    form["pin"] = CONFIGURED["pin_form"]
    async with session.post(f"{base}/oauth/access_token", data=form, headers=headers()) as answer:
        assert answer.status == 200
    document = {"refresh_token": BY_DEFAULT["refresh_token_json"], "data": {"pin": CONFIGURED["pin_json"]}}
    async with session.put(f"{base}/v2/subscriptions/features/x", json=document, headers=headers()) as answer:
        assert answer.status == 200
    async with session.post(f"{base}/issue", headers=headers()) as answer:
        assert (await answer.json())["access_token"] == ISSUED[0]  # the client gets the real answer


def forms(secret: str) -> set[bytes]:
    """Every byte sequence `secret` could leave in an output: as written, percent-encoded and
    JSON-escaped, and the part of its base64 that does not depend on the bytes around it, at each of
    the three alignments it could start at."""
    raw = secret.encode()
    found = {form.encode() for form in (secret, quote(secret, safe=""), quote_plus(secret))}
    found.add(json.dumps(secret)[1:-1].encode())
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)
        first_whole_group = 1 if shift else 0
        last_group = (shift + len(raw)) // 3
        found.add(encoded[first_whole_group * 4 : last_group * 4])
    return found


def decompressed(data: bytes) -> bytes:
    """What `data` inflates to as gzip, br or zstd (nothing for what is none of them)."""
    out = b""
    for inflate in (gzip.decompress, brotli.decompress, zstandard.ZstdDecompressor().decompress):
        with contextlib.suppress(Exception):
            out += inflate(data)
    return out


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones too), with what it decompresses to."""
    return {
        f"file {path.relative_to(folder)}": path.read_bytes() + b"\n\0\n" + decompressed(path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run(*arguments: str) -> str:
    result = run_commerce_proxy(*arguments)
    return result.stdout + result.stderr


async def test_no_secret_reaches_any_file_log_answer_or_report(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "parse-cache"))  # searched with the rest
    upstream = await serve(create_upstream_app())
    cassette = tmp_path / "secrets.yaml"
    seen: dict[str, str] = {}
    async with aiohttp.ClientSession() as session:
        async with commerce_proxy(
            "record", "--upstream", upstream, "--cassette", str(cassette), *FLAGS
        ) as proxy:
            await send_everything(session, proxy.url)
            seen["journal"] = journal_path(cassette).read_text()
            async with session.get(f"{proxy.url}/_proxy/findings") as answer:
                seen["record /_proxy/findings"] = await answer.text()
            code, seen["record log"] = await stop_with(proxy, signal.SIGTERM)
            assert code == 0
        seen["cassette"] = cassette.read_text()
        async with commerce_proxy("spy", "--upstream", upstream, *FLAGS) as proxy:
            await send_everything(session, proxy.url)
            async with session.get(f"{proxy.url}/_proxy/findings") as answer:
                seen["spy /_proxy/findings"] = await answer.text()
            code, seen["spy log"] = await stop_with(proxy, signal.SIGTERM)
            assert code == 0
        async with commerce_proxy("spy", "--upstream", f"http://127.0.0.1:{free_port()}", *FLAGS) as proxy:
            query = f"access_token={BY_DEFAULT['access_token_query']}&shop_key={CONFIGURED['shop_query']}"
            async with session.get(URL(f"{proxy.url}/v2/products?{query}", encoded=True)) as answer:
                assert answer.status == 502
                seen["502 answer"] = await answer.text()
            code, seen["log of a failed upstream"] = await stop_with(proxy, signal.SIGTERM)
            assert code == 0
        replaying = ["replay", "--cassette", str(cassette), "--cassette-dir", str(tmp_path), *FLAGS]
        replaying += ["--usage-report", str(tmp_path / "usage.json")]
        async with commerce_proxy(*replaying, "--fault", "503:100%:GET /v2/brands*") as proxy:
            query = f"access_token={BY_DEFAULT['access_token_query']}&shop_key={CONFIGURED['shop_query']}"
            async with session.get(URL(f"{proxy.url}/v2/brands?{query}", encoded=True)) as answer:
                assert answer.status == 503  # the fault, logged with the request
            named = {"X-Commerce-Cassette": "../outside"}
            async with session.get(
                URL(f"{proxy.url}/v2/products?{query}", encoded=True), headers=named
            ) as answer:
                assert answer.status == 400  # an unusable cassette name, logged with the request
                seen["bad cassette name answer"] = await answer.text()
            # The same requests with other values miss: the near-miss answers show what differs.
            for secret in SECRETS[:4]:
                query = f"access_token={secret}x&shop_key={secret}y&page=2"
                target = URL(f"{proxy.url}/v2/products?{query}", encoded=True)
                async with session.get(target, headers=headers()) as answer:
                    assert answer.status == 404
                    seen[f"near miss for {secret}"] = await answer.text()
            async with session.get(f"{proxy.url}/_proxy/usage") as answer:
                seen["replay /_proxy/usage"] = await answer.text()
            code, seen["replay log"] = await stop_with(proxy, signal.SIGTERM)
            assert code == 0
    # A cassette past 1 MB gets a parse cache: merged with a large one, then checked, it has one.
    filler = tmp_path / "filler.yaml"
    filler.write_text(
        "cassette_format: 2\nexchanges:\n- request: {method: GET, path: /v2/files}\n"
        f"  response: {{status: 200, text: {'x' * 1_200_000}}}\n"
    )
    large = tmp_path / "large.yaml"
    seen["cassette merge"] = run("cassette", "merge", str(cassette), str(filler), "-o", str(large))
    for report_format in REPORT_FORMATS:
        seen[f"check --format {report_format}"] = run("check", str(large), "--format", report_format)
        report = tmp_path / f"report.{report_format}"
        seen[f"check -o {report.name}"] = run(
            "check", str(large), "--format", report_format, "-o", str(report)
        )
    assert list((tmp_path / "parse-cache").iterdir()), "the parse cache was written"
    seen["export-har"] = run("export-har", str(cassette), "-o", str(tmp_path / "out.har"))
    seen["har file"] = (tmp_path / "out.har").read_text()
    seen["cassette show"] = run("cassette", "show", str(cassette), "0")
    assert "<redacted>" in seen["cassette"] and "issued-" not in seen["cassette"]
    searched = {where: text.encode() for where, text in seen.items()} | files_under(tmp_path)
    leaks = [
        (where, form)
        for where, data in searched.items()
        for secret in SECRETS
        for form in forms(secret)
        if form in data
    ]
    assert not leaks, leaks
    write_figure("secrets_searched", len(SECRETS), "secrets sent (headers, query, form, JSON, answers)")
    write_figure(
        "secret_outputs_searched",
        len(searched),
        "outputs searched for them, in every encoding (files, logs, answers, reports)",
    )
    write_figure("secrets_leaked", len(leaks), "secrets found in any of those outputs")
