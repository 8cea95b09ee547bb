"""The layering rules, checked by scanning imports rather than by hope."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "proxy"
IO_MODULES = {
    "aiohttp",
    "asyncio",
    "mitmproxy",
    "socket",
    "os",
    "pathlib",
    "shutil",
    "subprocess",
    "time",
    "datetime",
    "fcntl",
    "multidict",
    "yarl",
}


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def test_the_core_does_no_io() -> None:
    """proxy/core imports no network, event loop, file or clock module."""
    for path in modules("core"):
        found = {name for name in imports_of(path) if name.split(".")[0] in IO_MODULES}
        assert not found, f"{path.name} imports {found}"
        assert "open(" not in path.read_text(), path.name


def test_only_adapters_import_aiohttp_and_only_store_touches_files() -> None:
    """aiohttp stays in the adapters (servers, sandbox, demo, CLI, pytest plugin); file access stays in
    proxy/store."""
    adapters = {"server", "sandbox", "demo.py", "cli.py", "pytest_plugin.py"}
    for path in sorted(PACKAGE.rglob("*.py")):
        top = path.relative_to(PACKAGE).parts[0]
        names = {name.split(".")[0] for name in imports_of(path)}
        if "aiohttp" in names:
            assert top in adapters, f"{path} imports aiohttp"
        if "fcntl" in names or ".read_text(" in path.read_text() or ".write_text(" in path.read_text():
            assert top in {"store", "demo.py"}, f"{path} touches files"


def test_the_sandbox_depends_on_nothing_else_of_ours() -> None:
    """The sandbox is built from the documentation alone: it imports no other part of commerce-proxy."""
    for path in modules("sandbox"):
        ours = {
            name
            for name in imports_of(path)
            if name.startswith("proxy") and not name.startswith("proxy.sandbox")
        }
        assert not ours, f"{path.name} imports {ours}"


def test_only_the_mitmproxy_adapter_imports_mitmproxy() -> None:
    """mitmproxy is a regular dependency, but only proxy/mitm imports it (lazily from the command line)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        top = path.relative_to(PACKAGE).parts[0]
        if "mitmproxy" in {name.split(".")[0] for name in imports_of(path)}:
            assert top == "mitm", f"{path} imports mitmproxy"
