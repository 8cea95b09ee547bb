"""Safe YAML loading: built from events as PyYAML would build it, and bounded against hostile text."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.cassette.safe_yaml import (
    MAX_DEPTH,
    CassetteLoader,
    NotStreamable,
    load_yaml,
    stream_yaml,
    yaml_problem,
)

# Many drawn cases over the same code: run, asserted, not traced (scripts/test's coverage
# step); other tests measure these lines.
pytestmark = pytest.mark.no_cover

PLAIN_LOOKALIKES = [
    "yes",
    "No",
    "on",
    "~",
    "null",
    "0o17",
    "017",
    "1e3",
    "1_000",
    "0x1F",
    "190:20:30",
    ".inf",
]
PLAIN_LOOKALIKES += [
    "2001-12-14",
    "true",
    "-1.5",
    "=",
    "<<",
    "a b",
    "'q'",
    '"d"',
    "!!str 5",
    "!!python/none x",
]


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    """Flow-style YAML with look-alike scalars, anchors, aliases (some recursive), merge keys and tags."""
    anchors: list[str] = []

    def scalar() -> str:
        return draw(st.sampled_from(PLAIN_LOOKALIKES) | st.text("ab:-#'\"&*!<", max_size=4))

    def node(depth: int) -> str:
        choice = draw(st.integers(0, 9 if depth < 3 else 2))
        if choice <= 2:
            return scalar()
        if choice == 3 and anchors:
            return "*" + draw(st.sampled_from(anchors))
        anchor = ""
        if draw(st.booleans()):
            anchors.append(f"a{len(anchors)}")
            anchor = f"&{anchors[-1]} "
        tag = draw(st.sampled_from(["", "", "", "!!map ", "!!seq ", "!!set ", "!!omap "]))
        if choice <= 6:
            items = [f"{node(depth + 1)}: {node(depth + 1)}" for _ in range(draw(st.integers(0, 3)))]
            if anchors and draw(st.booleans()):
                items.append(f"<<: *{draw(st.sampled_from(anchors))}")
            return f"{anchor}{tag}{{{', '.join(items)}}}"
        return f"{anchor}{tag}[{', '.join(node(depth + 1) for _ in range(draw(st.integers(0, 3))))}]"

    return node(0)


def _built(build: Callable[[], Any], slips: tuple[type[Exception], ...] = ()) -> tuple[str, Any]:
    try:
        return "value", build()
    except (yaml.YAMLError, *slips):
        return "error", None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_event_build_equals_pyyamls_build(text: str) -> None:
    """Built from events or by PyYAML's constructor, a document is the same value, or an error in both."""
    fast = _built(lambda: load_yaml(text))
    # PyYAML's constructor itself slips on some hostile input with a TypeError; ours says it in one line.
    reference = _built(lambda: yaml.load(text, Loader=CassetteLoader), (TypeError, ValueError))
    if reference[0] == "value" and re.search(r"\[\.\.\.\]|\{\.\.\.\}", repr(reference[1])):
        assert fast[0] == "error", text  # a collection holding itself: callers walk documents as trees
        return
    assert fast[0] == reference[0], text
    if fast[0] == "value":
        assert repr(fast[1]) == repr(reference[1]), text


def test_aliased_collections_are_shared_and_duplicate_keys_refused() -> None:
    """An alias names the same collection (as PyYAML builds it); a key written twice is an error."""
    document = load_yaml("a: &x [1, 2]\nb: *x\n")
    assert document == {"a": [1, 2], "b": [1, 2]} and document["a"] is document["b"]
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'"):
        load_yaml("a: 1\n'a': 2\n")
    assert load_yaml("base: &b {x: 1}\nmerged: {<<: *b, y: 2}\n")["merged"] == {"x": 1, "y": 2}
    with pytest.raises(yaml.constructor.ConstructorError):
        load_yaml("!!python/object/apply:os.system ['true']\n")


@pytest.mark.parametrize("value", [*PLAIN_LOOKALIKES, "", "0", "1.0", "NaN", "+12", "0b101", "TRUE"])
def test_remembered_tags_equal_pyyamls_resolution(value: str) -> None:
    """The loader's memory of plain scalars' tags answers as PyYAML's resolver does."""

    class Reference(yaml.SafeLoader):
        pass

    Reference.yaml_implicit_resolvers = CassetteLoader.yaml_implicit_resolvers
    loader = CassetteLoader("")
    for _ in range(2):  # the second answer comes from the loader's memory
        for implicit in ((True, False), (False, True)):
            expected = Reference("").resolve(yaml.ScalarNode, value, implicit)
            assert loader.resolve(yaml.ScalarNode, value, implicit) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 40_000 + "]" * 40_000,  # crashed PyYAML's C composer (segmentation fault)
        "a: " + "{x: " * 40_000 + "}" * 40_000,
        "- " * 40_000 + "x\n",
        "".join(" " * depth + "k:\n" for depth in range(40_000)),
        "a: !!set " + "[" * 40_000 + "]" * 40_000,  # a tag leaves the rest to PyYAML's recursive composer
        "<<: " + "[" * 40_000 + "]" * 40_000,
    ],
    ids=["flow-sequences", "flow-mappings", "compact-sequences", "block-mappings", "tagged", "merge-key"],
)
def test_nesting_past_the_limit_is_an_error_not_a_crash(text: str) -> None:
    """Deep nesting of any YAML form is refused with a line, before anything recurses on it."""
    with pytest.raises(yaml.YAMLError, match=f"nested more than {MAX_DEPTH} levels deep") as error:
        load_yaml(text)
    assert isinstance(error.value, yaml.MarkedYAMLError) and error.value.problem_mark is not None


