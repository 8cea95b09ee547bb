"""Which cassette a fixture serves: one per test by default (MODULE/Class.test[param].yaml, a long id
shortened with a stable hash), or the ones the `commerce_cassette` marker names, with its options (a
marker naming none sets the options of the default cassette, as pytest-recording's `vcr(...)` does)."""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from proxy.core.replay.matching import MatchPolicy
from proxy.errors import CommerceProxyError, SettingError
from proxy.pytest_plugin.network import CASSETTE_MARKER
from proxy.pytest_plugin.state import STATE, fail

MARKER = CASSETTE_MARKER
MARKER_OPTIONS = frozenset({"simulate", "match_on", "ignore_query", "match_ignore_json"})
UNSAFE_IN_NAMES = re.compile(r"[^A-Za-z0-9_.\-\[\]]")
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
PLAIN_ID = re.compile(rf"{NAME}(?:::{NAME})*(?:\[[a-z0-9_.\-]*\])?")
LONGEST_FILE_NAME = 150  # bytes: room for .yaml and .journal below the usual 255 of one file name

# How the plugin spells the settings the core names in its errors (`proxy.errors.SettingError`), besides
# the marker's keywords, which are the core's own names.
OPTION_SPELLINGS = {"match_on": "--commerce-match-on"}


@dataclass(frozen=True, slots=True)
class Cassettes:
    """The cassette files a fixture serves, and how the marker asked to serve them."""

    paths: tuple[Path, ...]
    simulate: bool = False
    match: MatchPolicy = field(default_factory=MatchPolicy)


def cassette_name_of(request: pytest.FixtureRequest) -> str:
    """MODULE/Class.test_name[param]: one cassette per test, readable, safe as a file name."""
    return f"{request.path.stem}/{cassette_file_name(request.node.nodeid.split('::', 1)[-1])}"


def cassette_file_name(below_module: str) -> str:
    """The cassette file name (less .yaml) of a test, from its node id below the module: different for
    every two tests, on a case-insensitive file system too.

    A plain id (`Class::test_name[param]` of ASCII names, its parameters lower-case letters, digits and
    `_.-`) reads as it is, `::` as `.` (the names cassettes always had). Any other id has its unsafe
    characters (and upper-case parameters) replaced, readable, plus a hash of the exact id: ids that
    differ only in what was replaced still get cassettes of their own. A name too long for a file keeps
    its start and gets a hash of the whole."""
    if PLAIN_ID.fullmatch(below_module):
        return short_name(below_module.replace("::", "."))
    readable = UNSAFE_IN_NAMES.sub("_", below_module.replace("::", "."))
    digest = hashlib.sha256(f"node id:{below_module}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{readable[: LONGEST_FILE_NAME - 17]}-{digest}"


def short_name(name: str) -> str:
    """The name as is when it fits a file name with room to spare; else its start and a stable hash of
    the whole, so a long parametrize id still gets its own cassette, the same on every run."""
    if len(name.encode("utf-8")) <= LONGEST_FILE_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    start = name.encode("utf-8")[: LONGEST_FILE_NAME - 17].decode("utf-8", "ignore")
    return f"{start}-{digest}"


def _names(value: object) -> tuple[str, ...]:
    """One name or several: `ignore_query="ts"` means `("ts",)`, not its letters."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise CommerceProxyError(f"expected a name or a list of names, found {value!r}")


def cassettes_for(request: pytest.FixtureRequest, folder: Path, default_name: str) -> Cassettes:
    """The markers on the test, its class and its module merged, the closest winning: the closest that
    names cassettes names them (none: the default one), and each option is the closest marker's."""
    markers = list(request.node.iter_markers(MARKER))
    match_on = request.config.stash[STATE].match_on  # --commerce-match-on, for every test
    if not markers:
        return Cassettes((folder / f"{default_name}.yaml",), match=MatchPolicy.parse(match_on))  # checked
    options: dict[str, object] = {}
    for one in reversed(markers):
        options.update(one.kwargs)
    args = next((one.args for one in markers if one.args), ())
    where = f"@pytest.mark.{MARKER} on {request.node.nodeid}"
    unknown = sorted(set(options) - MARKER_OPTIONS)
    if unknown:
        fail(f"{where}: unknown option {unknown[0]!r}; expected some of {', '.join(sorted(MARKER_OPTIONS))}")
    if not all(isinstance(arg, str | Path) and str(arg) for arg in args):
        fail(f"{where}: expected cassette paths (text), e.g. {MARKER}('features/update.yaml')")
    try:
        marked = options.get("match_on")
        match = MatchPolicy.parse(
            ",".join(_names(marked)) if marked is not None else match_on,
            _names(options.get("ignore_query", ())),
            _names(options.get("match_ignore_json", ())),
        )
    except CommerceProxyError as error:  # a setting as the marker's keyword, or as the option it came from
        said = error.named(OPTION_SPELLINGS) if isinstance(error, SettingError) and marked is None else error
        fail(f"{where}: {said}")
    paths = tuple(folder / _inside(str(arg), where) for arg in args) or (folder / f"{default_name}.yaml",)
    return Cassettes(paths, bool(options.get("simulate")), match)


def _inside(name: str, where: str) -> str:
    """A marker's cassette path, relative to the cassette folder, as written: `sub/../a.yaml` is
    `a.yaml` whether `sub/` exists or not (one name, one cassette, whatever was left on disk); a path
    that leaves the folder (`../a.yaml`, an absolute one) is refused."""
    normal = posixpath.normpath(name.replace(os.sep, "/"))
    if posixpath.isabs(normal) or normal == ".." or normal.startswith("../"):
        fail(f"{where}: {name!r}: a cassette path is relative to the cassette folder and stays in it")
    return normal + ("/" if name.endswith(("/", os.sep)) and normal != "." else "")
