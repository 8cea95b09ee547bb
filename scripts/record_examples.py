"""Record the shipped example cassettes from the sandbox: the demo session and a pagination walk."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import aiohttp
from yarl import URL

from proxy.app.record_setup import record_settings, shipped_rules_in_force
from proxy.demo import run_demo_session, start_sandbox_at_its_address
from proxy.sandbox.app import SandboxSettings
from proxy.server.record import create_record_app
from proxy.server.serving import start


async def record_pagination_walk(path: Path) -> None:
    """A client walking product pages by links, with each total method, and an offset too far."""
    settings = SandboxSettings()
    sandbox, sandbox_url = await start_sandbox_at_its_address(settings, path)
    recording = record_settings(sandbox_url, path, shipped_rules_in_force(), mode="all", checking=False)
    recorder, url = await start(create_record_app(recording), "127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            form = {
                "grant_type": "client_credentials",
                "client_id": settings.client_id,
                "client_secret": settings.client_secret,
            }
            async with session.post(f"{url}/oauth/access_token", data=form) as answer:
                headers = {"Authorization": f"Bearer {(await answer.json())['access_token']}"}
            for method in ("exact", "lower_bound", "observed"):
                target: str | None = f"{url}/v2/products?page[limit]=10&page[total_method]={method}"
                for _ in range(3):
                    assert target is not None
                    async with session.get(URL(target, encoded=True), headers=headers) as answer:
                        target = (await answer.json())["links"]["next"]
            for target in (
                "/v2/files?page[offset]=10000",
                "/v2/files?page[offset]=10050",
                "/v2/categories?page[limit]=150",
                "/v2/inventory?page[limit]=abc",
            ):
                async with session.get(URL(url + target, encoded=True), headers=headers) as answer:
                    await answer.read()
    finally:
        await recorder.cleanup()
        await sandbox.cleanup()


async def main(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    status = await run_demo_session(folder / "demo-session.yaml", print)
    await record_pagination_walk(folder / "pagination-walk.yaml")
    return status


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(Path(sys.argv[1]))))
