"""The layering rules, checked by scanning imports rather than by hope."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.paths import ROOT, TESTS

PACKAGE = ROOT / "proxy"
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


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, root: Path = PACKAGE.parent) -> list[tuple[str, tuple[str, ...]]]:
    """Every module `path` imports, as (module, names taken from it), however it is written: `import a.b`,
    `from a import b`, a relative `from ..store import x` (resolved from the module's own package), and
    a module named in a string to `importlib.import_module` or `__import__`."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.extend((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((module, tuple(alias.name for alias in node.names)))
        elif (
            isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id in {"import_module", "__import__"})
            )
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.args[0].value, ()))
    return found


def imports_of(path: Path) -> set[str]:
    return {module for module, _ in imported_names(path) if module}


def modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def test_the_core_does_no_io() -> None:
    """proxy/core imports no network, event loop, file or clock module."""
    for path in modules("core"):
        found = {name for name in imports_of(path) if name.split(".")[0] in IO_MODULES}
        assert not found, f"{path.name} imports {found}"
        assert "open(" not in path.read_text(), path.name


def test_only_adapters_import_aiohttp() -> None:
    """aiohttp stays in the adapters (servers, sandbox, demo, pytest plugin)."""
    adapters = {"server", "sandbox", "demo.py", "pytest_plugin"}
    for path in sorted(PACKAGE.rglob("*.py")):
        top = path.relative_to(PACKAGE).parts[0]
        if "aiohttp" in {name.split(".")[0] for name in imports_of(path)}:
            assert top in adapters, f"{path} imports aiohttp"


# Calls that open, make or remove a file, whatever they are called on.
FILE_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "fdopen", "mkdir", "makedirs"}
FILE_CALLS |= {"unlink", "rmdir", "rmtree", "touch", "symlink_to", "copyfile", "chmod", "truncate"}
# Outside proxy/store, each with why: none of them is a file of the user's.
NOT_FILES = {
    ("app/live_check_worker.py", "os.fdopen"),  # the worker's answers go out on its own stdout pipe
    ("app/live_check_worker.py", "fcntl"),  # F_SETPIPE_SZ: the room of the checker's pipes
    ("cli/main.py", "os.open"),  # os.devnull, so a closed pipe's last flush goes nowhere
}


def file_calls(path: Path) -> set[str]:
    """The calls in `path` that would open, make or remove a file (`open(...)`, `x.read_text()`, ...)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in FILE_CALLS:
                found.add(node.func.id)
            elif isinstance(node.func, ast.Attribute) and node.func.attr in FILE_CALLS:
                found.add(ast.unparse(node.func))
    return found


def test_only_the_store_touches_files() -> None:
    """Every file the tool opens, makes or removes is the store's (proxy/store: one writer, one way to
    read a regular file): no other layer calls open, read_text, unlink and the like, nor imports fcntl."""
    touching = sorted(
        f"{where}: {call}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (where := str(path.relative_to(PACKAGE).as_posix())).split("/")[0] != "store"
        for call in file_calls(path) | ({"fcntl"} & {name.split(".")[0] for name in imports_of(path)})
        if (where, call) not in NOT_FILES
    )
    assert touching == []


def test_the_scanners_see_every_way_of_writing_an_import_or_a_file_call(tmp_path: Path) -> None:
    module = tmp_path / "proxy" / "cli" / "zz.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import importlib\n"
        "from ..store import saving\n"
        "from . import output\n"
        "def later():\n"
        "    importlib.import_module('proxy.workers.choice')\n"
        "    __import__('proxy.store.journal')\n"
        "    with open('x') as f, p.open() as g:\n"
        "        q.write_text('y')\n"
    )
    assert {name for name, _ in imported_names(module, tmp_path)} == {
        "importlib",
        "proxy.store",
        "proxy.cli",
        "proxy.workers.choice",
        "proxy.store.journal",
    }
    assert file_calls(module) == {"open", "p.open", "q.write_text"}


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
    """mitmproxy is the [mitm] extra: only proxy/mitm imports it (lazily from the command line), and
    proxy/mitm/__init__.py says how to install it when it is missing."""
    for path in sorted(PACKAGE.rglob("*.py")):
        top = path.relative_to(PACKAGE).parts[0]
        if "mitmproxy" in {name.split(".")[0] for name in imports_of(path)}:
            assert top == "mitm", f"{path} imports mitmproxy"


def layer_table(text: str) -> dict[str, tuple[int, str]]:
    """ARCHITECTURE.md's table of layers, read as the rule: part of the package -> (its row, the row's
    name). A row's parts are the `proxy/...` paths in its "where" column; rows go up the table."""
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    table = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")][1:]
    return {
        part: (rank, cells[0].strip())
        for rank, cells in enumerate(table)
        for part in re.findall(r"`proxy/([A-Za-z_]+(?:\.py)?)/?`", cells[1])
    }


TABLE = layer_table((ROOT / "ARCHITECTURE.md").read_text())
LAYERS = {part: rank for part, (rank, _) in TABLE.items()}
# The servers and adapters go through the use cases: they import nothing of these (the sandbox, outside
# the layers, imports nothing of ours at all).
BEHIND_THE_DOOR = ("proxy.store", "proxy.workers")
DOOR_ROWS = {"servers", "adapters"}
# Read-only helpers of the store an adapter may name directly, each with why.
READ_ONLY_HELPERS = frozenset(
    {
        "proxy.store.cassette_folders",  # which cassette files a path names: lists a folder, writes nothing
    }
)
CORE_MODULES_AT_MOST = 12
LINES_AT_MOST = 500


