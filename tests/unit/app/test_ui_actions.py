"""The UI's actions as use cases, no server: each gives what its command gives (`cassette diff`,
`export-har` and `import-har`, a cassette save, `check --write-baseline`, `cassette delete`/`set`)."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from proxy.app import cassette_edits, editing
from proxy.app.cassette_diff import DiffRequest, rendered_diff
from proxy.app.command_inputs import RuleChoice
from proxy.app.importing import ExportRequest, ImportRequest, export_har, import_har
from proxy.app.project_rules import project_rules
from proxy.app.ui_actions import (
    accept_into_baseline,
    cassette_diff_document,
    delete_exchange,
    edit_exchange,
    exchange_diff,
    export_document,
)
from proxy.core.cassette.document import Cassette
from proxy.core.editing.edits import EditError
from proxy.core.model.exchange import EMPTY_BODY, Body, Exchange, Request, Response
from proxy.errors import UsageError
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
UPSTREAM = "http://127.0.0.1:37615"
JSON_TYPE = ("Content-Type", "application/json")


@pytest.fixture(autouse=True)
def no_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped rules: no config is found from the test's own folder."""
    monkeypatch.chdir(tmp_path)


def answered(body: Body, content_type: str | None, request_body: Body = EMPTY_BODY) -> Exchange:
    headers = (("Content-Type", content_type),) if content_type else ()
    return Exchange(
        Request("POST", "/v2/things", "a[b]=1&c=%20", (("Accept", "*/*"), *headers), request_body),
        Response(200, headers, body),
        "2024-05-01T10:00:00.000Z",
        12.5,
    )


BODY_SHAPES = {
    "empty": answered(Body(), None),
    "json object": answered(Body("json", {"data": {"id": "1", "name": "é ü"}}), "application/json"),
    "json array": answered(Body("json", [1, 2.5, None, True, "x"]), "application/json"),
    "json request": answered(Body(), None, Body("json", {"q": "<script>"})),
    "text": answered(Body("text", "line one\nline two\t'\"$`"), "text/plain; charset=utf-8"),
    "text despite a JSON type": answered(Body("text", '{"not": json'), "application/json"),
    "binary": answered(
        Body("base64", base64.b64encode(bytes(range(256))).decode()), "application/octet-stream"
    ),
    "unicode text": answered(Body("text", "日本語 ✓ \u2028"), "text/plain"),
}


@pytest.mark.parametrize("exchange", BODY_SHAPES.values(), ids=BODY_SHAPES.keys())
def test_a_har_export_reimported_with_import_har_gives_back_the_same_exchanges(
    tmp_path: Path, exchange: Exchange
) -> None:
    """HAR bytes from the UI's export, read by `import-har`, give back every exchange as it was."""
    exchanges = [exchange, exchange]
    har = tmp_path / "view.har"
    har.write_bytes(export_document(exchanges, "har", UPSTREAM))
    imported = import_har(ImportRequest(har, tmp_path / "back.yaml"))
    assert list(imported.cassette.exchanges) == exchanges
    assert read_cassette_file(tmp_path / "back.yaml").upstream == UPSTREAM


def test_the_exports_are_the_bytes_a_save_and_export_har_write(tmp_path: Path) -> None:
    """No second codec: a cassette export is what a save writes, a HAR export what `export-har` writes."""
    cassette = read_cassette_file(WALK)
    saved = tmp_path / "saved.yaml"
    save_cassette(saved, Cassette(cassette.exchanges, cassette.upstream))
    as_cassette = export_document(cassette.exchanges, "cassette", cassette.upstream)
    assert as_cassette == saved.read_bytes()
    export_har(ExportRequest(saved, tmp_path / "saved.har"))
    assert (
        export_document(cassette.exchanges, "har", cassette.upstream) == (tmp_path / "saved.har").read_bytes()
    )


def test_an_export_is_redacted() -> None:
    """A secret the view somehow still holds never leaves in an export."""
    secret = "Bearer sk-live-0123456789abcdef"
    exchange = Exchange(Request("GET", "/v2/orders", "", (("Authorization", secret),)), Response(200))
    for kind in ("har", "cassette"):
        exported = export_document([exchange], kind, UPSTREAM)  # type: ignore[arg-type]
        assert b"sk-live-0123456789abcdef" not in exported


def test_an_unknown_export_kind_is_one_line() -> None:
    with pytest.raises(UsageError, match=r"^export: unknown kind 'zip'; expected one of har, cassette$"):
        export_document([], "zip", None)  # type: ignore[arg-type]


def test_exchange_diff_shows_what_changed_in_tiers_and_the_volatile_only_when_asked() -> None:
    """A removed field is breaking, a new one additive, a timestamp volatile (counted, hidden)."""
    first = answered(Body("json", {"data": {"id": "1", "name": "a", "updated_at": "t1"}}), "application/json")
    second = Exchange(
        Request("POST", "/v2/things", "a[b]=2", (("accept", "*/*"), ("X-Id", "9"))),
        Response(200, (JSON_TYPE,), Body("json", {"data": {"id": "1", "updated_at": "t2", "new": 1}})),
        "2024-05-01T10:00:00.000Z",
        12.5,
    )
    document = exchange_diff(first, second)
    assert document["changes"] == [
        {"tier": "breaking", "where": "json.data.name", "a": "a"},
        {"tier": "additive", "where": "json.data.new", "b": 1},
    ]
    assert document["counts"] == {"breaking": 1, "additive": 1, "data": 0, "volatile": 1}
    assert document["drifted"] is True
    assert document["request"] == [
        {"where": "request.target", "a": "/v2/things?a[b]=1&c=%20", "b": "/v2/things?a[b]=2"},
        {"where": "request.headers.Content-Type", "a": "application/json"},
        {"where": "request.headers.X-Id", "b": "9"},
    ]
    verbose = exchange_diff(first, second, verbose=True)
    assert {"tier": "volatile", "where": "json.data.updated_at", "a": "t1", "b": "t2"} in verbose["changes"]


