"""With pytester registered, the plugin imports at once every module its code imports inside a function
(eager.py): pytester's in-process runs drop what is first imported inside them, and a compiled
extension among it (PyO3, or PyYAML's C parser) cannot be imported again whole. Every import inside a
function of the plugin's modules (and of the server module it watches through) is drawn from the source,
so a new one that eager.py does not bring fails here."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [
    *sorted((ROOT / "proxy" / "pytest_plugin").glob("*.py")),
    ROOT / "proxy" / "server" / "watching.py",
]


def imported_in_functions() -> set[str]:
    found: set[str] = set()
    for source in SOURCES:
        for function in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module:
                    found.add(node.module)
                elif isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
    return found - {"proxy.pytest_plugin.eager"}


def test_every_import_inside_a_function_of_the_plugin_is_imported_with_pytester() -> None:
    wanted = sorted(imported_in_functions())
    assert "proxy.pytest_plugin.servers" in wanted  # the walk finds the fixtures' own imports
    probe = (
        "import sys\n"
        "import proxy.pytest_plugin\n"
        "from proxy.pytest_plugin.eager import import_later_modules\n"
        "import_later_modules()\n"
        f"print([name for name in {wanted!r} if name not in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
