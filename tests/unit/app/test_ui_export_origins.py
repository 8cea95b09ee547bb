"""An export names each exchange where it was sent: a view of cassettes recorded from different
upstreams (drawn: schemes, default and other ports, a base path) exports a HAR whose every entry's URL
is its own cassette's upstream plus its request, as copy as curl names it; `import-har` of that HAR
reads each origin back. A view of one upstream writes it as the HAR's and the cassette's upstream."""

from __future__ import annotations

import json
import random
from pathlib import Path

from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import offline_view
from proxy.app.ui_action_cases import ActionSetting, UiActions
from proxy.core.interchange.har import exchanges_from_har
from proxy.core.ui.query import Query
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
UPSTREAMS = (
    "http://127.0.0.1:19000",
    "http://127.0.0.1:19100",
    "https://staging.example",
    "https://staging.example:8443",
    "http://localhost",
    "https://gateway.example/commerce",
)


def test_each_exported_exchange_names_its_own_upstream(tmp_path: Path) -> None:
    chance = random.Random(45)
    for round_number in range(8):
        folder = tmp_path / str(round_number)
        folder.mkdir()
        chosen = chance.sample(UPSTREAMS, chance.randint(1, 3))
        paths = []
        for number, upstream in enumerate(chosen):
            path = folder / f"c{number}.yaml"
            text = WALK.read_text(encoding="utf-8").replace(
                "upstream: http://127.0.0.1:37615", f"upstream: {upstream}"
            )
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        in_force = project_rules(folder)
        view = offline_view(paths, in_force, cache=False)
        actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
        data, _ = actions.export(Query(), "har")
        document = json.loads(data)
        rows = view.window(Query(), 0, 500)["exchanges"]
        entries = document["log"]["entries"]
        assert len(entries) == len(rows)
        for row, entry in zip(rows, entries, strict=True):
            upstream = chosen[paths.index(Path(row["cassette"]))]
            assert entry["request"]["url"] == upstream + row["path"], (upstream, entry["request"]["url"])
            assert entry["request"]["url"] in actions.curl(row["id"])["command"]
        imported = list(exchanges_from_har(document, "export.har"))
        assert [item.origin for item in imported] == [
            chosen[paths.index(Path(r["cassette"]))].rsplit("/commerce", 1)[0] for r in rows
        ]
        assert document["log"]["_commerce_proxy"]["upstream"] == (chosen[0] if len(chosen) == 1 else None)
        view.close()
