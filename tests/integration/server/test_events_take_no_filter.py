"""The events stream takes no filter: every filter parameter (and any other but `cursor`) is a 400
naming it, never a 200 that looks filtered and is not. Failed before: `events?cassette=zzz` was a 200
streaming every row."""

from __future__ import annotations

import json
import random

from proxy.core.ui.query import PARAMETERS
from tests.integration.server import test_ui_routes as routes

ui = routes.ui  # the UI server over a fake view, as the routes' tests use


async def test_every_filter_parameter_on_events_is_a_400_naming_it(ui: tuple[str, routes.FakeView]) -> None:
    url, _ = ui
    rng = random.Random()
    others = ["offset", "limit", "format", "".join(rng.choices("abcxyz_", k=rng.randint(1, 12)))]
    for name in [*PARAMETERS, *others]:
        for value in ("zzz", "", "GET", "2xx"):
            for target in (f"events?{name}={value}", f"events?cursor=0&{name}={value}&cursor=0"):
                status, _, body = await routes.fetch(url, f"/_proxy/ui/api/{target}", routes.AUTH)
                detail = json.loads(body)["errors"][0]["detail"]
                assert status == 400 and repr(name) in detail and "\n" not in detail, (target, detail)
