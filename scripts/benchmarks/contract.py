"""`check --spec`'s costs, each figure beside the issue's goal: loading a generated spec of the published
specs' size (25 files, about 600 operations, about 3 MB of YAML) with its overlays (goal: at most 1 s
warm), and a warm `check --spec` of scripts/bench's large cassette (goal: at least 10,000 exchanges a
second), beside the same check without a spec and a check of resource reads the spec alone judges (the
worst case: no operation left to the documented rules). Then, in-process: checking the bench's list
pages with and without the spec, judging resource reads, and the three validators the issue names on
the same converted schemas: jsonschema-rs (the one used), fastjsonschema (when installed) and the
`jsonschema` reference implementation.

`scripts/bench --only contract` runs it (a full run does too). Alone:
`.venv/bin/python scripts/benchmarks/contract.py [--exchanges N] [--specs DIR --overlays DIR]`, where
`--specs` and `--overlays` measure the load and the check with other specs (copies of the published
ones, say) instead of the generated ones. A goal missed is a line saying so. Writes only in a temporary
folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from common import cpu_reference, median, table

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
        paths[base + "/{id}"] = {
            "get": {
                "operationId": f"read{file}x{number}",
                "responses": {"200": answer, "4XX": {"description": "error"}},
            }
        }
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


LOAD_GOAL = 1.0  # seconds, warm: every published spec with its overlays
CHECK_GOAL = 10_000  # exchanges a second, a warm `check --spec` of the bench's large cassette


def overlay_files(folder: Path) -> None:
    """Overlays of the published ones' kinds and sizes: a merge correction for every third spec (a
    parameter's `required`, a `required` list restated, a property added) and Overlay 1.0 documents whose
    actions find operations by a JSONPath filter on `operationId`."""
    folder.mkdir()
    for file in range(0, FILES, 3):
        correction = {
            "components": {
                "schemas": {
                    f"R{file}x{number}": {"allOf": [{}, {"required": ["type"]}]} for number in range(4)
                }
                | {"Usage": {"properties": {"unit": {"type": "string", "enum": ["day", "month"]}}}}
            }
        }
        (folder / f"spec{file}_service_corrections.yaml").write_text(yaml.safe_dump(correction))
    for file in (1, 2):
        actions = [
            {
                "target": f"$.paths.*[?@.operationId == 'read{file}x{number}']",
                "update": {"responses": {"404": {"description": "not found"}}},
            }
            for number in range(OPERATIONS // 2)
        ]
        document = {
            "overlay": "1.0.0",
            "info": {"title": "the service answers 404", "version": "1.0.0"},
            "extends": f"spec{file}.yaml",
            "actions": actions,
        }
        (folder / f"spec{file}.overlay.yaml").write_text(yaml.safe_dump(document, sort_keys=False))


Figure = tuple[str, str, str, bool]  # what was measured, the figure, its goal, whether it met it


def goal_rows(figures: list[Figure]) -> list[str]:
    """The figures beside their goals, then a line for each goal missed."""
    lines = table(
        ["measured", "figure", "goal", "met"],
        [[label, shown, goal, "yes" if met else "**no**"] for label, shown, goal, met in figures],
    )
    missed = [f"- MISSED: {label}: {shown}, goal {goal}" for label, shown, goal, met in figures if not met]
    return lines + (["", *missed] if missed else [])


def run(
    work: Path,
    rounds: int,
    log: Callable[[str], None],
    exchanges: int = 50_000,
    specs: Path | None = None,
    overlays: Path | None = None,
) -> list[str]:
    """The contract's figures against its goals, and the in-process details (markdown lines)."""
    from loading import check_wall, documents, forget_cache, write_ours

    from proxy.app.contract_inputs import contract_judge
    from proxy.core.cassette.document import Cassette
    from proxy.store.saving import save_cassette

    generated = specs is None
    if specs is None:
        specs = work / "specs"
        specs.mkdir()
        for file in range(FILES):
            (specs / f"spec{file}.yaml").write_text(yaml.safe_dump(spec_file(file), sort_keys=False))
        (specs / "common.yaml").write_text(yaml.safe_dump(COMMON, sort_keys=False))
        overlays = work / "overrides"
        overlay_files(overlays)
    named = [overlays] if overlays else []
    size = sum(path.stat().st_size for path in specs.iterdir() if path.is_file())
    first = timed(lambda: contract_judge([specs], named), rounds=1)
    judge = contract_judge([specs], named)
    assert judge is not None
    load = timed(lambda: contract_judge([specs], named), rounds=max(rounds, 3))
    files = len(judge.contract.specs)
    over = len(list(overlays.iterdir())) if overlays else 0
    described = f"{files} files, {size / 1e6:.1f} MB, {len(judge.contract.index)} operations, {over} overlays"
    log(f"  contract: load {described}: first {first:.2f} s, warm {load:.2f} s")

    large = work / "large.yaml"
    write_ours(large, exchanges)
    reads = work / "reads.yaml"
    if generated:
        save_cassette(reads, Cassette(tuple(read_exchanges(exchanges)), upstream="http://127.0.0.1:9000"))
    options = ["--spec", str(specs), *(["--overlay", str(overlays)] if overlays else [])]
    walls: dict[str, list[float]] = {"without": [], "with": [], "reads": []}
    for path in (large, reads) if generated else (large,):
        forget_cache(path)
        check_wall(path, *options)  # the parse cache written: the runs below are warm
    before = cpu_reference()
    for _ in range(rounds):  # interleaved: the machine's speed drifts
        walls["without"].append(check_wall(large)[0])
        walls["with"].append(check_wall(large, *options)[0])
        if generated:
            walls["reads"].append(check_wall(reads, *options)[0])
    with_spec, without = median(walls["with"]), median(walls["without"])
    after = cpu_reference()
    log(f"  contract: check {exchanges:,}: {without:.2f} s without --spec, {with_spec:.2f} s with")
    rate = exchanges / with_spec
    figures: list[Figure] = [
        (
            f"load the specs with their overlays, warm ({described})",
            f"{load:.2f} s",
            f"<= {LOAD_GOAL:g} s",
            load <= LOAD_GOAL,
        ),
        (
            f"warm `check --spec` of the bench's large cassette ({exchanges:,} list pages)",
            f"{rate:,.0f} exchanges/s",
            f">= {CHECK_GOAL:,}/s",
            rate >= CHECK_GOAL,
        ),
    ]
    if generated:
        reading = exchanges / median(walls["reads"])
        figures.append(
            (
                f"warm `check --spec` of {exchanges:,} resource reads the spec alone judges",
                f"{reading:,.0f} exchanges/s",
                f">= {CHECK_GOAL:,}/s",
                reading >= CHECK_GOAL,
            )
        )
    lines = goal_rows(figures)
    lines += [
        "",
        f"- Loading: the first load in this process {first:.2f} s (imports excluded), warm is the best of "
        f"{max(rounds, 3)}. `check` of the large cassette without --spec: {exchanges / without:,.0f} "
        f"exchanges/s ({with_spec / without:.2f}x the wall time with it; medians of {rounds} interleaved "
        "round(s), fresh processes, load of the cassette included). CPU reference (a fixed pure-Python "
        f"loop, lower is faster) before the checks: {before:.0f} ms, after: {after:.0f} ms.",
    ]
    for label, shown, goal, met in figures:
        if not met:
            log(f"scripts/bench: goal missed: {label}: {shown}, goal {goal}")
    if generated:
        lines += ["", *table(["in-process", "figure"], [list(row) for row in details(judge, documents)])]
    return lines


