"""`scripts/run docs`: serves the documentation site on 127.0.0.1 at the port asked for (8000 by
default), or builds it into a folder; a bad port is one line and exit 2.

The script runs as a user runs it, from a copy of the checkout whose .venv holds a stand-in `mkdocs`
that writes down how it was called, so no server is started here."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the scripts and pyproject.toml, with a filled-in .venv whose mkdocs only records."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    for name in ("run", "_venv.sh"):
        shutil.copy2(ROOT / "scripts" / name, root / "scripts" / name)
    shutil.copyfile(ROOT / "pyproject.toml", root / "pyproject.toml")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    (root / ".venv" / ".installed").write_text(f"{digest}-[test]\n")
    mkdocs = bin_dir / "mkdocs"
    mkdocs.write_text('#!/usr/bin/env bash\n{ echo "cwd=$PWD"; printf "%s\\n" "$@"; } > "$MKDOCS_CALL"\n')
    mkdocs.chmod(0o755)
    return root


def run_docs(checkout: Path, *arguments: str, port: str | None = None) -> tuple[int, str, list[str]]:
    """Exit code, stderr, and the mkdocs call (its working directory first, then its arguments)."""
    call = checkout.parent / "mkdocs-call.txt"
    call.unlink(missing_ok=True)
    environment = {key: value for key, value in os.environ.items() if key != "COMMERCE_PROXY_DOCS_PORT"}
    environment["MKDOCS_CALL"] = str(call)
    if port is not None:
        environment["COMMERCE_PROXY_DOCS_PORT"] = port
    done = subprocess.run(
        [str(checkout / "scripts" / "run"), "docs", *arguments],
        cwd=checkout.parent,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stderr, call.read_text().splitlines() if call.exists() else []


SERVED = [
    ((), None, "127.0.0.1:8000", []),
    (("--port", "8123"), None, "127.0.0.1:8123", []),
    (("--port=8124",), None, "127.0.0.1:8124", []),
    ((), "9000", "127.0.0.1:9000", []),
    (("--port", "9001"), "9000", "127.0.0.1:9001", []),  # the option wins over the environment
    (("--no-livereload", "--port", "65535"), None, "127.0.0.1:65535", ["--no-livereload"]),
    (("--port", "1"), None, "127.0.0.1:1", []),
]


@pytest.mark.parametrize(("arguments", "port", "address", "passed"), SERVED)
def test_docs_serves_on_the_port_asked_for(
    checkout: Path, arguments: tuple[str, ...], port: str | None, address: str, passed: list[str]
) -> None:
    code, err, call = run_docs(checkout, *arguments, port=port)
    assert code == 0, err
    assert call == [f"cwd={checkout}", "serve", "--dev-addr", address, *passed]
    assert f"http://{address}/" in err


@pytest.mark.parametrize(
    ("arguments", "port"),
    [
        (("--port", "0"), None),
        (("--port", "65536"), None),
        (("--port", "http"), None),
        (("--port",), None),
        ((), "eighty"),
        ((), "-1"),
        ((), "80 "),
    ],
)
def test_a_bad_port_is_one_line_and_exit_2(
    checkout: Path, arguments: tuple[str, ...], port: str | None
) -> None:
    code, err, call = run_docs(checkout, *arguments, port=port)
    assert code == 2 and call == []
    assert err.count("\n") == 1 and "port" in err and "Traceback" not in err, err


@pytest.mark.parametrize(
    ("arguments", "site"),
    [((), "checkout/site"), (("public",), "public"), (("out/docs", "--clean"), "out/docs")],
)
def test_docs_build_writes_the_site_into_a_folder(
    checkout: Path, arguments: tuple[str, ...], site: str
) -> None:
    code, err, call = run_docs(checkout, "build", *arguments)
    assert code == 0, err
    assert call[:5] == [f"cwd={checkout}", "build", "--strict", "--site-dir", str(checkout.parent / site)]
    assert call[5:] == list(arguments[1:])


def test_a_port_in_use_is_one_line_and_exit_2_before_mkdocs_starts(checkout: Path) -> None:
    """As every command says it: no mkdocs traceback ending in `Address already in use`."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err, call = run_docs(checkout, "--port", str(port))
    assert code == 2 and call == [], err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in err, err
