"""A cassette name is unique per test: the plugin's one mapping from a test's node id to its cassette
file, drawn over parametrize ids of every shape (unsafe characters, case, Unicode, length)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.pytest_plugin.cassettes import LONGEST_FILE_NAME, PLAIN_ID, cassette_file_name, short_name

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

FUNCTIONS = st.sampled_from(["test_reads", "test_a", "test_writes_entry", "test_" + "x" * 140])
CLASSES = st.sampled_from(["", "TestCatalog::", "TestCatalog::TestInner::", "Suite::"])
UNSAFE = "/\\:*?\"<>|'`$ \t\n\x00\r.[]-_%#~^"
PARAMS = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from("abcAB1-_." + UNSAFE + "éÉе\u0301ß\u212a"), max_size=12),
    st.text(max_size=8),
    st.text(alphabet="abcxyz0_-", min_size=140, max_size=320),  # long plain ids
    st.text(alphabet="ab/:", min_size=140, max_size=320),  # long unsafe ids
)


@st.composite
def node_ids(draw: st.DrawFn) -> str:
    params = draw(PARAMS)
    return draw(CLASSES) + draw(FUNCTIONS) + ("" if params is None else f"[{params}]")


def on_disk(name: str) -> str:
    """What a case-insensitive, normalising file system (macOS, Windows) makes of a file name."""
    return unicodedata.normalize("NFD", name).casefold()


def former_name(below_module: str) -> str:
    """The name every cassette had before (kept for plain ids: committed cassettes stay found)."""
    return short_name(re.sub(r"[^\w.\-\[\]]", "_", below_module.replace("::", ".")))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(node_ids(), min_size=2, max_size=12, unique=True))
def test_every_test_gets_a_cassette_of_its_own(ids: list[str]) -> None:
    names = [cassette_file_name(one) for one in ids]
    assert len({on_disk(name) for name in names}) == len(ids), list(zip(ids, names, strict=True))
    for one, name in zip(ids, names, strict=True):
        assert name.isascii() and name not in (".", "..") and not name.startswith(".")
        assert not set(name) & set('/\\:*?"<>|\x00\n\r\t ')
        assert len((name + ".yaml.journal").encode()) <= 255 and len(name.encode()) <= LONGEST_FILE_NAME
        if PLAIN_ID.fullmatch(one):
            assert name == former_name(one)  # the names cassettes already have are kept
        assert cassette_file_name(one) == name  # the same on every run


def test_the_issue_examples_get_cassettes_of_their_own() -> None:
    ids = ["test_reads[a/b]", "test_reads[a:b]", "test_reads[a_b]", "test_reads[A]", "test_reads[a]"]
    assert len({on_disk(cassette_file_name(one)) for one in ids}) == len(ids)
    assert former_name("test_reads[a/b]") == former_name("test_reads[a:b]")  # what shared one before
    assert cassette_file_name("TestCatalog::test_reads[gold]") == "TestCatalog.test_reads[gold]"


# A marker's cassette path, drawn from pieces: names, `.`, `..`, empty parts, a trailing slash.
MARKER_PIECES = st.lists(
    st.sampled_from(["shared.yaml", "sub", "deeper", ".", "..", ""]), min_size=1, max_size=6
)


@given(MARKER_PIECES, st.booleans(), st.booleans())
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_a_marker_path_is_one_name_inside_the_cassette_folder(
    pieces: list[str], absolute: bool, folder: bool
) -> None:
    """Every spelling of a marker's cassette path names what its lexical form names inside the cassette
    folder (`sub/../a.yaml` is `a.yaml` whether `sub/` exists or not), and one that leaves the folder,
    or is absolute, is refused with one line."""
    import posixpath

    from proxy.pytest_plugin.cassettes import _inside

    written = ("/" if absolute else "") + "/".join(pieces) + ("/" if folder else "")
    if not written.strip("/"):
        return  # no name at all: the marker refuses an empty path before this
    expected = posixpath.normpath(written)
    leaves = posixpath.isabs(written) or expected == ".." or expected.startswith("../")
    try:
        named = _inside(written, "@pytest.mark.commerce_cassette on t")
    except pytest.fail.Exception as refusal:
        assert leaves, written
        assert "stays in it" in str(refusal) and "\n" not in str(refusal)
        return
    assert not leaves, written
    assert named.rstrip("/") == expected and ".." not in named.split("/")
