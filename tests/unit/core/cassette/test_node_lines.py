"""The line a cassette error names is the one the composed document gives, for any document and path,
found from the parser's events alone (a composed tree of a large cassette cost seconds and hundreds of
MB on the error path)."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.cassette.node_lines import line_of
from proxy.core.cassette.safe_yaml import SafeLoader

KEYS = st.text(alphabet="abcdefgh_- :#'\"é", min_size=1, max_size=6)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=12), st.floats(allow_nan=False)
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)


def composed_line(text: str, path: tuple[str | int, ...]) -> int | None:
    """The oracle: the line of the node at `path` (or of the deepest node found), from the whole tree."""
    try:
        node = yaml.compose(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return 1
    for part in path:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((value for key, value in node.value if key.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    return int(node.start_mark.line) + 1


def paths_into(document: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path to a node of `document`, and one step past each (a key or index it lacks)."""
    found = [prefix, (*prefix, "missing"), (*prefix, 99)]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(paths_into(value, (*prefix, key)))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(paths_into(value, (*prefix, index)))
    return found


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.sampled_from([False, True, None]), st.sampled_from([2, 4]))
def test_the_line_is_the_composed_documents_for_every_path(
    document: Any, flow: bool | None, indent: int
) -> None:
    text = yaml.safe_dump({"exchanges": document}, default_flow_style=flow, indent=indent, allow_unicode=True)
    for path in paths_into({"exchanges": document}):
        assert line_of(text, path) == composed_line(text, path), (text, path)


ALIASED = [
    "base: &b\n  status: 200\n  reason: OK\nother: *b\n",
    "- &first\n  a: 1\n- *first\n- x: *first\n",
    "? &k key\n: value\n*k : again\nlast: 1\n",
    "items:\n- &s text\n- *s\n- {a: *s, b: [*s, 2]}\n",
    "",
    "# only a comment\n",
    "just a scalar\n",
]


def test_aliases_complex_keys_and_empty_documents_give_the_composed_line() -> None:
    cases = [(text, paths_into(yaml.load(text, Loader=SafeLoader))) for text in ALIASED]
    cases.append(
        ("outer:\n  [1, 2]: complex key\n  plain: 3\n", [("outer", "plain"), ("outer", "x"), ("outer", 0)])
    )
    for text, paths in cases:
        for path in paths:
            assert line_of(text, path) == composed_line(text, path), (text, path)


def test_text_that_does_not_parse_as_far_as_the_node_has_no_line() -> None:
    assert line_of("a: [unclosed\nb: 2\n", ("b",)) is None
    assert line_of("a: 1\n\tb: 2\n", ("b",)) is None


def test_a_cassettes_error_line_is_found_without_composing_the_document(monkeypatch: Any) -> None:
    """The node tree of a whole cassette costs about 14 times its size in memory: never built to name
    the line of an error (its document is loaded already)."""
    from proxy.core.cassette.document import parse_cassette
    from proxy.errors import CassetteFormatError

    def refused(*arguments: Any, **options: Any) -> None:
        raise AssertionError("the whole document was composed")

    monkeypatch.setattr(yaml, "compose", refused)
    exchange = "- recorded_at: '2026-01-01T00:00:00.000000Z'\n  request:\n    method: GET\n    path: /v2/x\n"
    text = "cassette_format: 2\nexchanges:\n" + exchange * 3 + exchange + "  response:\n    status: abc\n"
    try:
        parse_cassette(text, "bad.yaml")
    except CassetteFormatError as error:
        assert str(error).startswith("bad.yaml:"), error
        line = int(str(error).split(":")[1])
        assert text.splitlines()[line - 1].strip() in (
            "status: abc",
            "- recorded_at: '2026-01-01T00:00:00.000000Z'",
        )
    else:
        raise AssertionError("a status of 'abc' was taken")
