"""The `.gitattributes` line the docs give for `cassette diff` as git's diff driver covers every place
the tool writes cassettes, as git itself reads the pattern (`git check-attr`), and nothing else."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

LINE = re.compile(r"echo '([^']*)' >> \.gitattributes")
DRIVER = "diff=commerce-cassette"

# Where cassettes land: `record --cassette` as the docs show it, folders of cassettes below it, the
# pytest plugin's default (cassettes/ beside each test module, a folder per module), its module-wide
# cassette, a marker's own sub-path, and test modules in nested packages.
CASSETTES = (
    "cassettes/session.yaml",
    "cassettes/demo-session.yaml",
    "cassettes/staging/2024/checkout.yaml",
    "tests/cassettes/test_api/test_list_products.yaml",
    "tests/cassettes/test_api/TestCart.test_add[two-items].yaml",
    "tests/cassettes/test_api.yaml",
    "tests/cassettes/features/update.yaml",
    "tests/integration/shop/cassettes/test_orders/test_page.yaml",
    "service/tests/cassettes/test_x/test_y.yaml",
)
NOT_CASSETTES = (
    "mkdocs.yml",
    "config.yaml",
    "commerce-proxy.yaml",
    "tests/data/products.yaml",
    "rules/commerce.yaml",
    "cassettes.yaml",
    "mycassettes/session.yaml",
    "cassettes/session.yaml.journal",
    "cassettes/.commerce-proxy-cache/session.json",
)


def documented_lines() -> dict[str, str]:
    """Every `.gitattributes` line the user docs tell a user to add, by page."""
    found = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in LINE.findall(page.read_text(encoding="utf-8")):
            found[f"{page.name}: {line}"] = line
    return found


def attributes(line: str, paths: tuple[str, ...], tmp_path: Path) -> dict[str, str]:
    """The `diff` attribute git gives each path in a repository whose .gitattributes holds `line`."""
    if shutil.which("git") is None:
        pytest.fail("git is needed: the CI machine has it")
    repo = tmp_path / "repo"
    repo.mkdir()
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q"], cwd=repo, env=environment, check=True)
    (repo / ".gitattributes").write_text(line + "\n")
    done = subprocess.run(
        ["git", "check-attr", "-z", "diff", "--", *paths],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    fields = done.stdout.split("\0")[:-1]
    return {fields[at]: fields[at + 2] for at in range(0, len(fields), 3)}


def test_the_docs_give_the_line() -> None:
    lines = documented_lines()
    assert len(lines) >= 2, lines
    assert all(line.endswith(f" {DRIVER}") for line in lines.values()), lines


@pytest.mark.parametrize("page_line", sorted(documented_lines()))
def test_the_documented_line_covers_every_cassette_and_nothing_else(page_line: str, tmp_path: Path) -> None:
    line = documented_lines()[page_line]
    given = attributes(line, CASSETTES + NOT_CASSETTES, tmp_path)
    missed = [path for path in CASSETTES if given[path] != "commerce-cassette"]
    assert not missed, f"{page_line} misses {missed}"
    caught = [path for path in NOT_CASSETTES if given[path] != "unspecified"]
    assert not caught, f"{page_line} also catches {caught}"
