"""`--commerce-ui` (ini `commerce_ui`), as a user's suite meets it (pytester): without it a fixture's
server has no UI (`/_proxy/ui/` is a 404); with it each server (replay, record, spy) serves the page,
refuses a request without the token (403), and its address with the token is printed while the test
runs (no `-s`; from pytest-xdist workers too), never written to the junit XML; however the run ends
(here by Ctrl-C), no thread of the UI is left and no temporary file."""

from __future__ import annotations

import http.cookiejar
import json
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from tests.system.plugin_suite import ENTRY, put_cassette

SUITE = f'''
import os, threading, time, urllib.error, urllib.request
from pathlib import Path
from helpers import get, token

def ui_status(base):
    try:
        with urllib.request.urlopen(base + "/_proxy/ui/", timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code

def looked_at(base, request):
    """The UI's status without a token; with the UI, wait (bounded) until the outer test looked."""
    on = request.config.getoption("commerce_ui") or request.config.getini("commerce_ui")
    assert ui_status(base) == (403 if on else 404)
    go = Path(__file__).parent / ("go-" + request.node.name)
    for _ in range(600):
        if not on or go.exists():
            break
        time.sleep(0.1)
    assert not on or go.exists(), "the outer test never looked at the UI"
    if os.environ.get("INNER_INTERRUPT") == request.node.name:
        raise KeyboardInterrupt

def test_replays(commerce_replay, request):
    assert get(commerce_replay, "{ENTRY}")[0] == 200
    looked_at(commerce_replay, request)

def test_records(commerce_record, commerce_sandbox, request):
    assert get(commerce_record, "{ENTRY}", token(commerce_record, commerce_sandbox))[0] == 200
    looked_at(commerce_record, request)
'''

THREADS = """
import threading
from pathlib import Path

import pytest

def pytest_configure(config):
    config._threads_at_start = {thread.ident for thread in threading.enumerate()}

@pytest.hookimpl(trylast=True)  # after the fixtures' teardown
def pytest_sessionfinish(session):
    left = [t.name for t in threading.enumerate() if t.ident not in session.config._threads_at_start]
    name = "threads-" + str(getattr(session.config, "workerinput", {}).get("workerid", "main"))
    (Path(str(session.config.rootpath)) / name).write_text(",".join(left))
"""
LINE = re.compile(r"commerce-proxy ui \((replay|record|spy), test_ui\.py::(test_\w+)\): (http://\S+)")


def looked_at(suite: pytest.Pytester, *arguments: str) -> tuple[dict[str, str], str, int]:
    """Run the suite, open each UI address it prints (the page with its token, and its API), then let
    that test go on: each test's mode as the UI's `api/info` says it, the run's output and status."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments]
    run = suite.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line.decode()) for line in run.stdout or ()])
    reader.start()
    modes: dict[str, str] = {}
    output = []
    deadline = time.monotonic() + 120
    while (reader.is_alive() or not lines.empty()) and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        output.append(line)
        if (found := LINE.search(line)) is not None:
            mode, test, address = found.groups()
            modes[test] = _opened(address, mode)
            (suite.path / f"go-{test}").touch()
    run.wait(timeout=10)
    reader.join(timeout=5)
    if run.stdout is not None:
        run.stdout.close()
    return modes, "".join(output), run.returncode


def _opened(address: str, mode: str) -> str:
    """The page answers its printed address (the token, then its cookie); the API answers the token
    and shows the test's exchange."""
    pages = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with pages.open(address, timeout=10) as page:
        assert page.status == 200 and b"<html" in page.read().lower()
    base, token = address.split("/_proxy/ui/?token=")
    asked = urllib.request.Request(base + "/_proxy/ui/api/info", headers={"X-Commerce-Proxy-Token": token})
    for _ in range(100):  # the exchange is indexed off the serving path: bounded wait for it
        with urllib.request.urlopen(asked, timeout=10) as answer:
            info = json.loads(answer.read())
        if info["exchanges"] >= 1:
            break
        time.sleep(0.1)
    assert info["mode"] == mode and info["exchanges"] >= 1, info
    return str(info["mode"])


@pytest.mark.parametrize("record_mode", ["all", "spy"])
def test_each_server_serves_the_ui_only_when_asked(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, record_mode: str
) -> None:
    put_cassette(suite, "test_ui/test_replays.yaml")
    suite.makepyfile(test_ui=SUITE)
    suite.makeconftest(THREADS)
    recording = "record" if record_mode == "all" else "spy"
    common = [f"--commerce-record-mode={record_mode}", "--commerce-sandbox"]
    seen, text, status = looked_at(suite, *common)
    assert (seen, status) == ({}, 0), text
    assert "/_proxy/ui/" not in text

    temporary = suite.path / "sqlite-tmp"
    temporary.mkdir()
    monkeypatch.setenv("SQLITE_TMPDIR", str(temporary))
    if record_mode == "all":  # the ini setting, two pytest-xdist workers, a junit XML of everything
        ini = suite.path / "tox.ini"
        ini.write_text(ini.read_text() + "\ncommerce_ui = true\njunit_logging = all\n")
        seen, text, status = looked_at(suite, *common, "-n", "2", "--junitxml=report.xml")
        assert status == 0, text
        report = (suite.path / "report.xml").read_text()
        assert "test_records" in report and "/_proxy/ui/" not in report
    else:  # the option, and a run ended by Ctrl-C while the spying server's UI is open
        monkeypatch.setenv("INNER_INTERRUPT", "test_records")
        seen, text, status = looked_at(suite, *common, "--commerce-ui")
        assert status == 2 and "KeyboardInterrupt" in text, text
    assert seen == {"test_replays": "replay", "test_records": recording}, text
    assert "a UI on each server" in text
    left = {path.name: path.read_text() for path in suite.path.glob("threads-*")}
    assert left and set(left.values()) == {""}, left
    assert not any(temporary.iterdir())