def read_exchanges(count: int) -> list[Any]:
    """Reads of the generated resources, each conforming to its spec (the contract judges them all)."""
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import Exchange, Request, Response

    headers = (("Content-Type", "application/json"),)
    return [
        Exchange(
            Request(
                "GET",
                f"/v2/area{index % FILES}/things{index % 12}/{index}",
                "",
                (("Authorization", "Bearer <redacted>"),),
            ),
            Response(
                200,
                headers,
                body_from_bytes(json.dumps(thing(index % FILES, index % 12, index)).encode(), headers),
            ),
            "2026-01-01T00:00:00.000000Z",
            1.0,
        )
        for index in range(count)
    ]


def details(
    judge: Any, documents: Callable[[int], list[tuple[str, str]]], count: int = 20_000
) -> list[tuple[str, str]]:
    """In-process: the bench's list pages checked with and without the spec, resource reads judged
    against the spec alone, and the validators compared."""
    from proxy.core.contract.findings import ContractJudge
    from proxy.core.model.bodies import body_from_bytes
    from proxy.core.model.exchange import Body, Exchange, Request, Response
    from proxy.core.rules.engine import Checker
    from proxy.store.rule_files import load_rules
    from proxy.store.shipped import shipped_dir

    contract = judge.contract
    rows: list[tuple[str, str]] = []
    json_headers = (("Content-Type", "application/json"),)
    pages = [
        Exchange(
            Request(
                "GET", target.partition("?")[0], target.partition("?")[2], (("Authorization", "Bearer x"),)
            ),
            Response(200, json_headers, body_from_bytes(text.encode(), json_headers)),
        )
        for target, text in documents(count)
    ]
    ruleset = load_rules(shipped_dir("rules"))

    def check(with_spec: bool) -> None:
        Checker(ruleset, contract=ContractJudge(contract) if with_spec else None).check_all(pages)

    check(True)  # warm: every schema the traffic needs compiled
    for with_spec in (False, True):
        seconds = timed(lambda with_spec=with_spec: check(with_spec))
        label = f"check the bench's {count:,} list pages, {'with' if with_spec else 'without'} --spec"
        rows.append((label, f"{count / seconds:,.0f} exchanges/s"))
    things = [
        Exchange(
            Request("GET", f"/v2/area{index % FILES}/things{index % 12}/{index}"),
            Response(200, json_headers, Body("json", thing(index % FILES, index % 12, index))),
        )
        for index in range(count)
    ]
    fresh = ContractJudge(contract)

    def judge_all() -> None:
        for index, one in enumerate(things):
            found = fresh.verdict(one, index, False, lambda rule, default, method, path: default, None)
            assert found.known and not found.findings, found

    judge_all()
    seconds = timed(judge_all)
    rows.append(
        (f"judge {count:,} resource reads against the spec alone", f"{count / seconds:,.0f} exchanges/s")
    )
    rows.extend(validators(contract, [one.response.body.value for one in things[:2000]]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--specs", type=Path, help="a folder of specs to measure instead of the generated")
    parser.add_argument("--overlays", type=Path, help="with --specs: their overlays")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        lines = run(
            Path(folder),
            arguments.rounds,
            lambda line: print(line, file=sys.stderr, flush=True),
            arguments.exchanges,
            arguments.specs.resolve() if arguments.specs else None,
            arguments.overlays.resolve() if arguments.overlays else None,
        )
    print("\n".join(lines))


def validators(contract: Any, instances: list[Any]) -> list[tuple[str, str]]:
    """Compile and validate the same converted schema (one resource's response) with each validator."""
    import jsonschema
    import jsonschema_rs

    from proxy.core.contract.schemas import _Bundle

    spec = next(name for name in contract.specs if name.endswith("spec0.yaml"))
    location = (spec, "/components/schemas/R0x0Response")
    schema = _Bundle(contract.specs, "response").of(location)[0]
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