def test_an_exchange_diffed_with_itself_has_no_change() -> None:
    exchange = BODY_SHAPES["json object"]
    document = exchange_diff(exchange, exchange, verbose=True)
    assert (document["request"], document["changes"], document["drifted"]) == ([], [], False)


def test_cassette_diff_document_is_cassette_diffs_json(tmp_path: Path) -> None:
    """The same document `cassette diff --format json` prints for the two files."""
    changed = tmp_path / "changed.yaml"
    cassette = read_cassette_file(WALK)
    save_cassette(changed, Cassette(cassette.exchanges[1:], cassette.upstream))
    printed = rendered_diff(DiffRequest(WALK, changed, "a", "b", format="json")).document
    document = cassette_diff_document(WALK, changed, in_force=RuleChoice().load())
    assert document == json.loads(printed)
    assert document["removed"]


def project_with_baseline(folder: Path, entries: list[dict[str, str]] | None) -> None:
    (folder / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    if entries is not None:
        (folder / "accepted.json").write_text(json.dumps({"baseline_format": 1, "accepted": entries}))


OLD = {"rule": "old.rule", "method": "GET", "path": "/v2/old", "where": "status"}


def test_accepting_a_finding_keeps_what_the_baseline_had(tmp_path: Path) -> None:
    project_with_baseline(tmp_path, [OLD])
    in_force = project_rules(tmp_path)
    key = ("links.next", "GET", "/v2/products", "json.links.next")
    result = accept_into_baseline(in_force, [key])
    assert (result.path, result.added, result.total) == (tmp_path / "accepted.json", 1, 2)
    accepted = json.loads((tmp_path / "accepted.json").read_text())["accepted"]
    assert OLD in accepted and dict(zip(("rule", "method", "path", "where"), key, strict=True)) in accepted
    again = accept_into_baseline(in_force, [key])
    assert (again.added, again.total) == (0, 2)


def test_accepting_makes_the_baseline_the_config_names_when_it_is_missing(tmp_path: Path) -> None:
    project_with_baseline(tmp_path, None)
    result = accept_into_baseline(project_rules(tmp_path), [("r", "GET", "/v2/x", "status")])
    assert (result.added, result.total) == (1, 1)


def test_accepting_is_refused_in_one_line_when_the_project_names_no_baseline(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="names no baseline file; add `baseline: FILE`") as error:
        accept_into_baseline(project_rules(tmp_path), [("r", "GET", "/v2/x", "status")])
    assert "\n" not in str(error.value)


@pytest.fixture
def walk(tmp_path: Path) -> Path:
    path = tmp_path / "walk.yaml"
    shutil.copyfile(WALK, path)
    return path


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the edit did in order: the cassette's lock taken and let go, the cassette saved."""
    seen: list[str] = []
    real_lock, real_save = cassette_edits.folder_lock, editing.save_cassette

    @contextmanager
    def lock(path: Path) -> Iterator[None]:
        with real_lock(path):
            seen.append(f"lock {path.name}")
            yield
            seen.append(f"unlock {path.name}")

    def save(path: Path, cassette: Cassette) -> None:
        seen.append(f"save {path.name}")
        real_save(path, cassette)

    monkeypatch.setattr(cassette_edits, "folder_lock", lock)
    monkeypatch.setattr(editing, "save_cassette", save)
    return seen


def test_deleting_an_exchange_is_cassette_delete_under_the_lock_and_rechecked(
    walk: Path, steps: list[str]
) -> None:
    before = read_cassette_file(walk).exchanges
    edited = delete_exchange(walk, 1)
    assert steps == ["lock walk.yaml", "save walk.yaml", "unlock walk.yaml"]
    assert read_cassette_file(walk).exchanges == (before[0], *before[2:])
    assert edited.recheck is not None and edited.written == 1


def test_editing_a_field_is_cassette_set_under_the_lock_and_shows_the_new_findings(
    walk: Path, steps: list[str]
) -> None:
    """A link set wrong is saved and the re-check names the error it added."""
    wrong = UPSTREAM + "/v2/products?page[limit]=10&page[offset]=60&page[total_method]=exact"
    edited = edit_exchange(walk, 1, "resp.json.links.next", wrong)
    assert steps == ["lock walk.yaml", "save walk.yaml", "unlock walk.yaml"]
    body = read_cassette_file(walk).exchanges[1].response.body.value
    assert isinstance(body, dict) and body["links"]["next"] == wrong
    assert edited.recheck is not None
    assert [finding.severity for finding in edited.recheck.added] == ["error"]


def test_an_edit_of_an_index_the_cassette_lacks_is_refused_and_writes_nothing(walk: Path) -> None:
    """A one-line error from `cassette delete`'s own check; a negative index is no exchange either."""
    before = walk.read_bytes()
    with pytest.raises(EditError, match=r"^index 99: the cassette has 14 exchange"):
        delete_exchange(walk, 99)
    with pytest.raises(UsageError, match=r"^index -1: expected an exchange's index, 0 the first$"):
        edit_exchange(walk, -1, "resp.header.X-Note", "x")
    assert walk.read_bytes() == before
