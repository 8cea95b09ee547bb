"""`cassette diff` from the command line, and as git's diff driver on a re-recorded cassette."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body, Exchange, Response
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir

DEMO = shipped_dir("cassettes") / "demo-session.yaml"


def edited(source: Path, target: Path, change: dict[str, object], at: int) -> int:
    """Copy `source` to `target` with `change` merged into one JSON answer's data.attributes."""
    cassette = load_cassette(source).cassette
    exchanges = list(cassette.exchanges)
    index = (
        next(
            index
            for index, exchange in enumerate(exchanges)
            if exchange.response.body.kind == "json"
            and isinstance(exchange.response.body.value, dict)
            and isinstance(exchange.response.body.value.get("data"), dict)
            and "attributes" in exchange.response.body.value["data"]
        )
        if at < 0
        else at
    )
    old = exchanges[index]
    document = json.loads(json.dumps(old.response.body.value))
    document["data"]["attributes"].update(change)
    response = Response(
        old.response.status, old.response.headers, Body("json", document), old.response.reason
    )
    exchanges[index] = Exchange(old.request, response, old.recorded_at, old.duration_ms)
    save_cassette(target, Cassette(tuple(exchanges), cassette.upstream))
    return index


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str]:
    code = main(["cassette", "diff", *arguments])
    return code, capsys.readouterr().out


def test_an_unchanged_cassette_differs_in_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy.yaml"
    shutil.copyfile(DEMO, copy)
    code, out = run(capsys, str(DEMO), str(copy))
    assert code == 0 and "0 breaking, 0 additive, 0 data, 0 volatile; 0 added, 0 removed" in out


def test_a_change_is_named_by_tier_and_place_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = tmp_path / "changed.yaml"
    index = edited(DEMO, changed, {"name": "Renamed", "badge": "new"}, -1)
    code, out = run(capsys, str(DEMO), str(changed))
    assert code == 1
    assert f"#{index} -> #{index} " in out
    assert "  data      json.data.attributes.name: " in out and "-> 'Renamed'" in out
    assert "  additive  json.data.attributes.badge: missing -> 'new'" in out
    code, out = run(capsys, str(DEMO), str(changed), "--format", "json")
    document = json.loads(out)
    assert code == 1 and document["counts"] == {"breaking": 0, "additive": 1, "data": 1, "volatile": 0}
    assert {(change["index_a"], change["tier"], change["where"]) for change in document["changes"]} == {
        (index, "data", "json.data.attributes.name"),
        (index, "additive", "json.data.attributes.badge"),
    }
    assert document["added"] == [] and document["removed"] == []
    code, out = run(capsys, str(DEMO), str(changed), "--format", "markdown")
    assert code == 1 and "| additive | `json.data.attributes.badge` |" in out


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "diff", str(DEMO)]) == 2
    assert "compares two cassettes" in capsys.readouterr().err
    (tmp_path / "broken.yaml").write_text("exchanges: [\n")
    assert main(["cassette", "diff", str(DEMO), str(tmp_path / "broken.yaml")]) == 2
    err = capsys.readouterr().err
    assert "broken.yaml" in err and err.count("\n") == 1


def test_git_diff_shows_what_changed_for_the_api(tmp_path: Path) -> None:
    """With the documented .gitattributes and git config lines, `git diff` of a re-recorded cassette
    prints the meaning of the change."""
    if shutil.which("git") is None:
        pytest.fail("git is needed: the CI machine has it")
    repo = tmp_path / "repo"
    (repo / "cassettes").mkdir(parents=True)
    cassette = repo / "cassettes" / "session.yaml"
    shutil.copyfile(DEMO, cassette)
    command = f"{Path(sys.executable).parent / 'commerce-proxy'} cassette diff --git"
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}

    def git(*arguments: str) -> str:
        done = subprocess.run(
            ["git", *arguments], cwd=repo, env=environment, capture_output=True, text=True, check=True
        )
        return done.stdout

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    git("config", "diff.commerce-cassette.command", command)
    (repo / ".gitattributes").write_text("cassettes/*.yaml diff=commerce-cassette\n")
    git("add", ".")
    git("commit", "-qm", "recorded")
    index = edited(DEMO, cassette, {"name": "Renamed"}, -1)
    out = git("diff")
    assert "a/cassettes/session.yaml -> b/cassettes/session.yaml: 0 breaking, 0 additive, 1 data" in out
    assert f"#{index} -> #{index} " in out and "json.data.attributes.name" in out
    assert "@@" not in out  # not a line diff


def test_the_configs_match_table_pairs_requests_whose_generated_id_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-recorded update whose answer changed carries the client's new request id: paired as the
    config's `match` says, it is a change of that exchange, not one removed and one added."""
    from tests.conftest import json_body, make_exchange, make_request

    def version(request_id: str, name: str) -> Cassette:
        sent = json_body({"data": {"attributes": {"name": name}, "meta": {"request_id": request_id}}})
        request = make_request("PUT", path="/v2/subscriptions/features/1", body=sent)
        return Cassette((make_exchange(request, body=json_body({"data": {"name": name, "v": request_id}})),))

    save_cassette(tmp_path / "a.yaml", version("r-1", "Gold"))
    save_cassette(tmp_path / "b.yaml", version("r-2", "Gold"))
    monkeypatch.chdir(tmp_path)
    code, out = run(capsys, "a.yaml", "b.yaml", "--format", "json")
    unpaired = json.loads(out)
    assert code == 1 and len(unpaired["removed"]) == 1 and len(unpaired["added"]) == 1
    (tmp_path / "commerce-proxy.yaml").write_text("match:\n  ignore_json: [data.meta.request_id]\n")
    code, out = run(capsys, "a.yaml", "b.yaml", "--format", "json")
    paired = json.loads(out)
    assert code == 1 and paired["removed"] == [] and paired["added"] == []
    assert [(change["tier"], change["where"]) for change in paired["changes"]] == [("data", "json.data.v")]