def test_nesting_up_to_the_limit_loads() -> None:
    """The limit is a depth, not a size: MAX_DEPTH levels load, one more does not."""
    document = load_yaml("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for _ in range(MAX_DEPTH - 1):
        document = document[0]
    assert document == []
    with pytest.raises(yaml.YAMLError, match="nested more than"):
        load_yaml("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


BILLION_LAUGHS = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 10)
)


@pytest.mark.parametrize(
    "text",
    [BILLION_LAUGHS, "m: {<<: {x: 1}}\n" + BILLION_LAUGHS],  # the second goes through PyYAML's build
    ids=["event-build", "pyyaml-build"],
)
def test_billion_laughs_is_refused(text: str) -> None:
    """Aliases that stand for 10**10 values are refused: callers walk a document as a tree."""
    with pytest.raises(yaml.YAMLError, match="aliases stand for more than"):
        load_yaml(text)


@pytest.mark.parametrize(
    "text", ["&a [*a]", "&a {k: [1, *a]}", "&a !!omap [{k: *a}]", "x: {<<: {}}\ny: &a [*a]"]
)
def test_a_collection_holding_itself_is_refused(text: str) -> None:
    """A cycle would send every tree walk round forever; it is an error naming the alias's line."""
    with pytest.raises(yaml.YAMLError, match=r"alias (\*a )?is inside the collection it names"):
        load_yaml(text)


@pytest.mark.parametrize(
    "text",
    [
        "!!python/object/apply:os.system ['true']",
        "x: !!python/name:os.system\n",
        "!!python/object:builtins.dict {}",
        "x: {<<: {}}\ny: !!python/object/new:os.system [echo]",
    ],
)
def test_python_tags_construct_nothing(text: str) -> None:
    """Only safe tags are built; a Python tag is an error, whichever build meets it."""
    with pytest.raises(yaml.constructor.ConstructorError, match="could not determine a constructor"):
        load_yaml(text)


def test_more_than_one_document_and_undefined_aliases_are_errors() -> None:
    """As PyYAML's own loader: one document per text, every alias defined before use."""
    with pytest.raises(yaml.composer.ComposerError, match="expected a single document"):
        load_yaml("a: 1\n---\nb: 2\n")
    with pytest.raises(yaml.composer.ComposerError, match="found undefined alias 'x'"):
        load_yaml("a: *x\n")
    with pytest.raises(yaml.composer.ComposerError, match="found duplicate anchor"):
        load_yaml("a: &x 1\nb: &x 2\n")
    assert load_yaml("") is None and load_yaml("# only a comment\n") is None


# --- one item at a time ---------------------------------------------------------------------------


def streamed(text: str) -> tuple[list[object], object]:
    """The items `stream_yaml` yields, and the top-level mapping it returns."""
    data = text.encode()
    generator = stream_yaml(io.BytesIO(data), len(data), "exchanges")
    items: list[object] = []
    while True:
        try:
            items.append(next(generator)[1])
        except StopIteration as done:
            return items, done.value


def test_a_streamed_list_gives_its_items_and_leaves_the_top_level_mapping_with_it_empty() -> None:
    text = "a: 1\nexchanges:\n- {x: 1}\n- &y [2]\n- *y\n- plain\nb: [3]\n"
    items, top = streamed(text)
    assert items == [{"x": 1}, [2], [2], "plain"]
    assert top == {"a": 1, "exchanges": [], "b": [3]}
    assert load_yaml(text) == {**top, "exchanges": items}  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "text",
    [
        "exchanges: &e []\nx: *e\n",  # the list itself anchored
        "l: &e [1]\nexchanges: *e\n",  # the list an alias
        "exchanges: !!omap [{a: 1}]\n",  # tagged
        "exchanges:\n- <<: {a: 1}\n",  # a merge key
        "exchanges: {a: 1}\n",  # not a list
        "[exchanges]\n",  # no top-level mapping
    ],
)
def test_what_streaming_does_not_build_says_so(text: str) -> None:
    try:
        items, top = streamed(text)
    except NotStreamable:
        return
    assert top == load_yaml(text) and items == []  # nothing streamed: the document as load_yaml gives it


def test_a_streamed_list_reports_yaml_errors_with_their_line() -> None:
    with pytest.raises(yaml.YAMLError) as error:
        streamed("exchanges:\n- a: 1\n- b: [\n")
    line, _ = yaml_problem(error.value, "")
    assert line == 4
