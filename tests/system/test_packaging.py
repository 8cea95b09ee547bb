"""A plain (non-editable) install of the built wheel works from any directory, shipped data included."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding only the built wheel; its dependencies are borrowed from the test venv."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next((work / "dist").glob("commerce_proxy-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # Dependencies (aiohttp, PyYAML...) come from the test venv through a plain path line: .pth files
    # there are not processed, so the editable checkout of this repository stays invisible.
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "borrowed-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return venv


def run(venv: Path, cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    return subprocess.run(
        [str(venv / "bin" / "commerce-proxy"), *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_package_comes_from_the_wheel_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    """The installed package imports from the venv, with rules/ and cassettes/ inside it."""
    where = subprocess.run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import proxy, pathlib; print(pathlib.Path(proxy.__file__).parent)",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    package = Path(where)
    assert ROOT not in package.parents
    assert (package / "_shipped" / "cassettes" / "demo-session.yaml").is_file()
    assert (package / "_shipped" / "rules").is_dir()


def test_check_and_replay_serve_the_shipped_cassettes_from_anywhere(installed: Path, tmp_path: Path) -> None:
    """`check --examples` and `replay --examples` use the shipped ones, outside the repository."""
    checked = run(installed, tmp_path, "check", "--examples", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    paths = [cassette["path"] for cassette in json.loads(checked.stdout)["cassettes"]]
    assert paths and all("_shipped" in path for path in paths)
    with subprocess.Popen(
        [str(installed / "bin" / "commerce-proxy"), "replay", "--examples", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            url = line.split("listening on ", 1)[1].split()[0]
            with urllib.request.urlopen(f"{url}/_proxy/health", timeout=10) as answer:
                assert json.load(answer)["exchanges"] > 0
            request = urllib.request.Request(
                f"{url}/v2/flows/empty-flow/entries", headers={"Authorization": "Bearer any"}
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                body = json.load(answer)
            assert body["data"] == [] and body["links"]["first"].startswith(url)
        finally:
            process.terminate()
            process.communicate(timeout=30)
    assert process.returncode == 0


def test_what_a_citation_points_at_opens_in_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """Every rule's citation names `commerce-proxy rules RULE`, which the wheel install runs, printing
    what each cited section requires; no citation names a repository path, and the shipped rule folder
    a user copies cites no source document."""
    listed = run(installed, tmp_path, "rules", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    rules = json.loads(listed.stdout)["rules"]
    assert rules and all(rule["docs"] == f"commerce-proxy rules {rule['id']}" for rule in rules)
    # One process of the installed tool runs every citation's command, as its console script would
    # (its entry point, `proxy.cli.main:main`); one process per rule cost half a minute.
    every = json.dumps([rule["docs"].split()[1:] for rule in rules])
    script = (
        "import contextlib, io, json, sys\nfrom proxy.cli.main import main\nshown = []\n"
        f"for argv in json.loads({every!r}):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        code = main(argv)\n"
        "    shown.append([code, out.getvalue()])\n"
        "sys.stdout.write(json.dumps(shown))\n"
    )
    ran = subprocess.run(
        [str(installed / "bin" / "python"), "-c", script],
        cwd=tmp_path,
        env={key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    for rule, (code, text) in zip(rules, json.loads(ran.stdout), strict=True):
        assert code == 0 and "docs/rules.md" not in text, (rule["id"], text)
        flat = " ".join(text.split())
        assert all(" ".join(section["requires"].split()) in flat for section in rule["sections"])
    where = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import proxy; print(proxy.__file__)"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    )
    package = Path(where.stdout.strip()).parent
    assert ROOT not in package.parents
    for path in (package / "_shipped" / "rules").rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "commerce-api.md" not in text and "api-notes.md" not in text, path
