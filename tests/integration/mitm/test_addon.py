"""The mitmproxy addon, driven by mitmproxy's own test helpers (taddons, tflow)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from mitmproxy import exceptions
from mitmproxy.test import taddons

from proxy.errors import JournalError
from proxy.mitm.addon import CassetteRecorder
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import journal_path
from tests.integration.mitm.flows import TOKEN, api_flow, products_page


@pytest.fixture(autouse=True)
def no_project_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


async def test_the_addon_records_redacts_and_checks_https_flows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Flows of one origin are journaled as they complete, checked, and written redacted at the end."""
    cassette = tmp_path / "phone.yaml"
    recorder = CassetteRecorder()
    with taddons.context(recorder) as context:
        context.configure(recorder, cassette=str(cassette))
        with caplog.at_level(logging.INFO):
            recorder.response(api_flow("GET", "/v2/products?page[limit]=1", products_page(total=3)))
            recorder.response(api_flow("GET", "/v2/products?page[limit]=1", products_page(total=-4)))
            recorder.response(api_flow("GET", "/beacon", {}, host="tracker.example"))
            assert journal_path(cassette).exists(), "each exchange is journaled before the session ends"
            recorder.done()
    recorded = read_cassette_file(cassette)
    assert recorded.upstream == "https://api.shop.example"
    assert [item.request.target for item in recorded.exchanges] == ["/v2/products?page[limit]=1"] * 2
    raw = cassette.read_bytes()
    assert TOKEN.encode() not in raw and b"Bearer <redacted>" in raw
    assert not journal_path(cassette).exists()
    messages = [record.getMessage() for record in caplog.records]
    # The second flow is exchange #1 of the cassette, as `cassette show phone.yaml 1` opens it.
    assert any("error" in message and "#1 " in message and "pagination" in message for message in messages), (
        messages
    )
    assert not any("#0 " in message and "error" in message for message in messages)
    assert any("not recorded: 1 exchange(s) with https://tracker.example" in message for message in messages)


async def test_the_addon_keeps_to_the_origin_it_is_given(tmp_path: Path) -> None:
    """With cassette_origin set, flows to any other origin are left out even if they come first."""
    cassette = tmp_path / "c.yaml"
    recorder = CassetteRecorder()
    with taddons.context(recorder) as context:
        context.configure(recorder, cassette=str(cassette), cassette_origin="https://api.shop.example")
        recorder.response(api_flow("GET", "/x", {}, host="first.example"))
        recorder.response(api_flow("GET", "/v2/products", products_page()))
        recorder.done()
    assert [item.request.path for item in read_cassette_file(cassette).exchanges] == ["/v2/products"]


async def test_once_refuses_an_existing_cassette_and_new_episodes_adds(tmp_path: Path) -> None:
    """cassette_mode once will not overwrite a cassette; new_episodes appends to it in order."""
    cassette = tmp_path / "c.yaml"
    first = CassetteRecorder()
    with taddons.context(first) as context:
        context.configure(first, cassette=str(cassette))
        first.response(api_flow("GET", "/v2/products", products_page()))
        first.done()
    second = CassetteRecorder()
    with (
        taddons.context(second) as context,
        pytest.raises(exceptions.OptionsError, match="exists and cassette_mode once"),
    ):
        context.configure(second, cassette=str(cassette))
    third = CassetteRecorder()
    with taddons.context(third) as context:
        context.configure(third, cassette=str(cassette), cassette_mode="new_episodes")
        third.response(api_flow("PUT", "/v2/products/p1", {"data": {}}, sent={"data": {}}))
        third.done()
    assert [item.request.method for item in read_cassette_file(cassette).exchanges] == ["GET", "PUT"]


async def test_a_flow_the_journal_cannot_take_is_answered_507(tmp_path: Path) -> None:
    """A full disk: the client gets 507 "Not recorded" instead of the answer, and recording goes on."""
    cassette = tmp_path / "c.yaml"
    recorder = CassetteRecorder()
    with taddons.context(recorder) as context:
        context.configure(recorder, cassette=str(cassette))
        recorder.response(api_flow("GET", "/v2/products", products_page()))
        assert recorder.session is not None
        journal = recorder.session.journal
        assert journal is not None
        write = journal._write

        def full(document: dict[str, object]) -> None:
            raise JournalError(f"{journal.path}: cannot write the journal: No space left on device")

        journal._write = full  # type: ignore[method-assign]
        refused = api_flow("GET", "/v2/brands", products_page())
        recorder.response(refused)
        journal._write = write  # type: ignore[method-assign]
        recorder.response(api_flow("GET", "/v2/carts", products_page()))
        recorder.done()
    assert refused.response is not None and refused.response.status_code == 507
    [error] = json.loads(refused.response.content or b"")["errors"]
    assert error["title"] == "Not recorded" and "No space left on device" in error["detail"]
    paths = [item.request.path for item in read_cassette_file(cassette).exchanges]
    assert paths == ["/v2/products", "/v2/carts"]


