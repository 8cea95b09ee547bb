"""The docs' test modules (`<!-- runs with pytest -->`) run as written in a user's project (pytester):
recorded from the sandbox with `--commerce-sandbox`, then replayed offline under CI=true, with nothing
but what the `[pytest]` extra and the default install bring."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

import pytest
from packaging.requirements import Requirement

from tests.paths import ROOT
from tests.system.test_docs_examples import EXAMPLES

MODULES = [(where, code) for where, language, marker, code in EXAMPLES if marker == "runs with pytest"]
# The ini file the docs give a user's project (pytest-asyncio's loop scope set, so no deprecation warning).
INI = re.findall(
    r"^```ini\n(.*?)^```", (ROOT / "docs" / "pytest-plugin.md").read_text(), re.MULTILINE | re.DOTALL
)
NO_DEPRECATION = ("-W", "error::pytest.PytestDeprecationWarning")


def test_the_docs_give_the_ini_lines_an_async_suite_needs() -> None:
    assert len(INI) == 1
    assert "asyncio_default_fixture_loop_scope = function" in INI[0].splitlines()


def test_the_docs_have_an_async_test_module() -> None:
    assert any("async def test_" in code for _, code in MODULES)


@pytest.mark.parametrize(("where", "code"), MODULES, ids=[where for where, _ in MODULES])
def test_a_docs_test_module_records_then_replays_under_ci(
    where: str, code: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    pytester.makeini(INI[0])  # as the docs say; otherwise pytest-asyncio's defaults (strict mode)
    pytester.makepyfile(test_docs_module=code)
    recorded = pytester.runpytest_subprocess("-p", "no:cacheprovider", *NO_DEPRECATION, "--commerce-sandbox")
    assert recorded.ret == 0, f"{where}: recording failed\n{recorded.stdout.str()[-3000:]}"
    cassettes = sorted((pytester.path / "cassettes").rglob("*.yaml"))
    assert cassettes, f"{where}: nothing recorded"
    written = {path: path.read_bytes() for path in cassettes}
    monkeypatch.setenv("CI", "true")
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", *NO_DEPRECATION)
    assert replayed.ret == 0, f"{where}: replay under CI failed\n{replayed.stdout.str()[-3000:]}"
    assert "record mode none" in replayed.stdout.str()
    for run in (recorded, replayed):
        assert "PytestDeprecationWarning" not in run.stdout.str() + run.stderr.str(), where
    assert {path: path.read_bytes() for path in cassettes} == written


def installed_with_the_pytest_extra() -> set[str]:
    """The distributions a user gets from `pip install commerce-proxy[pytest]`, by normalised name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"], *project["optional-dependencies"]["pytest"]]
    return {Requirement(text).name.lower().replace("_", "-") for text in named}


@pytest.mark.parametrize(("where", "code"), MODULES, ids=[where for where, _ in MODULES])
def test_the_pytest_extra_brings_what_a_docs_test_module_needs(where: str, code: str) -> None:
    """Every module it imports comes with Python or the extra; an async test needs pytest-asyncio."""
    extra = installed_with_the_pytest_extra()
    providers = packages_distributions()
    imported = {
        (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    for name in sorted(imported - set(sys.stdlib_module_names)):
        wanted = {dist.lower().replace("_", "-") for dist in providers.get(name, [name])}
        assert wanted & extra, f"{where}: imports {name}, which commerce-proxy[pytest] does not install"
    if "async def test_" in code:
        assert "pytest-asyncio" in extra, (
            f"{where}: an async test, and the [pytest] extra has no pytest-asyncio"
        )
