"""The published specifications as loaded documents: is each one OpenAPI, where does each `$ref` lead,
does every `$ref` lead somewhere. No I/O: the store reads the files and hands in their parsed values.

A document is named by its file's path as the store spells it (`specs/cart_checkout.yaml`); a `$ref`
to another file is relative to the file that writes it, so the names are joined here, in POSIX form.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from proxy.errors import ContractError

VERSIONS = ("3.0", "3.1")


@dataclass(frozen=True, slots=True)
class Spec:
    """One loaded document: its name (the file), its OpenAPI version (`3.0` or `3.1`) and its value,
    overlays already applied; `overlaid` maps each JSON pointer an overlay set or removed to the
    overlay's file name. `entry` is false for a file only a `$ref` reaches (a schema file, a
    `components:`-only file, a path item file): it need not be OpenAPI, has no operations of its own,
    and takes the version of the document whose `$ref` reached it first."""

    name: str
    version: str
    document: Mapping[str, Any]
    overlaid: Mapping[str, str]
    entry: bool = True

    def overlay_at(self, pointer: str) -> str | None:
        """The overlay that shaped the node at this place, or None: one that set or removed the node
        itself, a node enclosing it, or one item of its value (a name of a `required` list, a status of
        `responses`, a media type of `content`, a field of a header). A change deeper down is another
        node's (a 200's header is not the 500 status finding's, at `.../responses`)."""
        for changed, overlay in self.overlaid.items():
            if shaped(changed, pointer):
                return overlay
        return None


def shaped(changed: str, pointer: str) -> bool:
    """Whether a change at pointer `changed` shaped the node at `pointer`: it is that node, encloses
    it, or is one item of it (one token below)."""
    if changed == pointer or pointer.startswith(changed + "/"):
        return True
    return changed.startswith(pointer + "/") and "/" not in changed[len(pointer) + 1 :]


def escape(token: str) -> str:
    """One JSON pointer token (RFC 6901): `~` as `~0`, `/` as `~1`."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer_of(*tokens: str) -> str:
    """The JSON pointer of these tokens: `pointer_of("paths", "/v2/carts")` is `/paths/~1v2~1carts`."""
    return "".join("/" + escape(str(token)) for token in tokens)


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The node at `pointer` ("" or "/a/b"); KeyError when there is none."""
    node = document
    if pointer in ("", "/"):
        return node
    if not pointer.startswith("/"):
        raise KeyError(pointer)
    for raw in pointer[1:].split("/"):
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            if token in node:
                node = node[token]
            elif token.isdigit() and int(token) in node:  # YAML's unquoted `200:` is an integer key
                node = node[int(token)]
            else:
                raise KeyError(pointer)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(pointer)
    return node


def ref_target(name: str, ref: str) -> tuple[str, str]:
    """The document and pointer a `$ref` written in document `name` leads to."""
    file, _, fragment = ref.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(name), file)) if file else name
    return target, fragment


# Keys whose value maps names to schemas: a property may be called `$ref` and is no reference.
_NAMED = frozenset({"properties", "patternProperties"})
# Keys whose value is data, not a description: a `$ref` in an example is the example's text.
_DATA = frozenset({"example", "default", "const", "enum"})


_Place = tuple[Any, str | int] | None  # (the parent's place, this node's key); None at the start


