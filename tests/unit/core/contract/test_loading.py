"""Loading specs: a file or a folder, YAML or JSON, `$ref`s within a file and across files, a cycle
fine; and every broken input one ContractError line naming the file and the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.core.contract.findings import ContractJudge
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.core.rules.config import RuleConfig
from proxy.errors import ContractError
from proxy.store.contract_files import contract_of
from tests.unit.core.contract.plans import FIXTURES

GOOD = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"
# name -> (files written, the message's expected text after the folder)
BROKEN = {
    "not yaml": ({"a.yaml": "openapi: [3.0\n"}, "a.yaml:2: not valid YAML: "),
    "not json": ({"a.json": '{"openapi": '}, "a.json:1: not valid JSON: Expecting value"),
    "a key twice": ({"a.yaml": GOOD + "paths: {}\n"}, "a.yaml"),
    "not a mapping": (
        {"a.yaml": "- 1\n"},
        "a.yaml: #: not an OpenAPI document: expected a mapping at the top",
    ),
    "swagger 2": (
        {"a.yaml": "swagger: '2.0'\npaths: {}\n"},
        "a.yaml: #/openapi: expected an OpenAPI version 3.0.x or 3.1.x, found missing",
    ),
    "openapi 4": (
        {"a.yaml": "openapi: 4.0.0\npaths: {}\n"},
        "a.yaml: #/openapi: expected an OpenAPI version",
    ),
    "paths a list": ({"a.yaml": "openapi: 3.1.0\npaths: []\n"}, "a.yaml: #/paths: expected a mapping"),
    "ref to nothing": (
        {"a.yaml": GOOD + "components: {schemas: {A: {$ref: '#/components/schemas/B'}}}\n"},
        "a.yaml: #/components/schemas/A/$ref: #/components/schemas/B does not resolve",
    ),
    "ref to no file": (
        {"a.yaml": GOOD + "components: {schemas: {A: {$ref: 'b.yaml#/X'}}}\n"},
        "a.yaml: #/components/schemas/A/$ref: b.yaml#/X: no such spec file",
    ),
    "ref into another file's nothing": (
        {"a.yaml": GOOD + "components: {schemas: {A: {$ref: 'b.yaml#/X'}}}\n", "b.yaml": GOOD},
        "a.yaml: #/components/schemas/A/$ref: b.yaml#/X does not resolve",
    ),
    "remote ref": (
        {"a.yaml": GOOD + "components: {schemas: {A: {$ref: 'https://x.test/s.yaml#/A'}}}\n"},
        "a.yaml: #/components/schemas/A/$ref: a remote reference is not followed",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_spec_is_one_line_naming_file_and_place(tmp_path: Path, case: str) -> None:
    files, expected = BROKEN[case]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ContractError) as raised:
        contract_of([tmp_path / next(iter(files))])
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(tmp_path.as_posix() + "/")
    assert expected in message


def test_missing_paths_and_empty_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ContractError, match="no such spec file or folder"):
        contract_of([tmp_path / "nope.yaml"])
    with pytest.raises(ContractError, match=r"no spec files \(\*\.yaml, \*\.yml, \*\.json\) in this folder"):
        contract_of([tmp_path])


def test_a_folder_json_and_yaml_cross_file_and_a_cycle(tmp_path: Path) -> None:
    tree = {
        "openapi": "3.1.0",
        "paths": {
            "/v2/nodes/{id}": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "shared.yaml#/components/schemas/Node"}
                                }
                            },
                        }
                    }
                }
            }
        },
    }
    (tmp_path / "tree.json").write_text(json.dumps(tree))
    (tmp_path / "shared.yaml").write_text(
        GOOD + "components:\n  schemas:\n    Node:\n      type: object\n      properties:\n"
        "        children: {type: array, items: {$ref: '#/components/schemas/Node'}}\n"
    )
    contract = contract_of([tmp_path, tmp_path / "tree.json"])  # named twice: loaded once
    assert sorted(contract.specs) == [
        f"{tmp_path.as_posix()}/shared.yaml",
        f"{tmp_path.as_posix()}/tree.json",
    ]
    operation = contract.operation("GET", "/v2/nodes/1")
    assert operation is not None
    schema = contract.schemas.compiled(
        (operation.spec, f"{operation.pointer}/responses/200/content/application~1json/schema"), "response"
    )
    deep = {"children": [{"children": [{"children": []}]}]}
    assert schema.problems(deep, contract.specs) == []
    assert [p.where for p in schema.problems({"children": [{"children": 1}]}, contract.specs)] == [
        "body.children.0.children"
    ]


def test_the_fixture_specs_load(tmp_path: Path) -> None:
    contract = contract_of([FIXTURES])
    assert len(contract.index) == 2  # the plan's create and read


def test_a_schema_the_validator_cannot_take_is_unsupported_once(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        GOOD.replace("paths: {}\n", "")
        + "paths:\n  /v2/files:\n    get:\n      responses:\n        '200':\n          description: ok\n"
        "          content: {application/json: {schema: {$ref: '#/components/schemas/F'}}}\n"
        "components: {schemas: {F: {type: file}}}\n"
    )
    contract = contract_of([tmp_path / "a.yaml"])
    compiled = contract.schemas.compiled(
        (
            f"{tmp_path.as_posix()}/a.yaml",
            "/paths/~1v2~1files/get/responses/200/content/application~1json/schema",
        ),
        "response",
    )
    assert [one.location[1] for one in compiled.unsupported] == ["/components/schemas/F/type"]
    judge = ContractJudge(contract)
    answer = Exchange(
        Request("GET", "/v2/files"), Response(200, (("Content-Type", "application/json"),), Body("json", {}))
    )
    found = [judge.verdict(answer, index, False, RuleConfig().severity, None).findings for index in range(3)]
    assert [[(f.rule, f.exchange) for f in each] for each in found] == [[("contract.unsupported", 0)], [], []]
    assert found[0][0].section.endswith("a.yaml#/components/schemas/F/type")  # its own place
