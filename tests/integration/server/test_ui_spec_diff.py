"""The UI's diff of two cassettes (`GET /_proxy/ui/api/cassette-diff`) tiers the differences by the
specs the server was started with, the config's `specs:` or `ui --spec`, as `cassette diff --format
json` does: the same document. A spec that cannot be used stops `ui` before it serves. In-process: the
UI's server on 127.0.0.1, its JSON API called as the page calls it."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.app.command_inputs import RuleChoice
from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import offline_view
from proxy.app.ui_action_cases import UiActions
from proxy.app.ui_setup import offline_ui_setting
from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.access import TOKEN_HEADER
from proxy.core.ui.query import parse_query
from proxy.server.serving import Runner, start
from proxy.server.ui_action_routes import ActionRoutes
from proxy.server.ui_routes import UiRoutes, create_ui_app
from proxy.store.saving import save_cassette
from tests.integration.cli.test_spec_drift_kinds import chosen
from tests.unit.core.contract.test_drift_kinds import SPEC, pair

TOKEN = "spec-diff-test-token-0123456789abcdef"
SPELLED = {"specs:": ("specs: shapes.yaml\n", ()), "--spec": ("{}\n", (Path("shapes.yaml"),))}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(SPEC, tmp_path / "shapes.yaml")
    pairs = [pair(case) for case in chosen()]
    save_cassette(tmp_path / "a.yaml", Cassette(tuple(one for one, _ in pairs)))
    save_cassette(tmp_path / "b.yaml", Cassette(tuple(live for _, live in pairs)))
    return tmp_path


@pytest.fixture
async def runners() -> AsyncIterator[list[Runner]]:
    started: list[Runner] = []
    yield started
    for runner in started:
        await runner.cleanup()


async def ui_cassette_diff(folder: Path, rules: RuleChoice, runners: list[Runner]) -> Any:
    """The UI's server over a.yaml and b.yaml, set up as `ui` sets it up; its cassette diff of them."""
    in_force = project_rules(folder)
    setting = offline_ui_setting(in_force, rules)
    view = offline_view([folder / "a.yaml", folder / "b.yaml"], in_force, cache=False)
    actions = ActionRoutes(UiActions(view, setting), parse_query)
    runner, url = await start(
        create_ui_app(UiRoutes(view, parse_query, {}, actions=actions), TOKEN), "127.0.0.1", 0
    )
    runners.append(runner)
    route = f"{url}/_proxy/ui/api/cassette-diff?a={folder / 'a.yaml'}&b={folder / 'b.yaml'}"
    async with (
        aiohttp.ClientSession() as session,
        session.get(route, headers={TOKEN_HEADER: TOKEN}) as answer,
    ):
        assert answer.status == 200
        return json.loads(await answer.read())


@pytest.mark.parametrize("spelled", SPELLED)
async def test_the_ui_diff_of_two_cassettes_is_tiered_by_the_server_s_specs(
    folder: Path, runners: list[Runner], spelled: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config, specs = SPELLED[spelled]
    (folder / "commerce-proxy.yaml").write_text(config)
    document = await ui_cassette_diff(folder, RuleChoice(specs=specs), runners)
    flags = [f"--spec={path}" for path in specs]
    assert (
        main(["cassette", "diff", str(folder / "a.yaml"), str(folder / "b.yaml"), "--format", "json", *flags])
        == 1
    )
    assert document == json.loads(capsys.readouterr().out)
    minimum = "shapes.yaml#/components/schemas/Shape/properties/listed/minItems"
    assert [
        (item["tier"], Path(item["source"].partition("#")[0]).name + "#" + item["source"].partition("#")[2])
        for item in document["changes"]
        if item["where"] == "json.data.listed.length"
    ] == [("breaking", minimum)]


async def test_without_specs_the_ui_diff_names_no_source(folder: Path, runners: list[Runner]) -> None:
    (folder / "commerce-proxy.yaml").write_text("{}\n")
    document = await ui_cassette_diff(folder, RuleChoice(), runners)
    assert document["changes"] and all("source" not in item for item in document["changes"])


def test_ui_refuses_a_spec_it_cannot_use_before_serving(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "broken.yaml").write_text("openapi: 3.1.0\npaths: {/a: [1, 2]}\n")
    (folder / "commerce-proxy.yaml").write_text("{}\n")
    code = main(["ui", "a.yaml", "--spec", "broken.yaml", "--port", "0"])
    err = capsys.readouterr().err
    assert (
        code == 2 and "broken.yaml" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    )
