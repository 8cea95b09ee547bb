"""Upstream faults through `record` and `spy` as real processes: a clear answer for each, the proxy keeps
serving, and nothing already recorded is lost (the journal is read after every fault)."""

from __future__ import annotations

import signal
from pathlib import Path

import aiohttp
import pytest

from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import journal_path, read_journal
from tests.reliability.faulty_upstream import HUGE_BYTES, faulty_upstream
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, free_port, run_commerce_proxy, stop_with

TIMEOUT = 1.0
LIMIT = HUGE_BYTES // 2
# path: (status the client gets, words of the proxy's own error detail or None for the upstream's answer)
FAULTS = {
    "/reset": (502, "failed mid-answer"),
    "/slow": (504, f"did not answer within {TIMEOUT:g} s"),
    "/truncated": (502, "failed mid-answer"),
    "/not-json": (200, None),
    "/5xx": (503, None),
    "/huge": (502, f"larger than --max-body-bytes ({LIMIT} bytes)"),
}


async def error_detail(answer: aiohttp.ClientResponse) -> str:
    document = await answer.json(content_type=None)
    [error] = document["errors"]
    assert error["status"] == str(answer.status)
    return str(error["detail"])


@pytest.mark.parametrize("command", ["record", "spy"])
async def test_every_upstream_fault_gets_a_clear_answer_and_loses_nothing(
    tmp_path: Path, command: str
) -> None:
    """Refused, reset, too slow, truncated, not JSON, 5xx, too large: in that order, with good requests between."""
    port = free_port()
    cassette = tmp_path / "faults.yaml"
    arguments = [command, "--upstream", f"http://127.0.0.1:{port}", "--upstream-timeout", str(TIMEOUT)]
    arguments += ["--max-body-bytes", str(LIMIT)]
    if command == "record":
        arguments += ["--cassette", str(cassette)]
    expected_paths: list[str] = []

    def journaled() -> list[str]:
        if command != "record":
            return expected_paths
        return [exchange.request.path for exchange in read_journal(journal_path(cassette)).exchanges]

    async with commerce_proxy(*arguments) as proxy, aiohttp.ClientSession() as session:
        async with session.get(f"{proxy.url}/ok/refused") as answer:  # nothing listens on the port yet
            assert answer.status == 502
            assert f"cannot connect to upstream http://127.0.0.1:{port}" in await error_detail(answer)
        async with faulty_upstream(port):
            for number, (fault, (status, detail)) in enumerate(FAULTS.items()):
                async with session.get(f"{proxy.url}/ok/{number}") as answer:
                    assert (answer.status, await answer.json()) == (200, {"data": {"path": f"/ok/{number}"}})
                expected_paths.append(f"/ok/{number}")
                async with session.get(f"{proxy.url}{fault}") as answer:
                    assert answer.status == status, fault
                    if detail is None:
                        expected_paths.append(fault)
                    else:
                        assert detail in await error_detail(answer), fault
                assert journaled() == expected_paths, f"after {fault}"
            async with session.get(f"{proxy.url}/_proxy/findings") as answer:
                findings = await answer.json()
        code, err = await stop_with(proxy, signal.SIGTERM)
    assert code == 0, err
    assert findings["exchanges"] == len(expected_paths)
    assert "Traceback" not in err
    faults = len(FAULTS) + 1  # and the refused connection
    write_figure(
        f"upstream_faults_{command}", faults, f"upstream faults `{command}` answered clearly, serving on"
    )
    if command == "spy":
        return
    exchanges = read_cassette_file(cassette).exchanges
    assert [exchange.request.path for exchange in exchanges] == expected_paths
    by_path = {exchange.request.path: exchange for exchange in exchanges}
    not_json = by_path["/not-json"].response
    assert (not_json.status, not_json.body.kind, not_json.body.value) == (200, "text", "{this is not json")
    assert by_path["/5xx"].response.status == 503
    assert by_path["/5xx"].response.body.value["errors"][0]["detail"] == "down"


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--upstream-timeout", "0"),
        ("--upstream-timeout", "inf"),
        ("--max-body-bytes", "-1"),
        ("--max-body-bytes", "1.5"),
    ],
)
def test_fault_limits_must_be_positive_numbers(tmp_path: Path, flag: str, value: str) -> None:
    arguments = ["record", "--upstream", "http://127.0.0.1:9", "--cassette", str(tmp_path / "c.yaml")]
    result = run_commerce_proxy(*arguments, flag, value)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and f"argument {flag}: expected a number" in result.stderr
    assert not list(tmp_path.iterdir())  # nothing was started, nothing written