async def test_a_placeholder_credential_is_answered_401_and_not_recorded(tmp_path: Path) -> None:
    """A request carrying `Bearer <redacted>` (a token replayed from a cassette) gets the addon's own
    401 and is never sent or recorded; a real token goes through."""
    cassette = tmp_path / "c.yaml"
    recorder = CassetteRecorder()
    with taddons.context(recorder) as context:
        context.configure(recorder, cassette=str(cassette))
        replayed = api_flow("GET", "/v2/products", products_page())
        replayed.request.headers["Authorization"] = "Bearer <redacted>"
        replayed.response = None
        recorder.request(replayed)
        assert replayed.response is not None and replayed.response.status_code == 401
        assert b"redaction placeholder" in replayed.response.content
        recorder.response(replayed)
        real = api_flow("GET", "/v2/products?page[limit]=1", products_page())
        recorder.request(real)
        assert real.response is not None and real.response.status_code == 200  # left as it was
        recorder.response(real)
        recorder.done()
    assert [item.request.target for item in read_cassette_file(cassette).exchanges] == [
        "/v2/products?page[limit]=1"
    ]


async def test_re_recording_pairs_requests_as_the_projects_match_table_says(tmp_path: Path) -> None:
    """The project's `match` table applies to the addon as to `record`: re-recording (`all`) an
    unchanged answer to a request that differs only in an ignored field keeps its earlier entry."""
    (tmp_path / "commerce-proxy.yaml").write_text("match:\n  ignore_json: [data.meta.request_id]\n")
    cassette = tmp_path / "c.yaml"
    for mode, request_id, started in (
        ("once", "first-run", 1795000000.0),
        ("all", "second-run", 1795000100.0),
    ):
        recorder = CassetteRecorder()
        with taddons.context(recorder) as context:
            context.configure(recorder, cassette=str(cassette), cassette_mode=mode)
            sent = {"data": {"type": "cart", "meta": {"request_id": request_id}}}
            recorder.response(
                api_flow("POST", "/v2/carts", {"data": {"id": "c1"}}, sent=sent, started=started)
            )
            recorder.done()
    [kept] = read_cassette_file(cassette).exchanges
    assert kept.request.body.value["data"]["meta"]["request_id"] == "first-run"


async def test_new_episodes_answers_what_the_cassette_holds_and_appends_only_new_requests(
    tmp_path: Path,
) -> None:
    """As `record --mode new_episodes`: a request the cassette holds is answered from it (not sent, not
    recorded again), a token request is always sent and its fresh token not recorded twice, and only
    the new request is appended. Before the addon went through the recorder, it appended all three."""
    cassette = tmp_path / "c.yaml"
    token = {"access_token": TOKEN, "token_type": "Bearer", "expires": 1795003600}
    first = CassetteRecorder()
    with taddons.context(first) as context:
        context.configure(first, cassette=str(cassette))
        for flow in (
            api_flow("POST", "/oauth/access_token", token, sent={"grant_type": "implicit"}),
            api_flow("GET", "/v2/products", products_page()),
        ):
            first.request(flow)
            first.response(flow)
        first.done()
    second = CassetteRecorder()
    with taddons.context(second) as context:
        context.configure(second, cassette=str(cassette), cassette_mode="new_episodes")
        again_token = api_flow("POST", "/oauth/access_token", token, sent={"grant_type": "implicit"})
        held = api_flow("GET", "/v2/products", products_page(total=9))  # what the live service would say
        new = api_flow("PUT", "/v2/products/p1", {"data": {}}, sent={"data": {}})
        for flow in (again_token, held, new):
            second.request(flow)
            second.response(flow)
        second.done()
    assert held.response is not None and held.response.status_code == 200
    assert json.loads(held.response.content or b"")["meta"]["page"]["total"] == 3, "the recorded answer"
    assert again_token.response is not None and json.loads(again_token.response.content or b"") == token
    exchanges = read_cassette_file(cassette).exchanges
    assert [(item.request.method, item.request.path) for item in exchanges] == [
        ("POST", "/oauth/access_token"),
        ("GET", "/v2/products"),
        ("PUT", "/v2/products/p1"),
    ]


async def test_every_line_of_ours_is_prefixed_when_mitmproxy_loads_the_addon_as_a_script(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`mitmdump -s proxy/mitm/addon.py` imports the file as a module named `addon`, not `proxy.mitm.addon`:
    every line not from mitmproxy itself, the addon's own included (another origin) and the use cases'
    (findings, the summary), starts `commerce-proxy: `. Failed before: the addon's own lines had no prefix
    when loaded this way."""
    from mitmproxy.addons.script import load_script

    import proxy.mitm.addon as packaged

    script = load_script(packaged.__file__)
    assert script is not None and script.__name__ != packaged.__name__
    recorder = script.addons[0]
    cassette = tmp_path / "phone.yaml"
    with caplog.at_level(logging.INFO), taddons.context(recorder) as context:
        context.configure(recorder, cassette=str(cassette))
        recorder.response(api_flow("GET", "/v2/products?page[limit]=1", products_page(total=-4)))
        recorder.response(api_flow("GET", "/beacon", {}, host="tracker.example"))
        recorder.done()
    ours = [record for record in caplog.records if not record.name.startswith("mitmproxy")]
    messages = [record.getMessage() for record in ours]
    assert any("another origin" in message for message in messages), messages
    assert any("pagination" in message for message in messages), messages
    assert all(message.startswith("commerce-proxy: ") for message in messages), messages
