"""What `pip install commerce-proxy` and its extras bring: mitmproxy only with `[mitm]`, and no floor that
lets in a release with a known advisory (the table below: what was known when the floors were raised)."""

from __future__ import annotations

import tomllib

import pytest
from packaging.requirements import Requirement

from tests.paths import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]

# The last release with a known advisory, for each dependency of the default install or the [pytest]
# extra that had one: none of them may satisfy the requirement.
LAST_VULNERABLE = {
    "aiohttp": "3.14.2",  # CVE-2026-69244 (3.14.3), and the 3.13.x and 3.14.x batches before it
    "orjson": "3.11.5",  # CVE-2025-67221, dumps recursing without a limit (3.11.6)
    "pyyaml": "5.3.1",  # CVE-2020-14343, full_load runs code (5.4)
    "httptools": "0.4.0",  # CVE-2022-32213..32215, llhttp request smuggling (0.5.0)
    "pytest": "9.0.2",  # CVE-2025-71176, its /tmp/pytest-of-USER folders (9.0.3)
}


def requirements(names: list[str]) -> dict[str, Requirement]:
    found = (Requirement(line) for line in names)
    return {requirement.name.lower(): requirement for requirement in found}


def test_mitmproxy_comes_only_with_the_mitm_extra() -> None:
    """The default install and [pytest] leave mitmproxy (and its h11<=0.14 pin) out; [test] keeps it."""
    assert "mitmproxy" not in requirements(PROJECT["dependencies"])
    assert "mitmproxy" not in requirements(EXTRAS["pytest"])
    assert set(requirements(EXTRAS["mitm"])) == {"mitmproxy"}
    own = requirements(EXTRAS["test"])["commerce-proxy"]
    assert own.extras >= {"mitm"}


@pytest.mark.parametrize("scope", ["default", "pytest"])
def test_no_floor_admits_a_release_with_a_known_advisory(scope: str) -> None:
    listed = requirements(PROJECT["dependencies"] if scope == "default" else EXTRAS["pytest"])
    admitted = sorted(
        f"{name} {version} ({listed[name].specifier})"
        for name, version in LAST_VULNERABLE.items()
        if name in listed and listed[name].specifier.contains(version, prereleases=True)
    )
    assert admitted == []
