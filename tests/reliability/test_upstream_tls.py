"""An https upstream's certificate is verified by default; `--ca-bundle` trusts a private CA, nothing more."""

from __future__ import annotations

import signal
from pathlib import Path

import aiohttp

from tests.running import commerce_proxy, run_commerce_proxy, stop_with


async def test_an_unknown_ca_is_refused_and_ca_bundle_trusts_it(
    tls_sandbox: tuple[str, Path], tmp_path: Path
) -> None:
    upstream, certificate = tls_sandbox
    for command in ("record", "spy"):
        cassette = ["--cassette", str(tmp_path / f"{command}.yaml")] if command == "record" else []
        async with (
            commerce_proxy(command, "--upstream", upstream, *cassette) as proxy,
            aiohttp.ClientSession() as session,
        ):
            async with session.get(f"{proxy.url}/v2/products") as answer:
                assert answer.status == 502
                detail = (await answer.json())["errors"][0]["detail"]
                assert "CERTIFICATE_VERIFY_FAILED" in detail or "certificate verify failed" in detail, detail
            code, err = await stop_with(proxy, signal.SIGTERM)
            assert code == 0, err
        trusted = [*cassette, "--mode", "all"] if cassette else []
        async with (
            commerce_proxy(
                command, "--upstream", upstream, "--ca-bundle", str(certificate), *trusted
            ) as proxy,
            aiohttp.ClientSession() as session,
        ):
            async with session.get(f"{proxy.url}/v2/products") as answer:
                assert answer.status == 401  # the sandbox itself answered: no token was sent
            code, err = await stop_with(proxy, signal.SIGTERM)
            assert code == 0, err
    assert (tmp_path / "record.yaml").exists()


def test_a_ca_bundle_that_is_missing_or_not_pem_is_one_line_and_exit_2(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    for bundle, words in ((tmp_path / "missing.pem", "no such file"), (garbage, "not a PEM file")):
        arguments = ["record", "--upstream", "https://127.0.0.1:9", "--cassette", str(tmp_path / "c.yaml")]
        result = run_commerce_proxy(*arguments, "--ca-bundle", str(bundle), "--port", "0")
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and f"--ca-bundle {bundle}: {words}" in result.stderr
