"""The short test summary line of a miss names the request and the cassette first (no exception
class eats the 80 columns), whether the client raised on the 404 or swallowed it, one miss or several;
and the remedy names the upstream option the run used."""

from __future__ import annotations

import pytest

from tests.system.plugin_suite import put_cassette

MISS = "/v2/brands/0000?include=items"
BODIES = {
    "raises": f'urllib.request.urlopen(commerce_record + "{MISS}", timeout=10)',
    "swallows": f'get(commerce_record, "{MISS}")',
    "swallows_two": f'get(commerce_record, "{MISS}"); get(commerce_record, "/v2/brands/1111")',
}


@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("width", ["80", "200"])
def test_the_short_summary_names_the_request_and_the_cassette(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, body: str, width: str
) -> None:
    put_cassette(suite, "test_shared/test_two.yaml")
    suite.makepyfile(
        test_shared=f"import urllib.request\nfrom helpers import get\n\ndef test_two(commerce_record):\n"
        f"    {BODIES[body]}\n"
    )
    monkeypatch.setenv("COLUMNS", width)
    monkeypatch.setenv("CI", "true")
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    summary = [line for line in output.splitlines() if line.startswith("FAILED test_shared.py::test_two")]
    assert len(summary) == 1, output
    assert summary[0].startswith(f"FAILED test_shared.py::test_two - commerce-proxy: GET {MISS[:20]}"), output
    if width == "200":
        assert "in cassettes/test_shared/test_two.yaml" in summary[0], output
        assert ("and 1 more request" in summary[0]) == (body == "swallows_two"), output
    assert "UnmatchedRequest" not in summary[0]


# Each way a run names its upstream: its arguments, its ini line, and what the remedy says.
UPSTREAMS = {
    "sandbox": (
        ("--commerce-sandbox",),
        "",
        "`pytest --commerce-record-mode=new_episodes --commerce-sandbox`",
    ),
    "option": (
        ("--commerce-upstream=http://127.0.0.1:9",),
        "",
        "`pytest --commerce-record-mode=new_episodes --commerce-upstream URL`",
    ),
    "ini": ((), "commerce_upstream = http://127.0.0.1:9\n", "`pytest --commerce-record-mode=new_episodes`"),
    "none": ((), "", "`pytest --commerce-record-mode=new_episodes --commerce-upstream URL`"),
}


@pytest.mark.parametrize("upstream", list(UPSTREAMS))
def test_the_remedy_names_the_upstream_option_the_run_used(suite: pytest.Pytester, upstream: str) -> None:
    arguments, ini, remedy = UPSTREAMS[upstream]
    suite.makeini(f"[pytest]\n{ini}")
    put_cassette(suite, "test_once/test_reads.yaml")
    suite.makepyfile(
        test_once=f'from helpers import get\n\ndef test_reads(commerce_record):\n    get(commerce_record, "{MISS}")\n'
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--commerce-record-mode=once", *arguments)
    result.assert_outcomes(failed=1)
    lines = [line for line in result.stdout.str().splitlines() if "does not add to an existing" in line]
    assert lines and all(line.endswith(remedy) for line in lines), result.stdout.str()
