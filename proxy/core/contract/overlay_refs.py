"""An overlay that writes beside a `$ref` of an OpenAPI 3.0 document changes nothing: 3.0 ignores what
sits beside a `$ref` (the validator honours `nullable` alone, as published specs mean it). Such a change
is aimed at the schema the `$ref` leads to, often in another file (a fragment); it is one error line
naming the overlay, the place and the file to name instead, never a correction silently dropped.
No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.core.contract.documents import ref_target
from proxy.errors import ContractError

# Beside a 3.0 `$ref`: kept (`nullable`), or annotations whose loss changes no judgement.
HARMLESS = frozenset(
    {"$ref", "nullable", "description", "summary", "title", "example", "examples", "deprecated"}
    | {"externalDocs"}
)


def check_beside_refs(name: str, version: str, document: Any, changed: Mapping[str, str]) -> None:
    """`ContractError` when an overlay (`changed`: pointer to overlay name) set a node that a 3.0
    `$ref`'s sibling holds, at or below it."""
    if version != "3.0":
        return
    for pointer, overlay in sorted(changed.items()):
        tokens = pointer.split("/")[1:]
        node = document
        for depth, token in enumerate(tokens):
            if not isinstance(node, Mapping):
                break
            key = _unescaped(token)
            ref = node.get("$ref")
            if isinstance(ref, str) and key not in HARMLESS and not key.startswith("x-"):
                at = "/".join(["", *tokens[: depth + 1]])
                file, target = ref_target(name, ref)
                there = f"{file}#{target}" if file != name else f"#{target}"
                raise ContractError(
                    f"{overlay}: {name}#{at}: sits beside $ref {ref!r}, which OpenAPI 3.0 ignores: "
                    f"correct the schema it leads to ({there})"
                    + (f", naming {file} with extends or x-applies-to" if file != name else "")
                )
            node = node.get(key)


def _unescaped(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")
