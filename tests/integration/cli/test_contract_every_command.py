"""The published specs on every command that checks (`spy`, `record`, `replay --check`, `verify`, the
pytest plugin), named by `--spec` or by the project config's `specs:`: a planted contract violation is
reported with its source, a conforming exchange gets no contract finding, and a bad spec is one line
and exit 2 before anything listens. `spy` and `record` are judged by the checker process's own code
(`serve_checks`, in this process), loaded from the `RuleSource` the command hands it."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.app.live_check_worker import FRAME, read_answer, serve_checks
from proxy.app.record_setup import forwarding_settings
from proxy.app.replay_setup import prepare_replay
from proxy.app.verify_command import run_verify
from proxy.cli import record, replay, verify
from proxy.cli.inputs import forward_request
from proxy.cli.main import build_parser, main
from proxy.cli.reporting import shown
from proxy.core.cassette.document import Cassette
from proxy.core.cassette.journal_line import journal_line
from proxy.core.model.exchange import Exchange
from proxy.core.rules.findings import Finding
from proxy.pytest_plugin.servers import _live_checker
from proxy.pytest_plugin.state import PluginState
from proxy.server.upstream import UpstreamAnswer
from proxy.store.saving import save_cassette
from tests.unit.core.contract.plans import FIXTURES, exchange, plan

SOURCE = "common.yaml#/components/schemas/Resource/properties/id/format"
UPSTREAM = "http://127.0.0.1:9"


def _bad() -> Exchange:
    document = plan()
    document["data"]["id"] = "plan-1"  # not a uuid: the spec's `format` says so
    return exchange(body=document)


Judged = Callable[[list[str], Exchange], list[Finding]]


def _by_child(settings_of: Callable[[list[str]], object]) -> Judged:
    def judged(flags: list[str], one: Exchange) -> list[Finding]:
        settings = settings_of(flags)
        source = settings.rule_source  # type: ignore[attr-defined]
        line = journal_line(0, one)
        answers = io.BytesIO()
        serve_checks(
            type(source).of_argument(source.to_argument()), io.BytesIO(FRAME.pack(len(line)) + line), answers
        )
        return read_answer(answers.getvalue()[FRAME.size :])[1]

    return judged


def _spy(flags: list[str]) -> object:
    return forwarding_settings(
        forward_request(build_parser().parse_args(["spy", "--upstream", UPSTREAM, *flags]), "spy")
    )


def _record(flags: list[str]) -> object:
    arguments = build_parser().parse_args(
        ["record", "--upstream", UPSTREAM, "--cassette", "new.yaml", *flags]
    )
    return forwarding_settings(record.recording(arguments))


def _replay(flags: list[str], one: Exchange) -> list[Finding]:
    save_cassette(Path("served.yaml"), Cassette((one,)))
    arguments = build_parser().parse_args(["replay", "--check", "--cassette", "served.yaml", *flags])
    live = prepare_replay(replay.request_of(arguments, arguments.cassette)).live
    assert live is not None
    return live.check(one, 0)


def _verify(flags: list[str], one: Exchange) -> list[Finding]:
    save_cassette(Path("recorded.yaml"), Cassette((exchange(),)))
    arguments = build_parser().parse_args(
        ["verify", "recorded.yaml", "--upstream", UPSTREAM, "--format", "json", "-o", "out.json", *flags]
    )

    class Answering:  # the live service answers `one`
        async def send(self, method: str, target: str, headers: object, body: bytes) -> UpstreamAnswer:
            answer = one.response
            return UpstreamAnswer(answer.status, None, answer.headers, json.dumps(answer.body.value).encode())

        def close(self) -> None:
            pass

    run_verify(verify.request_of(arguments), lambda *_: Answering(), shown())
    return [Finding.from_json(document) for document in json.loads(Path("out.json").read_text())["findings"]]


def _plugin(flags: list[str], one: Exchange) -> list[Finding]:
    specs = tuple(Path.cwd() / path for path in flags[1::2])  # as `contract_paths` reads --commerce-spec
    state = PluginState("none", "warn", None, None, None, Path.cwd(), specs=specs)
    live = _live_checker(state, state.served(Path("served.yaml"), "replaying"))
    assert live is not None
    return live.check(one, 0)


COMMANDS: dict[str, Judged] = {
    "spy": _by_child(_spy),
    "record": _by_child(_record),
    "replay --check": _replay,
    "verify": _verify,
    "plugin": _plugin,
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "specs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("named", ["--spec", "specs:"])
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_reports_a_violation_of_the_spec_with_its_source(
    project: Path, command: str, named: str
) -> None:
    flags = ["--spec", "specs"]
    if named == "specs:":  # the project config names them, relative to its folder
        (project / "config").mkdir()
        shutil.move(project / "specs", project / "config" / "specs")
        (project / "config" / "commerce-proxy.yaml").write_text("specs: [specs]\n")
        flags = ["--config", "config/commerce-proxy.yaml"]
        if command == "plugin":  # the plugin finds the config from its rootdir
            (project / "commerce-proxy.yaml").write_text("specs: config/specs\n")
            flags = []
    judged = COMMANDS[command]
    found = [
        (f.rule, f.section.endswith(SOURCE)) for f in judged(flags, _bad()) if f.rule.startswith("contract.")
    ]
    assert found == [("contract.response.schema", True)]
    assert [f.rule for f in judged(flags, exchange()) if f.rule.startswith("contract.")] == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["spy", "--upstream", UPSTREAM, "--spec", "broken.yaml"],
        ["record", "--upstream", UPSTREAM, "--cassette", "new.yaml", "--spec", "broken.yaml"],
        ["replay", "--check", "--cassette", "served.yaml", "--spec", "broken.yaml"],
        ["verify", "served.yaml", "--upstream", UPSTREAM, "--spec", "broken.yaml"],
    ],
)
def test_a_bad_spec_is_one_line_before_listening(
    project: Path, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    save_cassette(project / "served.yaml", Cassette((exchange(),)))
    (project / "broken.yaml").write_text("openapi: 3.0.3\npaths: [\n")
    assert main(arguments) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "broken.yaml:" in lines[0] and "not valid YAML" in lines[0], captured.err
    assert "listening" not in captured.out + captured.err
    assert not (project / "new.yaml").exists()
