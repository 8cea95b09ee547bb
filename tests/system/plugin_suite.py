"""What the pytest plugin's system tests share: the inner suites' helpers and cassette set-up."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import ENTRY_CASSETTE, entry_cassette_with_wrong_etag

ENTRY = "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d"

# What the inner suites' tests share: a urllib GET that reports where it went, and a token from the
# sandbox (the commerce_sandbox fixture's credentials) through the proxy at `base`.
HELPERS = """
import json, os, urllib.parse, urllib.request, urllib.error
from pathlib import Path

def token(base, sandbox):
    form = urllib.parse.urlencode({
        "grant_type": "client_credentials",
        "client_id": sandbox.client_id,
        "client_secret": sandbox.client_secret,
    }).encode()
    request = urllib.request.Request(base + "/oauth/access_token", data=form, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())["access_token"]

def get(base, target, token="t"):
    request = urllib.request.Request(base + target, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")

def note(name, url):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(__file__).parent / "served.jsonl", "a") as out:
        out.write(json.dumps({"test": name, "url": url, "worker": worker}) + "\\n")
"""


def put_cassette(
    suite: pytest.Pytester, relative: str, source: Path = ENTRY_CASSETTE, text: str | None = None
) -> Path:
    target = suite.path / "cassettes" / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if text is None:
        shutil.copyfile(source, target)
    else:
        target.write_text(text)
    return target


def served(suite: pytest.Pytester) -> list[dict[str, str]]:
    path = suite.path / "served.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def refuses_connections(url: str) -> bool:
    parts = urlsplit(url)
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex((parts.hostname or "", parts.port or 0)) != 0


def broken_etag_cassette(suite: pytest.Pytester) -> None:
    put_cassette(suite, "test_etag/test_reads_entry.yaml", text=entry_cassette_with_wrong_etag("0"))
    suite.makepyfile(
        test_etag=f'''
from helpers import get

def test_reads_entry(commerce_replay):
    assert get(commerce_replay, "{ENTRY}")[0] == 200

def test_clean(commerce_replay_module):
    pass
'''
    )
    put_cassette(suite, "test_etag.yaml")
