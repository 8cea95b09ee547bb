"""The command line: exit codes and one-line errors, called as `main([...])`."""

from __future__ import annotations

import json
import shutil
import signal
import socket
from pathlib import Path

import aiohttp
import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.conftest import make_exchange, make_request
from tests.running import commerce_proxy, stop_with


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("commerce-proxy: error: ")
    assert "Traceback" not in err[0]
    return err[0]


def test_check_of_a_conformant_cassette_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check of a cassette that breaks no rule prints its summary and exits 0."""
    save_cassette(tmp_path / "c.yaml", Cassette((make_exchange(make_request("GET", "/health")),)))
    assert main(["check", str(tmp_path / "c.yaml")]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path / 'c.yaml'}: 1 exchanges: 0 errors, 0 warnings, 1 info" in out
    assert main(["check", "--format", "json", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exchanges"] == 1
    assert [finding["rule"] for finding in report["findings"]] == ["coverage.undocumented-endpoint"]


def test_check_and_replay_never_fall_back_to_the_shipped_cassettes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no cassette named, check and replay say what they need (exit 2) instead of using the
    examples: a CI job must not pass against example data, even in a folder full of cassettes."""
    monkeypatch.chdir(tmp_path)
    save_cassette(tmp_path / "c.yaml", Cassette((make_exchange(make_request("GET", "/health")),)))
    assert main(["check", "--format", "json"]) == 2
    assert "check: no cassettes named: give PATH..., or --examples" in one_error_line(capsys)
    assert main(["replay", "--port", "0"]) == 2
    assert "replay: no cassettes named: give --cassette PATH" in one_error_line(capsys)


def test_check_examples_reads_the_shipped_cassettes(capsys: pytest.CaptureFixture[str]) -> None:
    """`--examples` asks for the cassettes that ship with the package; they hold no error."""
    assert main(["check", "--examples", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["cassettes"]) >= 2
    assert all(cassette["exchanges"] > 0 for cassette in report["cassettes"])
    assert report["counts"]["error"] == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "cassette_format: 1\nexchanges:\n- request: {method: GET}\n",
            "broken.yaml:3: exchanges[0].request: missing 'path'",
        ),
        ("cassette_format: 1\nexchanges: [\n", "broken.yaml:3: not valid YAML"),
        ("cassette_format: 9\n", "broken.yaml:1: cassette_format: format version 9 is newer"),
    ],
)
def test_broken_cassette_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    """A hand-broken cassette names file and line, exits 2, and prints no traceback."""
    (tmp_path / "broken.yaml").write_text(content)
    assert main(["check", str(tmp_path / "broken.yaml")]) == 2
    assert expected in one_error_line(capsys)
    assert main(["replay", "--cassette", str(tmp_path / "broken.yaml"), "--port", "0"]) == 2
    assert expected in one_error_line(capsys)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["check", "nowhere.yaml"], "nowhere.yaml: no such cassette"),
        (["replay", "--cassette", "nowhere.yaml"], "nowhere.yaml: no such cassette"),
        (["record", "--cassette", "new.yaml"], "record needs --upstream URL"),
        (
            ["record", "--cassette", "new.yaml", "--upstream", "ftp://x"],
            "expected an http:// or https:// URL",
        ),
        (["replay", "--examples", "--match-on", "method,headers"], "--match-on: unknown field 'headers'"),
        (["replay", "--examples", "--latency", "soon"], "--latency: expected recorded, none or milliseconds"),
        (["replay", "--examples", "--fault", "404:10%"], "kind must be one of 429, 500, 503, drop, slow"),
        (["replay", "--examples", "--fault", "503:2"], "share must be between 0 and 1"),
        (["replay", "--cassette-dir", "nowhere"], "--cassette-dir nowhere: not a folder"),
        (["replay", "--examples", "--slow-body-ms", "-1"], "--slow-body-ms -1: must be 0 to 600000"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    expected: str,
) -> None:
    """Unusable input is refused with one line naming the problem."""
    monkeypatch.chdir(tmp_path)
    assert main(arguments) == 2
    assert expected in one_error_line(capsys)


