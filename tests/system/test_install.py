"""Installing commerce-proxy beside a client's own HTTP libraries: mitmproxy is the [mitm] extra, and
every command that needs it says how to install it when it is missing (one line, exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

BIN = Path(sys.executable).parent
MISSING = (
    "commerce-proxy: error: mitmproxy is not installed; import-mitm and the mitmproxy addon need it: "
    "pip install 'mitmproxy>=11.0,<12' (or install commerce-proxy with its [mitm] extra from where you "
    "installed it, a clone or a git URL)"
)
# A `mitmproxy` package found first on the path that fails as an uninstalled or half-installed one does.
SHIMS = {
    "absent": 'raise ModuleNotFoundError("No module named \'mitmproxy\'", name="mitmproxy")\n',
    "broken": "import mitmproxy_rs_of_another_version  # noqa\n",
}


def environment(**extra: str) -> dict[str, str]:
    kept = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**kept, **extra}


def without_mitmproxy(tmp_path: Path, shim: str = "absent") -> dict[str, str]:
    (tmp_path / "shim" / "mitmproxy").mkdir(parents=True)
    (tmp_path / "shim" / "mitmproxy" / "__init__.py").write_text(SHIMS[shim])
    return environment(PYTHONPATH=f"{tmp_path / 'shim'}{os.pathsep}{ROOT}")


@pytest.mark.parametrize(
    "command",
    [[str(BIN / "commerce-proxy")], [sys.executable, "-m", "proxy"]],
    ids=["console script", "python -m proxy"],
)
def test_import_mitm_without_mitmproxy_says_how_to_install_it(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "flows.mitm").write_bytes(b"")
    run = subprocess.run(
        [*command, "import-mitm", "flows.mitm", "-o", "out.yaml"],
        cwd=tmp_path,
        env=without_mitmproxy(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode, run.stderr, run.stdout) == (2, MISSING + "\n", "")
    assert not (tmp_path / "out.yaml").exists()


def test_a_mitmproxy_that_cannot_load_is_named_with_its_cause(tmp_path: Path) -> None:
    run = subprocess.run(
        [str(BIN / "commerce-proxy"), "import-mitm", "flows.mitm", "-o", "out.yaml"],
        cwd=tmp_path,
        env=without_mitmproxy(tmp_path, "broken"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr == (
        "commerce-proxy: error: mitmproxy cannot load: No module named "
        "'mitmproxy_rs_of_another_version'; import-mitm and the mitmproxy addon need it: "
        "pip install 'mitmproxy>=11.0,<12' (or install commerce-proxy with its [mitm] extra from where you "
        "installed it, a clone or a git URL)\n"
    )


def test_everything_but_the_mitmproxy_adapter_works_without_mitmproxy(tmp_path: Path) -> None:
    """Every module outside proxy/mitm imports (the plugin, the app, the command line: no transitive
    import of mitmproxy), and a command runs; proxy.mitm itself refuses with the one line."""
    names = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "proxy").rglob("*.py")
        if "mitm" not in path.relative_to(ROOT / "proxy").parts and path.name != "__main__.py"
    )
    assert len(names) > 50
    walk = (
        "import importlib, proxy.errors\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "try:\n"
        "    import proxy.mitm.addon\n"
        "except proxy.errors.CommerceProxyError as error:\n"
        "    print(error)\n"
    )
    env = without_mitmproxy(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", walk], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout == MISSING.removeprefix("commerce-proxy: error: ") + "\n"
    checked = subprocess.run(
        [str(BIN / "commerce-proxy"), "check", "--examples"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stderr


def test_pip_check_is_clean_beside_httpx_requests_and_aiohttp(tmp_path: Path) -> None:
    """A user's project: `pip install commerce-proxy[pytest]`, then its own clients, in a venv of its
    own (no system site-packages). Needs the package registry; without it the test fails."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")

    def pip(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [python, "-m", "pip", *arguments],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=600,
        )

    for wanted in ([f"{ROOT}[pytest]"], ["httpx", "requests", "aiohttp"]):
        # No bytecode compiled at install: what is tested is what pip resolves and checks.
        installed = pip("install", "--quiet", "--no-compile", *wanted)
        assert installed.returncode == 0, installed.stderr[-3000:]
    checked = pip("check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    names = {line.split("==")[0].lower() for line in pip("list", "--format=freeze").stdout.splitlines()}
    assert {"commerce-proxy", "pytest", "httpx", "requests", "h11"} <= names
    assert "mitmproxy" not in names
    run = subprocess.run(
        [str(venv / "bin" / "commerce-proxy"), "import-mitm", "flows.mitm", "-o", "out.yaml"],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode, run.stderr) == (2, MISSING + "\n")
