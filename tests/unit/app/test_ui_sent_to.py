"""Where an exchange was sent, for every kind of source the UI shows: copy as curl and export target the
origin the exchange went to (a cassette's or journal's recorded upstream with its base path, each HAR
entry's own origin, the cassette of the recording that answered in replay, the server's upstream in
record and spy), never a made-up one. Failed before: a HAR exchange's curl went to http://localhost."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from proxy.app.live_traffic import live_view
from proxy.app.traffic_view import Answered, TrafficView, offline_view
from proxy.app.ui_action_cases import UNKNOWN_UPSTREAM, ActionSetting, UiActions
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.interchange.har import cassette_to_har
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.ui.query import Query
from proxy.store.rule_files import RulesInForce


def _exchange(path: str) -> Exchange:
    return Exchange(
        Request("GET", path, "page=2", (("Accept", "application/json"),)),
        Response(200, (("Content-Type", "application/json"),), Body("json", {"data": []})),
        "2026-01-02T03:04:05Z",
        3.0,
    )


ONE = _exchange("/v2/brands")
TWO = _exchange("/v2/products")
Built = tuple[TrafficView, ActionSetting, list[str]]  # the view, its actions' setting, each row's URL


def _cassette(tmp: Path, rules: RulesInForce, upstream: str | None) -> Built:
    path = tmp / "c.yaml"
    path.write_text(dump_cassette(Cassette((ONE, TWO), upstream)))
    base = upstream or UNKNOWN_UPSTREAM
    return (
        offline_view([path], rules, cache=False),
        ActionSetting("offline", rules),
        [
            f"{base}/v2/brands?page=2",
            f"{base}/v2/products?page=2",
        ],
    )


def _journal(tmp: Path, rules: RulesInForce) -> Built:
    path = tmp / "r.yaml.journal"
    header = {"commerce_proxy_journal": 2, "mode": "replace", "upstream": "http://127.0.0.1:9/base"}
    path.write_bytes(json.dumps(header).encode() + b"\n" + journal_line(0, ONE) + journal_line(1, TWO))
    urls = ["http://127.0.0.1:9/base/v2/brands?page=2", "http://127.0.0.1:9/base/v2/products?page=2"]
    return offline_view([path], rules, cache=False), ActionSetting("offline", rules), urls


def _har_of_two_origins(tmp: Path, rules: RulesInForce) -> Built:
    first = cassette_to_har(Cassette((ONE,), "https://a.example"), "t")
    second = cassette_to_har(Cassette((TWO,), "http://b.example:8080/gateway"), "t")
    document = {"log": {"version": "1.2", "entries": first["log"]["entries"] + second["log"]["entries"]}}
    path = tmp / "two.har"
    path.write_text(json.dumps(document))
    urls = ["https://a.example/v2/brands?page=2", "http://b.example:8080/gateway/v2/products?page=2"]
    return offline_view([path], rules, cache=False), ActionSetting("offline", rules), urls


def _exported_har(tmp: Path, rules: RulesInForce) -> Built:
    path = tmp / "export.har"
    path.write_text(
        json.dumps(cassette_to_har(Cassette((ONE, TWO), "https://api.example.com/commerce"), "t"))
    )
    urls = [
        "https://api.example.com/commerce/v2/brands?page=2",
        "https://api.example.com/commerce/v2/products?page=2",
    ]
    return offline_view([path], rules, cache=False), ActionSetting("offline", rules), urls


def _replay(tmp: Path, rules: RulesInForce) -> Built:
    path = tmp / "answers.yaml"
    path.write_text(dump_cassette(Cassette((ONE, TWO), "https://shop.example/api")))
    view = live_view("replay", None, rules, sources=[str(path)])
    view.add_answered(ONE, [], Answered("recording", f"{path}#0"))
    view.add_answered(TWO, [], Answered("recording", f"{path}#1"))
    view.flush()
    urls = ["https://shop.example/api/v2/brands?page=2", "https://shop.example/api/v2/products?page=2"]
    return view, ActionSetting("replay", rules), urls


def _serving(mode: str) -> Callable[[Path, RulesInForce], Built]:
    def build(tmp: Path, rules: RulesInForce) -> Built:
        view = live_view(mode, None, rules, sources=["http://127.0.0.1:7/root"])
        for exchange in (ONE, TWO):
            view.add_answered(exchange, [], Answered("upstream"))
        view.flush()
        setting = ActionSetting(mode, rules, upstream="http://127.0.0.1:7/root")
        return (
            view,
            setting,
            ["http://127.0.0.1:7/root/v2/brands?page=2", "http://127.0.0.1:7/root/v2/products?page=2"],
        )

    return build


SOURCES: dict[str, Callable[[Path, RulesInForce], Built]] = {
    "cassette": lambda tmp, rules: _cassette(tmp, rules, "https://api.example.com/commerce"),
    "cassette naming no upstream": lambda tmp, rules: _cassette(tmp, rules, None),
    "journal": _journal,
    "HAR of two origins": _har_of_two_origins,
    "HAR exported by export-har": _exported_har,
    "replay": _replay,
    "record": _serving("record"),
    "spy": _serving("spy"),
}


@pytest.fixture
def rules(shipped_rules: RulesInForce) -> RulesInForce:
    return shipped_rules


pytestmark = pytest.mark.usefixtures("own_cache")


@pytest.mark.parametrize("kind", SOURCES)
def test_curl_and_export_target_where_each_exchange_was_sent(
    tmp_path: Path, rules: RulesInForce, kind: str
) -> None:
    view, setting, urls = SOURCES[kind](tmp_path, rules)
    try:
        actions = UiActions(view, setting)
        rows = view.window(Query(), 0, 10)["exchanges"]
        assert len(rows) == len(urls)
        for row, url in zip(rows, urls, strict=True):
            command = actions.curl(int(row["id"]))["command"]
            assert shlex.split(command)[-1] == url, (kind, command)
            path = url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
            data, _ = actions.export(Query(path=f"*{path.rsplit('/', 1)[1]}"), "har")
            entries = json.loads(data)["log"]["entries"]
            unknown = kind == "cassette naming no upstream"  # export-har's own stand-in, as for the file
            exported = url.replace(UNKNOWN_UPSTREAM, "http://127.0.0.1") if unknown else url
            assert [entry["request"]["url"] for entry in entries] == [exported], kind
            cassette = yaml.safe_load(actions.export(Query(path=f"*{path.rsplit('/', 1)[1]}"), "cassette")[0])
            if unknown:
                assert cassette.get("upstream") is None  # not the placeholder curl needs
            else:
                assert url.startswith(cassette["upstream"]), (kind, cassette["upstream"])
    finally:
        view.close()