def layer_of(module: str) -> str:
    """`proxy.core.model.exchange` -> "core"; `proxy.errors` -> "errors.py"; `proxy` -> "__init__.py"."""
    parts = module.split(".")[1:]
    if not parts:
        return "__init__.py"
    return parts[0] if (PACKAGE / parts[0]).is_dir() else f"{parts[0]}.py"


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {
        path.name for path in PACKAGE.iterdir() if path.suffix == ".py" or (path / "__init__.py").exists()
    }
    assert parts == set(LAYERS)


def test_imports_point_down_the_layers() -> None:
    """core < workers < store < app < servers < adapters (command line, pytest plugin, mitmproxy
    addon, demo) < the public API: no import, however lazy, reaches up a layer."""
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for target in targets
        if LAYERS[layer_of(target)] > LAYERS[layer_of(module)]
    )
    assert upward == []


def test_the_command_line_does_no_workflow_of_its_own() -> None:
    """The command line reaches the rules in_force's runs, the recording session and the helper processes
    only through the use cases in proxy/app."""
    reached = sorted(
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if layer_of(module) == "cli"
        for target in targets
        if target.startswith(
            (
                "proxy.workers",
                "proxy.app.two_core_check",
                "proxy.app.live_check_worker",
                "proxy.store.journal",
                "proxy.store.finding_spool",
            )
        )
    )
    assert reached == []


def door_breaches(graph: dict[str, set[str]], layers: dict[str, tuple[int, str]]) -> list[str]:
    """Imports of the store or the workers by a module of a servers or adapters row."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if layers[layer_of(module)][1] in DOOR_ROWS
        for target in targets
        if target.startswith(BEHIND_THE_DOOR) and target not in READ_ONLY_HELPERS
    )


def test_the_servers_and_adapters_go_through_the_use_cases() -> None:
    """No server or adapter (command line, pytest plugin, mitmproxy addon, demo, and any added to those
    rows) imports the store or the workers, lazily or for typing alike: the use cases hand them what
    they need."""
    assert door_breaches(import_graph(), TABLE) == []


def test_the_door_check_catches_an_adapter_reaching_the_store() -> None:
    graph = {
        "proxy.cli.check": {"proxy.app.check_command", "proxy.store.saving"},
        "proxy.server.replay": {"proxy.workers.choice"},
        "proxy.app.check_command": {"proxy.store.saving"},
    }
    assert door_breaches(graph, TABLE) == [
        "proxy.cli.check imports proxy.store.saving",
        "proxy.server.replay imports proxy.workers.choice",
    ]


def test_the_table_names_every_layer_the_architecture_speaks_of() -> None:
    """The table read from ARCHITECTURE.md has its rows in order, so a reworded row cannot silently
    drop a part from the rule."""
    names = [name for _, name in sorted(set(TABLE.values()))]
    assert names == [
        "foundation",
        "core",
        "workers",
        "store",
        "app",
        "servers",
        "sandbox",
        "adapters",
        "public API",
    ]


def test_the_core_keeps_its_concerns_in_sub_packages() -> None:
    direct = sorted(path.name for path in (PACKAGE / "core").glob("*.py") if path.name != "__init__.py")
    assert len(direct) <= CORE_MODULES_AT_MOST, direct


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE)): count
        for path in PACKAGE.rglob("*.py")
        if (count := len(path.read_text().splitlines())) > LINES_AT_MOST
    }
    assert long == {}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, counting every import: at the top, inside functions
    and under TYPE_CHECKING. `from proxy.x import y` is an import of proxy.x.y when that is a module,
    else of proxy.x. A package's __init__ counts where it is named, not as the implicit first step of
    importing its modules: the root's typing-only imports of the public API would otherwise put every
    module in one cycle that never runs."""
    known = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets: set[str] = set()
        for module, taken in imported_names(path):
            if not taken:
                targets.add(module)
            for alias in taken:
                full = f"{module}.{alias}"
                targets.add(full if full in known else module)
        graph[name] = {target for target in targets if target in known and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_in_the_package() -> None:
    """No module reaches itself through imports, lazy ones and typing-only ones included."""
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_unit_tests_mirror_the_package() -> None:
    """tests/unit/X/ exists only where proxy/X/ does, so a test is found where its code is."""
    unit = TESTS / "unit"
    folders = [
        path.relative_to(unit) for path in unit.rglob("*") if path.is_dir() and path.name != "__pycache__"
    ]
    assert folders and [folder for folder in folders if not (PACKAGE / folder).is_dir()] == []


def test_a_recordings_settings_are_built_in_one_place() -> None:
    """`RecordSettings(...)` is called only by `record_setup.record_settings`, so the project's `match`
    and `redact` tables reach every recording (record, spy, the plugin, the addon, the demo, scripts)."""
    builders = sorted(
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in [*PACKAGE.rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "RecordSettings"
    )
    assert [where.split(":")[0] for where in builders] == ["proxy/app/record_setup.py"]
