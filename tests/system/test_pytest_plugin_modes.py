"""Which mode the plugin runs in, wherever a mode is asked for: CI=true means replay, whatever the command
line, the ini file, its addopts or PYTEST_ADDOPTS ask; only CI's own COMMERCE_PROXY_CI_MODE opts a CI
job into spy. Real pytest sessions (pytester), read from the report header the user sees."""

from __future__ import annotations

import itertools
import re

import pytest

from tests.system.plugin_suite import ENTRY

SOURCES = ("cli", "ini", "addopts", "PYTEST_ADDOPTS")
ASKED = [(None, None), *itertools.product(SOURCES, ("all", "spy", "none"))]
OPT_INS = (None, "spy", "none")


def expected_mode(ci: bool, asked: str | None, opt_in: str | None) -> str:
    if ci:
        return opt_in or "none"
    return asked or "once"


@pytest.mark.parametrize(
    ("ci", "source", "asked", "opt_in"),
    [
        (ci, source, asked, opt_in)
        for ci, (source, asked), opt_in in itertools.product((False, True), ASKED, OPT_INS)
    ],
)
def test_the_effective_mode(
    suite: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    ci: bool,
    source: str | None,
    asked: str | None,
    opt_in: str | None,
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.delenv("COMMERCE_PROXY_CI_MODE", raising=False)
    if ci:
        monkeypatch.setenv("CI", "true")
    if opt_in is not None:
        monkeypatch.setenv("COMMERCE_PROXY_CI_MODE", opt_in)
    ini = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    arguments = ["-p", "no:cacheprovider"]
    if source == "cli":
        arguments.append(f"--commerce-record-mode={asked}")
    elif source == "ini":
        ini += f"commerce_record_mode = {asked}\n"
    elif source == "addopts":
        ini += f"addopts = --commerce-record-mode={asked}\n"
    elif source == "PYTEST_ADDOPTS":
        monkeypatch.setenv("PYTEST_ADDOPTS", f"--commerce-record-mode={asked}")
    suite.makeini(ini)
    suite.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = suite.runpytest_inprocess(*arguments, "--co", "-v")
    header = re.search(r"^commerce-proxy: record mode (\w+)", result.stdout.str(), re.MULTILINE)
    assert header is not None, result.stdout.str()
    assert header[1] == expected_mode(ci, asked, opt_in)
    overruled = ci and asked is not None and asked != expected_mode(ci, asked, opt_in)
    assert (f"(CI=true: record mode {asked} not used)" in result.stdout.str()) is overruled


@pytest.mark.parametrize("opt_in", ["all", "once", "new_episodes", "SPY ME"])
def test_a_ci_opt_in_that_would_record_is_refused_in_one_line(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, opt_in: str
) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("COMMERCE_PROXY_CI_MODE", opt_in)
    suite.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        f"ERROR: COMMERCE_PROXY_CI_MODE={opt_in!r}: expected one of none, spy (a CI run never records)"
    ]


def _spellings(words: tuple[str, ...]) -> list[str]:
    """Every casing a user writes a word in, and the word padded with spaces."""
    return sorted({form for word in words for form in (word, word.upper(), word.title(), f" {word} ")})


NOT_CI = ["", *_spellings(("0", "false", "no", "off"))]
CI_ON = [*_spellings(("1", "true", "yes", "on", "y")), "github", "Woodpecker", "drone", "2"]


def _header(suite: pytest.Pytester, *arguments: str) -> str:
    suite.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "--co", *arguments)
    header = re.search(r"^commerce-proxy: .*$", result.stdout.str(), re.MULTILINE)
    assert header is not None, result.stdout.str() + result.stderr.str()
    return header[0]


@pytest.mark.parametrize(
    ("value", "ci"), [(value, False) for value in NOT_CI] + [(value, True) for value in CI_ON]
)
def test_ci_is_on_for_any_value_but_an_explicit_no(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str, ci: bool
) -> None:
    """pytest counts any non-empty CI as CI (some CI systems set it to their own name): the plugin too,
    except for a spelling of "no"; under CI it replays and names the CI setting in the header."""
    monkeypatch.delenv("COMMERCE_PROXY_CI_MODE", raising=False)
    monkeypatch.setenv("CI", value)
    header = _header(suite, "--commerce-record-mode=all")
    if ci:
        assert header.startswith(
            f"commerce-proxy: record mode none (CI={value.strip()}: record mode all not used)"
        )
    else:
        assert header.startswith("commerce-proxy: record mode all, conformance")


@pytest.mark.parametrize(
    ("opt_in", "mode"), [(value, word) for word in ("spy", "none") for value in _spellings((word,))]
)
def test_the_ci_opt_in_is_read_in_any_case(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, opt_in: str, mode: str
) -> None:
    monkeypatch.setenv("CI", "TRUE")
    monkeypatch.setenv("COMMERCE_PROXY_CI_MODE", opt_in)
    assert _header(suite).startswith(f"commerce-proxy: record mode {mode}")


@pytest.mark.parametrize(
    "upstream", [("--commerce-sandbox",), ("--commerce-upstream", "https://staging.example")]
)
@pytest.mark.parametrize("ci", ["true", "on", "github"])
def test_under_ci_the_header_names_no_upstream_it_will_not_reach(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, ...], ci: str
) -> None:
    monkeypatch.delenv("COMMERCE_PROXY_CI_MODE", raising=False)
    monkeypatch.setenv("CI", ci)
    header = _header(suite, *upstream)
    assert "upstream" not in header, header
    assert f"(CI={ci})" in header, header
    monkeypatch.setenv("COMMERCE_PROXY_CI_MODE", "spy")  # spy does reach it: the header says so
    assert "upstream" in _header(suite, *upstream)


@pytest.mark.parametrize("ci", ["on", "github"])
def test_under_any_ci_spelling_a_request_to_a_missing_cassette_says_to_record_without_it(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    """The explanation names the CI setting that made the run replay, as the header does."""
    monkeypatch.setenv("CI", ci)
    suite.makepyfile(
        test_missing=f"from helpers import get\n\ndef test_needs_a_cassette(commerce_record):\n"
        f"    get(commerce_record, '{ENTRY}')\n"
    )
    result = suite.runpytest_inprocess(
        "-p", "no:cacheprovider", "--commerce-record-mode=once", "--commerce-upstream=http://127.0.0.1:9"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*no cassette *test_needs_a_cassette.yaml: record it with *without CI={ci}*"]
    )
    assert not (suite.path / "cassettes").exists()