def test_record_once_refuses_an_existing_cassette(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The default mode never overwrites a cassette; the cassette is left as it was."""
    path = tmp_path / "c.yaml"
    save_cassette(path, Cassette((make_exchange(),)))
    before = path.read_bytes()
    assert main(["record", "--upstream", "http://127.0.0.1:9", "--cassette", str(path), "--port", "0"]) == 2
    assert "--mode new_episodes" in one_error_line(capsys)
    assert path.read_bytes() == before


def test_port_in_use_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A port already taken is reported, not a traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        save_cassette(tmp_path / "c.yaml", Cassette())
        assert main(["replay", "--cassette", str(tmp_path / "c.yaml"), "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in one_error_line(capsys)
    # A record that could not bind leaves nothing behind, so the next try in mode once can start.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        new = tmp_path / "new.yaml"
        assert (
            main(["record", "--upstream", "http://127.0.0.1:9", "--cassette", str(new), "--port", str(port)])
            == 2
        )
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [tmp_path / "c.yaml"]


def test_demo_records_replays_and_redacts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo replays every step of its session identically from the cassette and writes no secret."""
    path = tmp_path / "demo.yaml"
    assert main(["demo", "--cassette", str(path)]) == 0
    out = capsys.readouterr().out
    assert "replayed 18/18 requests offline with the same status, body and ETag" in out
    assert "checked 18 exchanges live against 64 rules: 0 errors, 3 warnings, 4 info" in out
    assert "warning feature.update.payload #5: " in out  # the index `cassette show demo.yaml 5` opens
    assert "  #5  400 PUT " in out
    assert "secrets written: none" in out
    assert (
        "walked /v2/products with page[limit]=3 over the 15 recorded records: the same records in order"
        in out
    )
    assert "name changed, external_ref removed, the rest kept (simulated)" in out
    text = path.read_text()
    assert "sandbox-secret" not in text and "Bearer <redacted>" in text


def test_a_bug_of_ours_is_still_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unexpected exception is one line naming it and exit 70; COMMERCE_PROXY_TRACEBACK shows it."""
    import proxy.cli.rules

    def broken(arguments: object) -> int:
        raise KeyError("a\nb")

    monkeypatch.setattr(proxy.cli.rules, "run", broken)
    assert main(["rules"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("commerce-proxy: internal error: KeyError: 'a\\nb' (a bug") and err.count("\n") == 1
    monkeypatch.setenv("COMMERCE_PROXY_TRACEBACK", "1")
    with pytest.raises(KeyError):
        main(["rules"])


async def test_a_cassette_dir_alone_answers_only_requests_that_name_a_cassette(tmp_path: Path) -> None:
    """`replay --cassette-dir DIR` with no --cassette serves nothing by default: a request without
    X-Commerce-Cassette gets the no-match 404, one naming a cassette its recorded answer."""
    shutil.copy(shipped_dir("cassettes") / "demo-session.yaml", tmp_path / "checkout.yaml")
    recorded = read_cassette_file(tmp_path / "checkout.yaml").exchanges[1]
    target = recorded.request.path + (f"?{recorded.request.query}" if recorded.request.query else "")
    async with (
        commerce_proxy("replay", "--cassette-dir", str(tmp_path)) as replay,
        aiohttp.ClientSession() as session,
    ):
        async with session.get(f"{replay.url}{target}") as answer:
            assert (answer.status, answer.headers.get("X-Commerce-Proxy")) == (404, "no-match")
        named = {"X-Commerce-Cassette": "checkout"}
        async with session.get(f"{replay.url}{target}", headers=named) as answer:
            assert answer.status == recorded.response.status
            assert answer.headers.get("X-Commerce-Proxy") != "no-match"
        code, err = await stop_with(replay, signal.SIGTERM)
    assert code == 0, err


def test_the_sandbox_refuses_to_break_a_rule_it_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    """`--break` names every unknown rule in one line, whether repeated or comma-separated."""
    assert main(["sandbox", "--break", "pagination.page.current,no.such.rule", "--break", "other.rule"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'no.such.rule', 'other.rule'" in err


def test_every_command_documents_every_argument_and_shows_an_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--help of each command: every argument has a help text, and an example follows."""
    import argparse
    import shlex

    from proxy.cli.help import commands
    from proxy.cli.main import build_parser

    for name, command in commands(build_parser()):
        for action in command._actions:
            if isinstance(
                action, argparse._HelpAction | argparse._SubParsersAction | argparse._VersionAction
            ):
                continue
            assert action.help, (
                f"{name or 'commerce-proxy'}: {action.option_strings or action.dest} has no help"
            )
        if name:
            assert command.epilog and command.epilog.startswith(f"example:\n  commerce-proxy {name}"), name
            example = command.epilog.split("\n  ", 1)[1]
            parsed = build_parser().parse_args(shlex.split(example)[1:])  # the example is a valid line
            assert parsed.run is not None
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    shown = capsys.readouterr().out
    assert "--per-rule N" in shown and "(default: text)" in shown
    assert shown.rstrip().endswith(
        "example:\n  commerce-proxy check cassettes/ --format junit -o conformance.xml"
    )
