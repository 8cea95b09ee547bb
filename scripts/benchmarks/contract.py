"""`check --spec`'s costs on a generated spec of the published specs' size (25 files, about 600
operations, about 3 MB of YAML): loading it, checking the bench's list-page exchanges with it and
without, judging every exchange against the spec (the worst case: no operation left to the documented
rules), and the three validators the issue names on the same converted schemas: jsonschema-rs (the one
used), fastjsonschema (when installed) and the `jsonschema` reference implementation.

Run: `.venv/bin/python scripts/benchmarks/contract.py [--exchanges N]`. Prints a table; writes only in
a temporary folder it removes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

FILES = 25
OPERATIONS = 24  # per file: 600 in all, as the published specs have (617)
DESCRIBED = "What this field holds, when the service sets it, and how a client may use it. " * 2


def resource(file: int, number: int) -> dict[str, Any]:
    """A resource schema in the published specs' manner: allOf over a shared base, nullable fields,
    a discriminated configuration, formats."""
    name = f"R{file}x{number}"
    return {
        "allOf": [
            {"$ref": "common.yaml#/components/schemas/Resource"},
            {
                "type": "object",
                "required": ["type", "attributes"],
                "properties": {
                    "type": {"type": "string", "enum": [name.lower()]},
                    "attributes": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": 255},
                            "description": {"type": "string", "nullable": True},
                            "price": {"type": "integer", "minimum": 0},
                            "tags": {"type": "array", "items": {"type": "string"}},
                            "configuration": {"$ref": "#/components/schemas/Configuration"},
                            **{
                                f"field_{k}": {
                                    "type": "string",
                                    "description": DESCRIBED,
                                    "example": "x" * 40,
                                }
                                for k in range(20)
                            },
                        },
                    },
                },
            },
        ]
    }


def spec_file(file: int) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {
        "Configuration": {
            "type": "object",
            "nullable": True,
            "oneOf": [{"$ref": "#/components/schemas/Access"}, {"$ref": "#/components/schemas/Usage"}],
            "discriminator": {"propertyName": "type"},
            "required": ["type"],
        },
        "Access": {"type": "object", "required": ["type", "tag"], "properties": {"tag": {"type": "string"}}},
        "Usage": {"type": "object", "required": ["type"], "properties": {"default": {"type": "integer"}}},
    }
    for number in range(OPERATIONS // 2):
        name = f"R{file}x{number}"
        schemas[name] = resource(file, number)
        schemas[name + "Response"] = {
            "type": "object",
            "required": ["data"],
            "properties": {"data": {"$ref": f"#/components/schemas/{name}"}},
        }
        answer = {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}Response"}}},
        }
        base = f"/v2/area{file}/things{number}"
        paths[base + "/{id}"] = {"get": {"responses": {"200": answer, "4XX": {"description": "error"}}}}
        paths[base] = {"post": {"requestBody": answer, "responses": {"201": answer}}}
    if file == 0:  # the bench's list pages, known to the spec (the documented rules judge them first)
        paths["/v2/products"] = {
            "get": {
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
            }
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": f"generated {file}", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


COMMON = {
    "openapi": "3.1.0",
    "info": {"title": "common", "version": "1"},
    "paths": {},
    "components": {
        "schemas": {
            "Resource": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "links": {"type": "object", "properties": {"self": {"type": "string", "format": "uri"}}},
                    "meta": {
                        "type": "object",
                        "properties": {"created_at": {"type": "string", "format": "date-time"}},
                    },
                },
            }
        }
    },
}


def thing(file: int, number: int, index: int) -> dict[str, Any]:
    return {
        "data": {
            "id": f"3f8e2a4c-9b1d-4c6e-8f0a-{index:012d}",
            "type": f"r{file}x{number}",
            "links": {"self": f"https://useast.api.elasticpath.com/v2/area{file}/things{number}/{index}"},
            "meta": {"created_at": "2024-01-01T00:00:00Z"},
            "attributes": {
                "name": f"thing {index}",
                "description": None,
                "price": index,
                "tags": ["a", "b"],
                "configuration": {"type": "Access", "tag": "gold"},
                **{f"field_{k}": "x" * 40 for k in range(20)},
            },
        }
    }


def timed(work: Callable[[], object], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=20000)
    count = parser.parse_args().exchanges
    from loading import documents

    from proxy.core.contract.findings import ContractJudge
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import Body, Exchange, Request, Response
    from proxy.core.rules.engine import Checker
    from proxy.store.contract_files import contract_of
    from proxy.store.rule_files import load_rules
    from proxy.store.shipped import shipped_dir

    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        specs = Path(folder)
        for file in range(FILES):
            (specs / f"spec{file}.yaml").write_text(yaml.safe_dump(spec_file(file), sort_keys=False))
        (specs / "common.yaml").write_text(yaml.safe_dump(COMMON, sort_keys=False))
        size = sum(path.stat().st_size for path in specs.iterdir())
        contract = contract_of([specs])
        load = timed(lambda: contract_of([specs]))
        rows.append(
            (
                f"load {FILES + 1} files, {size / 1e6:.1f} MB, {len(contract.index)} operations",
                f"{load:.2f} s",
            )
        )

        json_headers = (("Content-Type", "application/json"),)
        pages = [
            Exchange(
                Request(
                    "GET",
                    target.partition("?")[0],
                    target.partition("?")[2],
                    (("Authorization", "Bearer x"),),
                ),
                Response(200, json_headers, body_from_bytes(text.encode(), json_headers)),
            )
            for target, text in documents(count)
        ]
        ruleset = load_rules(shipped_dir("rules"))

        def check(with_spec: bool) -> None:
            judge = ContractJudge(contract) if with_spec else None
            Checker(ruleset, contract=judge).check_all(pages)

        check(True)  # warm: every schema the traffic needs compiled
        for with_spec in (False, True):
            seconds = timed(lambda with_spec=with_spec: check(with_spec))
            label = f"check the bench's {count} list pages, {'with' if with_spec else 'without'} --spec"
            rows.append((label, f"{count / seconds:,.0f} exchanges/s"))

        things = [
            Exchange(
                Request("GET", f"/v2/area{index % FILES}/things{index % 12}/{index}"),
                Response(200, json_headers, Body("json", thing(index % FILES, index % 12, index))),
            )
            for index in range(count)
        ]
        judge = ContractJudge(contract)

        def judge_all() -> None:
            for index, one in enumerate(things):
                found = judge.verdict(one, index, False, lambda rule, default, method, path: default, None)
                assert found.known and not found.findings, found

        judge_all()
        seconds = timed(judge_all)
        rows.append(
            (f"judge {count} resource reads against the spec alone", f"{count / seconds:,.0f} exchanges/s")
        )
        rows.extend(validators(contract, [one.response.body.value for one in things[:2000]]))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def validators(contract: Any, instances: list[Any]) -> list[tuple[str, str]]:
    """Compile and validate the same converted schema (one resource's response) with each validator."""
    import jsonschema
    import jsonschema_rs

    from proxy.core.contract.schemas import _Bundle

    spec = next(name for name in contract.specs if name.endswith("spec0.yaml"))
    location = (spec, "/components/schemas/R0x0Response")
    schema, _ = _Bundle(contract.specs, "response").of(location)
    same = [instance for instance in instances if instance["data"]["type"] == "r0x0"] * 20
    candidates: dict[str, Callable[[], Callable[[Any], bool]]] = {
        "jsonschema-rs": lambda: jsonschema_rs.Draft202012Validator(schema, validate_formats=True).is_valid,
        "jsonschema (reference)": lambda: (
            jsonschema.Draft202012Validator(
                schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
            ).is_valid
        ),
    }
    try:
        import fastjsonschema

        candidates["fastjsonschema"] = lambda: _fast(fastjsonschema.compile(schema))
    except ImportError:
        pass
    rows = []
    for name, compile_one in candidates.items():
        compiling = timed(compile_one)
        valid = compile_one()
        checking = timed(lambda valid=valid: [valid(instance) for instance in same])
        assert all(valid(instance) for instance in same), name
        rows.append(
            (
                f"validator {name}: compile, then validate a 1.6 KB resource",
                f"{compiling * 1e3:.2f} ms, {checking / len(same) * 1e6:.1f} us each",
            )
        )
    if "fastjsonschema" not in candidates:
        rows.append(("validator fastjsonschema", "not installed (pip install fastjsonschema to compare)"))
    return rows


def _fast(validate: Callable[[Any], Any]) -> Callable[[Any], bool]:
    def valid(instance: Any) -> bool:
        try:
            validate(instance)
        except Exception:  # fastjsonschema.JsonSchemaException
            return False
        return True

    return valid


if __name__ == "__main__":
    main()
