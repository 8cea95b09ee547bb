"""Reading specs robustly: every broken or odd input is one ContractError line naming the file and the
JSON pointer (of the `$ref` or node at fault), or a right answer; a file only a `$ref` reaches need not be
OpenAPI; a `$ref` stays relative and under the spec's folder; a path item `$ref`'d from another file is
judged, with the fragment file's pointer as the source of what it finds.

The layouts are modelled on cart_checkout.yaml (elasticpath/composable-frontend packages/sdks/specs): a
cart's `data` with a uuid `id` and `type: cart`, read at `GET /v2/carts/{cartID}`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.errors import ContractError
from proxy.store.contract_files import contract_of, folder_files

HEAD = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
GET_A = "paths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n"


def _schema_ref(ref: str) -> str:
    return HEAD + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: '" + ref + "'}\n"


def _operation(operation: str) -> str:
    return HEAD + "paths:\n  /a:\n    get: " + operation + "\n"


A_REF = "a.yaml: #/components/schemas/A/$ref: "
# case -> (files written under the folder, the expected line after the folder, with file and pointer);
# the first file is the one named. A value None is a folder; "FIFO" a named pipe.
BROKEN: dict[str, tuple[dict[str, str | None], str]] = {
    "remote https": ({"a.yaml": _schema_ref("https://x.test/s.yaml#/A")}, A_REF + "a remote reference"),
    "remote HTTPS upper case": ({"a.yaml": _schema_ref("HTTPS://x.test/s.yaml#/A")}, A_REF + "a remote"),
    "remote Http: mixed case": ({"a.yaml": _schema_ref("Http://x.test/s#/A")}, A_REF + "a remote"),
    "remote //host": ({"a.yaml": _schema_ref("//x.test/s.yaml#/A")}, A_REF + "a remote reference"),
    "remote file:": ({"a.yaml": _schema_ref("file:///etc/hostname")}, A_REF + "a remote reference"),
    "absolute path": ({"a.yaml": _schema_ref("/etc/hostname")}, A_REF + "an absolute path is not followed"),
    "up out of the folder": (
        {"in/a.yaml": _schema_ref("../out.yaml#/A"), "out.yaml": "A: {type: string}\n"},
        "in/a.yaml: #/components/schemas/A/$ref: ../out.yaml#/A: outside ",
    ),
    "a ref not a string": ({"a.yaml": _schema_ref("X").replace("'X'", "5")}, A_REF + "expected a string"),
    "a ref to no file": ({"a.yaml": _schema_ref("b.yaml#/A")}, A_REF + "b.yaml#/A: no such spec file"),
    "a ref to a folder": ({"a.yaml": _schema_ref("b#/A"), "b": None}, A_REF + "b#/A: is a folder"),
    "a ref to a FIFO": (
        {"a.yaml": _schema_ref("p.yaml#/A"), "p.yaml": "FIFO"},
        A_REF + "p.yaml#/A: not a regular",
    ),
    "a ref'd file a list": (
        {"a.yaml": _schema_ref("b.yaml#/0"), "b.yaml": "- {type: string}\n"},
        A_REF + "b.yaml#/0: expected a mapping in the file, found a list",
    ),
    "a ref'd file empty": (
        {"a.yaml": _schema_ref("b.yaml"), "b.yaml": ""},
        A_REF + "b.yaml: expected a mapping",
    ),
    "a ref'd file not YAML": (
        {"a.yaml": _schema_ref("b.yaml"), "b.yaml": "a: [\n"},
        "b.yaml:2: not valid YAML",
    ),
    "a ref to nothing in a fragment": (
        {"a.yaml": _schema_ref("b.yaml#/B"), "b.yaml": "A: {type: string}\n"},
        A_REF + "b.yaml#/B does not resolve",
    ),
    "a fragment's own broken ref": (
        {"a.yaml": _schema_ref("b.yaml#/A"), "b.yaml": "A: {$ref: '/etc/passwd'}\n"},
        "b.yaml: #/A/$ref: an absolute path is not followed",
    ),
    "a path item a list": (
        {"a.yaml": HEAD + "paths:\n  /a: [1, 2]\n"},
        "a.yaml: #/paths/~1a: expected a path item (a mapping), found a list",
    ),
    "a path item ref to a number": (
        {"a.yaml": HEAD + "paths:\n  /a: {$ref: '#/x'}\nx: 5\n"},
        "a.yaml: #/x: expected a path item (a mapping), found a number (5)",
    ),
    "a path item file a list": (
        {"a.yaml": HEAD + "paths:\n  /a: {$ref: 'paths/a.yaml'}\n", "paths/a.yaml": "- 1\n"},
        "a.yaml: #/paths/~1a/$ref: paths/a.yaml: expected a mapping in the file, found a list",
    ),
    "a path item ref cycle": (
        {"a.yaml": HEAD + "paths:\n  /a: {$ref: '#/x'}\nx: {$ref: '#/paths/~1a'}\n"},
        "a.yaml: #/paths/~1a/$ref: a cycle of $refs",
    ),
    "an operation a string": (
        {"a.yaml": _operation("nope")},
        "a.yaml: #/paths/~1a/get: expected an operation (a mapping), found a string",
    ),
    "responses a list": (
        {"a.yaml": _operation("{responses: [1]}")},
        "a.yaml: #/paths/~1a/get/responses: expected a mapping of statuses, found a list",
    ),
    "a response a number": (
        {"a.yaml": _operation("{responses: {'200': 1}}")},
        "a.yaml: #/paths/~1a/get/responses/200: expected a response (a mapping), found a number (1)",
    ),
    "a response ref cycle": (
        {"a.yaml": _operation("{responses: {'200': {$ref: '#/r'}}}") + "r: {$ref: '#/r'}\n"},
        "a.yaml: #/paths/~1a/get/responses/200/$ref: a cycle of $refs",
    ),
    "parameters a mapping": (
        {"a.yaml": _operation("{parameters: {a: 1}, responses: {}}")},
        "a.yaml: #/paths/~1a/get/parameters: expected a list of parameters, found a mapping",
    ),
    "a parameter a number": (
        {"a.yaml": _operation("{parameters: [1], responses: {}}")},
        "a.yaml: #/paths/~1a/get/parameters/0: expected a parameter (a mapping), found a number (1)",
    ),
    "content a list": (
        {"a.yaml": _operation("{responses: {'200': {description: ok, content: [1]}}}")},
        "a.yaml: #/paths/~1a/get/responses/200/content: expected a mapping, found a list",
    ),
    "headers a list": (
        {"a.yaml": _operation("{responses: {'200': {description: ok, headers: [1]}}}")},
        "a.yaml: #/paths/~1a/get/responses/200/headers: expected a mapping, found a list",
    ),
    "a request body a list": (
        {"a.yaml": _operation("{requestBody: [1], responses: {}}")},
        "a.yaml: #/paths/~1a/get/requestBody: expected a request body (a mapping), found a list",
    ),
    "a named file not OpenAPI": (
        {"a.yaml": "components: {schemas: {}}\n"},
        "a.yaml: #/openapi: expected an OpenAPI version 3.0.x or 3.1.x, found missing",
    ),
}


def _write(folder: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            path.mkdir()
        elif text == "FIFO":
            os.mkfifo(path)
        else:
            path.write_text(text)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_broken_input_is_one_line_naming_file_and_pointer(tmp_path: Path, case: str) -> None:
    files, expected = BROKEN[case]
    _write(tmp_path, files)
    with pytest.raises(ContractError) as raised:
        contract_of([tmp_path / next(iter(files))])
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path.as_posix()}/{expected}"), message


def test_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "secret.yaml").write_text("A: {type: string}\n")
    (tmp_path / "in" / "a.yaml").write_text(_schema_ref("s.yaml#/A"))
    (tmp_path / "in" / "s.yaml").symlink_to(tmp_path / "secret.yaml")
    with pytest.raises(ContractError, match=r"in/a.yaml: #/components/schemas/A/\$ref: s.yaml#/A: outside "):
        contract_of([tmp_path / "in" / "a.yaml"])


def _cart(id_: str) -> Exchange:
    body = {"data": {"id": id_, "type": "cart", "name": "Cart"}}
    return Exchange(
        Request("GET", "/v2/carts/c1"),
        Response(200, (("Content-Type", "application/json"),), Body("json", body)),
    )


GOOD_ID = "5d0a8f8e-7bd6-4b52-9b0c-0ff0c5f3f8a1"
CART = (
    "type: object\nrequired: [data]\nproperties:\n  data:\n    type: object\n    required: [id, type]\n"
    "    properties:\n      id: {type: string, format: uuid}\n      type: {type: string, enum: [cart]}\n"
    "      name: {type: string}\n"
)


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def _get(schema_ref: str, indent: int) -> str:
    """A cart read: its path parameter and its 200 answer, whose schema is `schema_ref`."""
    lines = (
        "get:\n  parameters:\n    - {name: cartID, in: path, required: true, schema: {type: string}}\n"
        "  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n"
        f"          schema: {{$ref: '{schema_ref}'}}\n"
    )
    return _indented(lines, indent)


ENTRY = HEAD + "paths:\n  /v2/carts/{cartID}:\n"
SCHEMA_AT = "schemas/cart.yaml#/properties/data/properties/id/format"
# layout -> (files, the source of a bad id's finding, the source of an undocumented status's finding)
LAYOUTS: dict[str, tuple[dict[str, str], str, str]] = {
    "a schema file": (
        {"api.yaml": ENTRY + _get("schemas/cart.yaml", 4), "schemas/cart.yaml": CART},
        SCHEMA_AT,
        "api.yaml#/paths/~1v2~1carts~1{cartID}/get/responses",
    ),
    "a components-only file": (
        {
            "api.yaml": ENTRY + _get("common.yaml#/components/schemas/Cart", 4),
            "common.yaml": "components:\n  schemas:\n    Cart:\n" + _indented(CART, 6),
        },
        "common.yaml#/components/schemas/Cart/properties/data/properties/id/format",
        "api.yaml#/paths/~1v2~1carts~1{cartID}/get/responses",
    ),
    "a path item file": (
        {
            "api.yaml": ENTRY + "    $ref: 'paths/cart.yaml'\n",
            "paths/cart.yaml": _get("../schemas/cart.yaml", 0),
            "schemas/cart.yaml": CART,
        },
        SCHEMA_AT,
        "paths/cart.yaml#/get/responses",
    ),
    "a path item in a components file": (
        {
            "api.yaml": ENTRY + "    $ref: 'items.yaml#/Cart'\n",
            "items.yaml": "Cart:\n" + _get("schemas/cart.yaml", 2),
            "schemas/cart.yaml": CART,
        },
        SCHEMA_AT,
        "items.yaml#/Cart/get/responses",
    ),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_multi_file_layout_is_judged_with_the_fragments_pointer(tmp_path: Path, layout: str) -> None:
    files, bad_id_at, status_at = LAYOUTS[layout]
    _write(tmp_path, dict(files))
    judge = ContractJudge(contract_of([tmp_path / "api.yaml"]))

    def sources(exchange: Exchange, index: int) -> list[tuple[str, str]]:
        found = judge.verdict(exchange, index, False, RuleConfig().severity, None).findings
        return [(f.rule, f.section.removeprefix(tmp_path.as_posix() + "/")) for f in found]

    assert sources(_cart(GOOD_ID), 0) == []
    assert sources(_cart("not-a-uuid"), 1) == [("contract.response.schema", bad_id_at)]
    teapot = Exchange(_cart(GOOD_ID).request, Response(418, (), Body("empty", None)))
    assert sources(teapot, 2) == [("contract.response.status", status_at)]


def test_a_bom_is_no_part_of_a_json_or_yaml_spec(tmp_path: Path) -> None:
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}
    (tmp_path / "a.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(document).encode())
    (tmp_path / "b.yaml").write_bytes(b"\xef\xbb\xbf" + (HEAD + GET_A.replace("/a", "/b")).encode())
    contract = contract_of([tmp_path])
    assert [str(operation) for operation in contract.index.operations()] == ["GET /b"]


def test_a_pure_ref_cycle_is_unsupported_once_and_never_judges(tmp_path: Path) -> None:
    # `A: {$ref: B}`, `B: {$ref: A}` describes no value: a validator would let everything through
    (tmp_path / "a.yaml").write_text(
        HEAD
        + "paths:\n  /v2/carts/{cartID}:\n"
        + _get("#/components/schemas/Cart", 4)
        + "components:\n  schemas:\n    Cart: {$ref: '#/components/schemas/B'}\n"
        "    B: {$ref: '#/components/schemas/Cart'}\n"
    )
    judge = ContractJudge(contract_of([tmp_path / "a.yaml"]))
    found = [
        [
            (f.rule, f.section.rpartition("#")[2])
            for f in judge.verdict(_cart(id_), index, False, RuleConfig().severity, None).findings
        ]
        for index, id_ in enumerate((GOOD_ID, "x", "y"))
    ]
    assert found[0] in (
        [("contract.unsupported", "/components/schemas/Cart")],
        [("contract.unsupported", "/components/schemas/B")],
    )
    assert found[1:] == [[], []]


def test_a_property_named_ref_and_a_ref_in_an_example_are_no_references(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        HEAD + "paths: {}\ncomponents:\n  schemas:\n    Doc:\n      type: object\n"
        "      properties:\n        $ref: {type: string}\n      example: {$ref: 'https://x.test/y'}\n"
    )
    contract = contract_of([tmp_path / "a.yaml"])
    compiled = contract.schemas.compiled(
        (f"{tmp_path.as_posix()}/a.yaml", "/components/schemas/Doc"), "response"
    )
    assert compiled.problems({"$ref": "x"}, contract.specs) == []
    assert [p.where for p in compiled.problems({"$ref": 5}, contract.specs)] == ["body.$ref"]


# name -> whether a folder's listing takes it: every suffix, crossed with a hidden name and a backup
MEMBERS = {
    f"{prefix}s{suffix}{tail}": not prefix and not tail and suffix in (".yaml", ".yml", ".json")
    for prefix in ("", ".", "..")
    for suffix in (".yaml", ".yml", ".json", ".txt", "")
    for tail in ("", "~", ".swp")
}


def test_a_folder_lists_its_spec_files_never_a_hidden_file_or_a_backup(tmp_path: Path) -> None:
    for name in MEMBERS:
        (tmp_path / name).write_text("{not: [a spec", encoding="utf-8")  # each unusable if read
    (tmp_path / "zz.yaml").write_text(HEAD + GET_A, encoding="utf-8")
    listed = {path.name for path in folder_files(tmp_path, "spec")}
    assert listed == {name for name, member in MEMBERS.items() if member} | {"zz.yaml"}
    for name, member in MEMBERS.items():
        if member:
            (tmp_path / name).unlink()
    assert [spec for spec in contract_of([tmp_path]).specs] == [(tmp_path / "zz.yaml").as_posix()]