def references(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every `$ref` in a document (its value, a string or not), with the pointer of the node that writes
    it (iteratively: the published specs nest deep). A node's place is kept as its parent's and its own
    key, and spelt as a pointer only for a `$ref`: most of a spec's nodes hold none."""
    stack: list[tuple[Any, _Place, bool]] = [(node, None, False)]
    while stack:
        current, place, named = stack.pop()
        if isinstance(current, Mapping):
            if "$ref" in current and not named:
                yield _spelt(pointer, place), current["$ref"]
            stack.extend(
                (value, (place, key), key in _NAMED and not named)
                for key, value in current.items()
                if named or key not in _DATA
            )
        elif isinstance(current, list):
            stack.extend((value, (place, index), False) for index, value in enumerate(current))


def _spelt(pointer: str, place: _Place) -> str:
    tokens: list[str] = []
    while place is not None:
        place, key = place
        tokens.append(escape(str(key)))
    return pointer + "".join("/" + token for token in reversed(tokens))


def ref_problem(ref: Any) -> str | None:
    """Why a `$ref` is not followed, or None: it must be a string naming a place in a file relative
    to the one that writes it (a spec from a pull request must not make a check fetch an address or
    read a file anywhere on the machine). Every remote spelling (`HTTPS:`, `Http:`, `//host/`, `file:`)
    and an absolute path are refused."""
    if not isinstance(ref, str):
        return f"expected a string, found {type(ref).__name__} {ref!r}"[:200]
    file = ref.partition("#")[0]
    split = urlsplit(file)
    if split.scheme or split.netloc or file.startswith("//"):
        return f"a remote reference is not followed: {ref}"
    if file.startswith(("/", "\\")):
        return f"an absolute path is not followed (a $ref is relative to its file): {ref}"
    return None


def file_references(
    name: str, document: Any, written: Iterable[tuple[str, Any]] | None = None
) -> Iterator[tuple[str, str, str]]:
    """Each `$ref` of document `name` to another file: the pointer that writes it, the `$ref`, and
    the file it names; ContractError at the first `$ref` that `ref_problem` refuses. `written`: the
    document's `references`, when the caller has them."""
    for at, ref in references(document) if written is None else written:
        problem = ref_problem(ref)
        if problem is not None:
            raise ContractError(f"{name}: #{at}/$ref: {problem}")
        target, _ = ref_target(name, ref)
        if target != name:
            yield at, ref, target


def follow(document_of: Callable[[str], Any], name: str, pointer: str, node: Any) -> tuple[str, str, Any]:
    """A node with its `$ref`s followed (within a file or across files), and where it is;
    ContractError naming the first place of a cycle of `$ref`s, which leads to no value."""
    seen: set[tuple[str, str]] = set()
    start = (name, pointer)
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        if (name, pointer) in seen:
            raise ContractError(f"{start[0]}: #{start[1]}/$ref: a cycle of $refs, which leads to no value")
        seen.add((name, pointer))
        name, pointer = ref_target(name, node["$ref"])
        node = resolve_pointer(document_of(name), pointer)
    return name, pointer, node


def openapi_version(name: str, document: Any) -> str:
    """`3.0` or `3.1`; ContractError when the document is not an OpenAPI 3.0 or 3.1 description."""
    if not isinstance(document, Mapping):
        raise ContractError(f"{name}: #: not an OpenAPI document: expected a mapping at the top")
    version = document.get("openapi")
    if not isinstance(version, str) or version[:3] not in VERSIONS:
        found = "missing" if version is None else repr(version)
        raise ContractError(f"{name}: #/openapi: expected an OpenAPI version 3.0.x or 3.1.x, found {found}")
    paths = document.get("paths", {})
    if not isinstance(paths, Mapping):
        raise ContractError(f"{name}: #/paths: expected a mapping of path templates")
    return version[:3]


def check_references(
    documents: Mapping[str, Any],
    overlaid: Mapping[str, Mapping[str, str]] | None = None,
    written: Mapping[str, Sequence[tuple[str, Any]]] | None = None,
) -> None:
    """ContractError at the first `$ref` that leads nowhere: to a document not loaded, or to a
    pointer the document does not have (a cycle is fine: recursive schemas exist). When an overlay
    wrote the `$ref`, or changed the place it leads to (removed `components`), the error names it:
    the spec is not to blame. `overlaid`: each document's changes, as `Spec.overlaid`; `written`: each
    document's `references`, when the caller has them (a walk of every node: a quarter of a load)."""
    changes = overlaid or {}
    known = written or {}
    for name, document in documents.items():
        for at, ref in known[name] if name in known else references(document):
            problem = ref_problem(ref)
            if problem is not None:
                raise ContractError(f"{name}: #{at}/$ref: {problem}")
            target, fragment = ref_target(name, ref)
            if target not in documents:
                blame = overlay_blame(changes.get(name, {}), f"{at}/$ref", None)
                raise ContractError(f"{name}: #{at}/$ref: no such file: {ref}{blame}")
            try:
                resolve_pointer(documents[target], fragment)
            except KeyError:
                blame = overlay_blame(
                    changes.get(name, {}), f"{at}/$ref", (target, changes.get(target, {}), fragment)
                )
                raise ContractError(f"{name}: #{at}/$ref: {ref} does not resolve{blame}") from None


def overlay_blame(
    written: Mapping[str, str], ref_at: str, led: tuple[str, Mapping[str, str], str] | None
) -> str:
    """` (written by overlay X)` when an overlay wrote the `$ref` (or a node enclosing it); else
    ` (overlay X changed file#pointer)` when one set or removed where it leads, or a node above that."""
    for changed, overlay in written.items():
        if ref_at == changed or ref_at.startswith(changed + "/"):
            return f" (written by overlay {overlay})"
    if led is not None:
        target, changes, fragment = led
        for changed, overlay in changes.items():
            if fragment == changed or fragment.startswith(changed + "/"):
                return f" (overlay {overlay} changed {target}#{changed})"
    return ""
