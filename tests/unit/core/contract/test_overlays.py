"""Overlays on a spec document: the SDK's merge corrections and Overlay 1.0 documents, their pairing with
the spec they correct, the provenance of each change, and every malformed overlay as one line."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.contract.overlays import Overlay, overlaid, overlay_of, overlays_shaping
from proxy.errors import ContractError

SPEC = "api.yaml"
INFO = {"title": "t", "version": "1"}


def merge(patch: dict[str, Any], name: str = "fix.yaml") -> Overlay:
    return overlay_of(name, {**patch, "x-applies-to": SPEC}, [SPEC])


def overlay(*actions: dict[str, Any], name: str = "fix.yaml") -> Overlay:
    return overlay_of(
        name, {"overlay": "1.0.0", "info": INFO, "extends": SPEC, "actions": list(actions)}, [SPEC]
    )


def applied(document: dict[str, Any], *overlays: Overlay) -> tuple[dict[str, Any], dict[str, str]]:
    before = copy.deepcopy(document)
    result = overlaid(SPEC, document, overlays, warn=pytest.fail)
    assert document == before
    return result


# (spec, merge correction, result, pointers credited to it): lodash `_.merge`, as the SDK applies them.
MERGES = [
    pytest.param(
        {"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}, {"a": {"b": 3, "c": 2}}, ["/a/b"], id="objects-merge"
    ),
    pytest.param({"a": 1}, {"b": {"c": 2}}, {"a": 1, "b": {"c": 2}}, ["/b"], id="new-key"),
    pytest.param({"a": "x"}, {"a": 5}, {"a": 5}, ["/a"], id="scalar-replaces"),
    pytest.param({"a": "x"}, {"a": "x"}, {"a": "x"}, [], id="same-value-no-change"),
    pytest.param({"a": 1}, {"a": True}, {"a": True}, ["/a"], id="true-is-not-1"),
    pytest.param({"a": {"b": 1}}, {"a": None}, {"a": None}, ["/a"], id="null-sets-null-not-removes"),
    pytest.param({"a": {"b": 1}}, {"a": {"b": None}}, {"a": {"b": None}}, ["/a/b"], id="nested-null"),
    pytest.param(
        {"r": ["a", "b", "c"]}, {"r": ["x"]}, {"r": ["x", "b", "c"]}, ["/r/0"], id="list-by-position"
    ),
    pytest.param({"r": ["a"]}, {"r": ["a", "b"]}, {"r": ["a", "b"]}, ["/r/1"], id="longer-list-extends"),
    pytest.param(
        {"r": [{"a": 1, "b": 2}, {"c": 3}]},
        {"r": [{"a": 9}]},
        {"r": [{"a": 9, "b": 2}, {"c": 3}]},
        ["/r/0/a"],
        id="list-items-merge",
    ),
    pytest.param({"a": {"x": 1}}, {"a": [5]}, {"a": [5]}, ["/a"], id="list-replaces-object"),
    pytest.param({"a": "s"}, {"a": {"x": 1}}, {"a": {"x": 1}}, ["/a"], id="object-replaces-scalar"),
    pytest.param(
        {"a/b": {"~c": 1}}, {"a/b": {"~c": 2}}, {"a/b": {"~c": 2}}, ["/a~1b/~0c"], id="pointer-escapes"
    ),
]


@pytest.mark.parametrize(("spec", "patch", "expected", "credited"), MERGES)
def test_merge_corrections(
    spec: dict[str, Any], patch: dict[str, Any], expected: Any, credited: list[str]
) -> None:
    """A merge correction changes the spec as the SDK's component merge does, and credits what it set
    (each table row sits under `components`, a merge correction being a piece of an OpenAPI document)."""
    result, provenance = applied({"components": spec}, merge({"components": patch}))
    assert result == {"components": expected}
    assert provenance == {f"/components{pointer}": "fix.yaml" for pointer in credited}


def test_merge_refuses_a_mapping_onto_a_list() -> None:
    """A mapping merged into a list is refused with the file and pointer (lodash would mangle the list)."""
    with pytest.raises(ContractError, match=r"^fix\.yaml: #/paths/b: a mapping cannot merge into the list"):
        overlaid(SPEC, {"paths": {"b": [1]}}, [merge({"paths": {"b": {"c": 1}}})])


# (spec, actions, result, pointers credited): Overlay 1.0, with 1.1's words for the recursive merge.
ACTIONS = [
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "update": {"c": 2}}],
        {"a": {"b": 1, "c": 2}},
        ["/a/c"],
        id="insert",
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "update": {"b": "x"}}],
        {"a": {"b": "x"}},
        ["/a/b"],
        id="primitive-replaces",
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "update": {"b": None}}],
        {"a": {"b": None}},
        ["/a/b"],
        id="null-is-a-primitive",
    ),
    pytest.param(
        {"a": {"t": [1]}},
        [{"target": "$.a", "update": {"t": [2, 3]}}],
        {"a": {"t": [1, 2, 3]}},
        ["/a/t/1", "/a/t/2"],
        id="arrays-concatenate",
    ),
    pytest.param(
        {"a": {"o": {"p": 1}}},
        [{"target": "$", "update": {"a": {"o": {"q": 2}}}}],
        {"a": {"o": {"p": 1, "q": 2}}},
        ["/a/o/q"],
        id="nested-merge",
    ),
    pytest.param(
        {"l": [1]},
        [{"target": "$.l", "update": {"n": 1}}],
        {"l": [1, {"n": 1}]},
        ["/l/1"],
        id="array-appends-entry",
    ),
    pytest.param(
        {"a": {"b": 1, "c": 2}},
        [{"target": "$.a.b", "remove": True}],
        {"a": {"c": 2}},
        ["/a/b"],
        id="remove-key",
    ),
    pytest.param(
        {"p": [{"n": "a"}, {"n": "d"}, {"n": "b"}, {"n": "d"}]},
        [{"target": "$.p[?@.n == 'd']", "remove": True}],
        {"p": [{"n": "a"}, {"n": "b"}]},
        ["/p"],
        id="remove-array-items",
    ),
    pytest.param(
        {"paths": {"/x": {"get": {}}, "/y": {"get": {}, "post": {}}}},
        [{"target": "$.paths.*.get", "update": {"x-safe": True}}],
        {"paths": {"/x": {"get": {"x-safe": True}}, "/y": {"get": {"x-safe": True}, "post": {}}}},
        ["/paths/~1x/get/x-safe", "/paths/~1y/get/x-safe"],
        id="wildcard",
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "remove": True}, {"target": "$", "update": {"a": {"c": 2}}}],
        {"a": {"c": 2}},
        ["/a"],
        id="remove-then-recreate-in-order",
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "update": {"c": 2}}, {"target": "$.a.c", "remove": True}],
        {"a": {"b": 1}},
        ["/a/c"],
        id="update-then-remove-in-order",
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"target": "$.a", "update": {"z": 1}, "remove": True}],
        {},
        ["/a"],
        id="remove-wins-over-update",
    ),
]


@pytest.mark.parametrize(("spec", "actions", "expected", "credited"), ACTIONS)
def test_overlay_actions(
    spec: dict[str, Any], actions: list[dict[str, Any]], expected: Any, credited: list[str]
) -> None:
    """Each Overlay action applies in order to the result of the ones before it."""
    result, provenance = applied(spec, overlay(*actions))
    assert result == expected
    assert provenance == dict.fromkeys(credited, "fix.yaml")


UPDATE_ERRORS = [
    (
        {"a": {"b": [1]}},
        {"target": "$.a", "update": {"b": {"c": 1}}},
        "#/actions/0/update/b: an object cannot merge with the array at #/a/b",
    ),
    (
        {"a": {"b": "s"}},
        {"target": "$.a", "update": {"b": [1]}},
        "#/actions/0/update/b: an array cannot merge with the primitive at #/a/b",
    ),
    (
        {"a": {"b": {}}},
        {"target": "$.a", "update": {"b": 1}},
        "#/actions/0/update/b: a primitive cannot merge with the object at #/a/b",
    ),
    (
        {"a": {}},
        {"target": "$.a", "update": [1]},
        "#/actions/0/update: the target is an object at #/a: update must be an object",
    ),
    (
        {"a": []},
        {"target": "$.a", "update": [1]},
        "#/actions/0/update: the target is an array at #/a: Overlay 1.0 appends update as one entry",
    ),
    (
        {"a": {"b": 1}},
        {"target": "$.a.b", "update": 2},
        "#/actions/0/update: the target is a primitive at #/a/b: Overlay 1.0 targets objects and arrays",
    ),
    ({"a": 1}, {"target": "$", "remove": True}, "#/actions/0/target: cannot remove the document's root"),
]


@pytest.mark.parametrize(("spec", "action", "message"), UPDATE_ERRORS)
def test_incompatible_updates_are_one_line(
    spec: dict[str, Any], action: dict[str, Any], message: str
) -> None:
    """An update the spec's node cannot take names the overlay file, its pointer and the spec's."""
    with pytest.raises(ContractError) as caught:
        overlaid(SPEC, spec, [overlay(action)])
    assert str(caught.value).startswith(f"fix.yaml: {message}")
    assert "\n" not in str(caught.value)


def test_a_target_selecting_nothing_is_reported() -> None:
    """A target that selects nothing changes nothing and is said to the caller, once per spec."""
    said: list[str] = []
    result, provenance = overlaid(
        SPEC, {"a": {}}, [overlay({"target": "$.b", "update": {"c": 1}})], warn=said.append
    )
    assert (result, provenance) == ({"a": {}}, {})
    assert said == ["fix.yaml: #/actions/0/target: $.b selects nothing in api.yaml"]


def test_several_overlays_apply_in_order_and_the_last_is_credited() -> None:
    """Overlays apply in the order given; a node is credited to the last that set it, and array items
    keep their credit as an earlier item is removed."""
    first = merge({"x-a": {"b": 1}, "x-l": [{"x": 1}, {"y": 2}, {"z": 3}]}, name="one.yaml")
    second = overlay(
        {"target": "$['x-a']", "update": {"b": 2}}, {"target": "$['x-l'][0]", "remove": True}, name="two.yaml"
    )
    result, provenance = applied({"x-a": {}, "x-l": []}, first, second)
    assert result == {"x-a": {"b": 2}, "x-l": [{"y": 2}, {"z": 3}]}
    assert provenance == {
        "/x-a/b": "two.yaml",
        "/x-l": "two.yaml",
        "/x-l/0": "one.yaml",
        "/x-l/1": "one.yaml",
    }
    assert set(overlays_shaping(provenance, "/x-l/1")) == {"two.yaml", "one.yaml"}
    assert overlays_shaping(provenance, "/x-a") == ("two.yaml",)
    assert overlays_shaping(provenance, "/c") == ()


def test_overlays_for_another_spec_are_left_out() -> None:
    """Only the overlays paired with the spec apply; none is the spec itself, untouched."""
    other = overlay_of("other_fix.yaml", {"x-a": 1}, ["other.yaml", SPEC])
    document = {"x-a": 0}
    result, provenance = overlaid(SPEC, document, [other])
    assert result is document and provenance == {}


def action(**fields: Any) -> dict[str, Any]:
    return {"overlay": "1.0.0", "info": INFO, "extends": SPEC, "actions": [fields]}


MALFORMED = [
    ([1], "#: expected a mapping (a merge correction or an Overlay document), found a list"),
    ({"component": {}}, "#/component: not a field of an OpenAPI document's root"),
    (
        {"actions": []},
        "#/actions: not a field of an OpenAPI document's root (an Overlay document starts with 'overlay: 1.0.0')",
    ),
    ({"x-applies-to": 3}, "#/x-applies-to: expected a spec's file name or a list of them"),
    ({"paths": {None: 1}}, "#/paths/None: a key must be a string, found null"),
    (
        {"overlay": "2.0.0", "info": INFO, "actions": []},
        "#/overlay: version '2.0.0' is not supported: expected 1.0.x",
    ),
    ({"overlay": "1.1.0", "info": INFO, "actions": []}, "#/overlay: version '1.1.0' is not supported"),
    ({"overlay": 1.0, "info": INFO, "actions": []}, "#/overlay: version 1.0 is not supported"),
    (
        {"overlay": "1.0.0", "actions": [{"target": "$", "remove": True}]},
        "#/info: missing: expected a mapping with 'title' and 'version'",
    ),
    ({"overlay": "1.0.0", "info": "x", "actions": []}, "#/info: expected a mapping, found a string"),
    (
        {"overlay": "1.0.0", "info": {"title": "t"}, "actions": []},
        "#/info/version: missing: expected a string",
    ),
    (
        {"overlay": "1.0.0", "info": {"title": 1, "version": "1"}, "actions": []},
        "#/info/title: expected a string, found a number",
    ),
    ({"overlay": "1.0.0", "info": INFO}, "#/actions: missing: expected a list of at least one action"),
    (
        {"overlay": "1.0.0", "info": INFO, "actions": []},
        "#/actions: empty: expected a list of at least one action",
    ),
    (
        {"overlay": "1.0.0", "info": INFO, "actions": {"target": "$"}},
        "#/actions: found a mapping: expected a list",
    ),
    (
        {"overlay": "1.0.0", "info": INFO, "actions": [{"target": "$", "remove": True}], "updates": []},
        "#/updates: unknown field",
    ),
    (
        {"overlay": "1.0.0", "info": INFO, "extends": 3, "actions": [{"target": "$", "remove": True}]},
        "#/extends: expected a URL (a string), found a number",
    ),
    (
        {"overlay": "1.0.0", "info": INFO, "actions": ["$.a"]},
        "#/actions/0: expected an action (a mapping with 'target'), found a string",
    ),
    (action(update={}), "#/actions/0/target: missing: expected a JSONPath query"),
    (action(target=["$"], update={}), "#/actions/0/target: expected a JSONPath query, found a list"),
    (
        action(target="$.paths[", update={}),
        "#/actions/0/target: not an RFC 9535 JSONPath query: unbalanced brackets",
    ),
    (action(target="paths.x", update={}), "#/actions/0/target: not an RFC 9535 JSONPath query: expected '$'"),
    (action(target="$.a[?@.x-y]", update={}), "#/actions/0/target: not an RFC 9535 JSONPath query"),
    (action(target="$", remove="yes"), "#/actions/0/remove: expected true or false, found a string"),
    (
        action(target="$", description=3, update={}),
        "#/actions/0/description: expected a string, found a number",
    ),
    (action(target="$"), "#/actions/0: does nothing: expected 'update' or 'remove: true'"),
    (action(target="$", remove=False), "#/actions/0: does nothing"),
    (action(target="$", value={}), "#/actions/0/value: unknown field"),
]


@pytest.mark.parametrize(("document", "message"), MALFORMED)
def test_malformed_overlays_are_one_line(document: Any, message: str) -> None:
    """Wrong types, missing keys, bad JSONPath, an unknown version: one line naming file and pointer."""
    with pytest.raises(ContractError) as caught:
        overlay_of("api_fix.yaml", document, [SPEC])
    assert str(caught.value).startswith(f"api_fix.yaml: {message}")
    assert "\n" not in str(caught.value)


def test_a_deeply_nested_correction_is_one_line() -> None:
    """A correction nested past what the merge can recurse through is an error naming it, no traceback."""
    patch: dict[str, Any] = {}
    spec: dict[str, Any] = {}
    for _ in range(1_500):
        patch, spec = {"a": patch}, {"a": spec}
    with pytest.raises(ContractError, match=r"^fix\.yaml: nested too deeply to apply to api\.yaml$"):
        overlaid(SPEC, {"x-a": spec}, [merge({"x-a": patch})])


def test_yaml_integer_keys_are_strings() -> None:
    """`200:` unquoted in YAML is the integer 200; a correction means the status '200' the spec has."""
    fix = overlay_of(
        "api_fix.yaml", {"paths": {"/x": {"get": {"responses": {200: {"description": "OK"}}}}}}, [SPEC]
    )
    result, _ = overlaid(
        SPEC, {"paths": {"/x": {"get": {"responses": {"200": {"description": "x"}}}}}}, [fix]
    )
    assert result == {"paths": {"/x": {"get": {"responses": {"200": {"description": "OK"}}}}}}


# Property: JSON-shaped documents over a few keys, so patches and targets meet the spec's nodes often.
KEYS = st.sampled_from(["a", "b", "c", "d/e"])
SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["x", "y"])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)
# A merge correction's top-level keys are an OpenAPI document's (or x-...).
DOCUMENTS = st.dictionaries(st.sampled_from(["paths", "components", "x-a"]), VALUES, max_size=3)
TARGETS = st.sampled_from(
    ["$", "$.paths", "$.components.a", "$.*", "$..a", "$.paths[0]", "$.*[?@.b]", "$..*"]
)
ACTION = st.one_of(
    st.fixed_dictionaries({"target": TARGETS, "update": VALUES}),
    st.fixed_dictionaries({"target": TARGETS, "remove": st.just(True)}),
)
OVERLAYS = st.lists(
    st.one_of(
        DOCUMENTS.map(lambda patch: ("merge", patch)),
        st.lists(ACTION, min_size=1, max_size=3).map(lambda actions: ("overlay", actions)),
    ),
    max_size=3,
)


def built(index: int, kind: str, content: Any) -> Overlay:
    name = f"fix{index}.yaml"
    if kind == "merge":
        return overlay_of(name, {**content, "x-applies-to": SPEC}, [SPEC])
    return overlay_of(name, {"overlay": "1.0.0", "info": INFO, "extends": SPEC, "actions": content}, [SPEC])


def resolves(document: Any, pointer: str) -> bool:
    node = document
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


@settings(max_examples=200, deadline=None)
@given(document=DOCUMENTS, specs=OVERLAYS)
def test_overlaid_properties(document: dict[str, Any], specs: list[tuple[str, Any]]) -> None:
    """No overlay is the identity; the input is never changed; an Overlay document's actions apply as the
    same actions one overlay each would; every pointer credited exists in the result, or named a node that
    existed after some step and was removed since."""
    assert overlaid(SPEC, document, []) == (document, {})
    before = copy.deepcopy(document)
    overlays = [built(index, kind, content) for index, (kind, content) in enumerate(specs)]
    steps = [  # each action an overlay of its own, under its overlay's name
        built(index, kind, [one]) if kind == "overlay" else built(index, kind, content)
        for index, (kind, content) in enumerate(specs)
        for one in (content if kind == "overlay" else [None])
    ]
    try:
        result, provenance = overlaid(SPEC, document, overlays, warn=lambda _: None)
    except ContractError as error:
        assert "\n" not in str(error) and str(error).startswith("fix")
        assert document == before
        return
    assert document == before
    stages = [
        overlaid(SPEC, document, steps[:count], warn=lambda _: None)[0] for count in range(len(steps) + 1)
    ]
    assert document == before
    assert overlaid(SPEC, document, steps, warn=lambda _: None) == (result, provenance)
    for pointer in provenance:
        assert resolves(result, pointer) or any(resolves(stage, pointer) for stage in stages), pointer
