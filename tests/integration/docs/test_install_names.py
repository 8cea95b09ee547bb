"""commerce-proxy is installed from a clone or a git URL, not from a registry: every place a user reads
an install line (README, docs, messages and help in proxy/) names it as a path or `NAME @ git+URL`,
never as a bare `commerce-proxy[extra]`, which pip would resolve on PyPI to someone else's package.
The mitmproxy hint names mitmproxy itself, pinned as the extra pins it."""

from __future__ import annotations

import re
import tomllib

import pytest

from proxy.mitm import REQUIREMENT
from tests.paths import ROOT

PLACES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "proxy").rglob("*.py")],
    key=lambda path: str(path),
)
# `commerce-proxy[extra]` (or `commerce_proxy[...]`) as pip would read it: what precedes and follows it.
MENTION = re.compile(r"(?P<before>[\w./~-]*)commerce[-_]proxy\[(?P<extras>[\w,\s]+)\](?P<after>\s*@\s*\S+)?")


def _mentions() -> list[tuple[str, str]]:
    found = []
    for path in PLACES:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in MENTION.finditer(line):
                found.append((f"{path.relative_to(ROOT)}:{number}", match[0]))
    return found


MENTIONS = _mentions()


def test_the_places_are_found() -> None:
    assert len(MENTIONS) >= 5, MENTIONS


@pytest.mark.parametrize(("where", "mention"), MENTIONS, ids=[where for where, _ in MENTIONS])
def test_every_install_line_names_a_path_or_a_git_url(where: str, mention: str) -> None:
    match = MENTION.fullmatch(mention)
    assert match is not None
    from_path = match["before"].endswith("/")
    from_url = bool(match["after"]) and "git+" in match["after"]
    assert from_path or from_url, f"{where}: {mention!r} would install a registry's commerce-proxy"


def test_the_mitmproxy_hint_pins_what_the_extra_pins() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["mitm"] == [REQUIREMENT]


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_install_docs_name_the_pytest_the_extra_needs(page: str) -> None:
    """A project on an older pytest learns from the install docs that it must upgrade, and why."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pytest"]
    (pins,) = [text for text in extra if re.match(r"pytest\s*[<>=]", text)]
    minimum = re.search(r">=\s*([\d.]+)", pins)
    assert minimum is not None
    text = " ".join((ROOT / page).read_text().split())
    assert f"pytest {minimum[1]} or later" in text
    assert "CVE-" in text.split(f"pytest {minimum[1]} or later", 1)[1][:120]
