"""`curl_command`: run through a real shell with `curl` replaced by a recorder, the command gives curl
exactly the recorded method, URL, end-to-end headers and body bytes, whatever they hold."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.interchange.curl import curl_command
from proxy.core.model.bodies import body_to_bytes
from proxy.core.model.exchange import Body, Exchange, Headers, JSONValue, Request, Response

BASE = "http://127.0.0.1:8080"
DROPPED = {"host", "content-length", "transfer-encoding", "keep-alive"}
RECORDER = """#!{python}
import base64, json, os, sys
words = [base64.b64encode(os.fsencode(word)).decode() for word in sys.argv[1:]]
stdin = base64.b64encode(sys.stdin.buffer.read()).decode()
with open(os.environ["CURL_RECORD"], "w") as out:
    json.dump({{"words": words, "stdin": stdin}}, out)
"""


@dataclass
class Sent:
    """What curl would send, read from its arguments as curl reads them."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    suppressed: set[str]  # `-H 'Name:'`: a header curl would add is not sent
    body: bytes | None


@pytest.fixture(scope="module")
def recorder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("fake-curl")
    script = folder / "curl"
    script.write_text(RECORDER.format(python=sys.executable))
    script.chmod(0o755)
    yield folder


def run(command: str, recorder: Path, shell: str = "bash") -> Sent:
    record = recorder / "record.json"
    record.unlink(missing_ok=True)
    environment = {
        **os.environ,
        "PATH": f"{recorder}{os.pathsep}{os.environ['PATH']}",
        "CURL_RECORD": str(record),
    }
    subprocess.run([shell, "-c", command], env=environment, check=True, stdin=subprocess.DEVNULL, timeout=30)
    document = json.loads(record.read_text())
    return parsed([base64.b64decode(word) for word in document["words"]], base64.b64decode(document["stdin"]))


def parsed(words: list[bytes], stdin: bytes) -> Sent:
    """curl's reading of the options the command uses (anything else fails the test)."""
    method, url, body = "", "", None
    headers: list[tuple[str, str]] = []
    suppressed: set[str] = set()
    flags = {b"--globoff", b"--path-as-is", b"--silent", b"--show-error"}
    position = 0
    while position < len(words):
        word = words[position]
        if word in flags:
            pass
        elif word == b"--head":
            method = "HEAD"
        elif word == b"--request":
            position += 1
            method = words[position].decode()
        elif word == b"--header":
            position += 1
            line = words[position].decode()
            if line.endswith(";") and ":" not in line:
                headers.append((line[:-1], ""))
            elif line.endswith(":") and line.count(":") == 1:
                suppressed.add(line[:-1].lower())
            else:
                name, _, value = line.partition(": ")
                headers.append((name, value))
        elif word == b"--data-binary":
            position += 1
            body = stdin if words[position] == b"@-" else words[position]
        else:
            assert not url and not word.startswith(b"-"), word
            url = word.decode()
        position += 1
    return Sent(method, url, headers, suppressed, body)


TOKEN = st.text(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#&+.^`|~", min_size=1, max_size=12
)
NAMES = st.one_of(
    st.sampled_from(
        [
            "Accept",
            "User-Agent",
            "Content-Type",
            "Host",
            "Content-Length",
            "Transfer-Encoding",
            "Keep-Alive",
            "Authorization",
            "X-Id",
            "ETag",
        ]
    ),
    TOKEN.map(lambda name: "X-" + name),
)
VALUE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0\r\n"), max_size=30).map(
    str.strip
)
TRICKY = "'\"$`\\ !*?[]{}();&|<>~#%\n\t"
TEXT = st.text(st.one_of(st.sampled_from(TRICKY), st.characters(exclude_categories=["Cs"])), max_size=60)
BODY = st.one_of(
    st.just(Body()),
    TEXT.map(lambda text: Body("text", text)),
    st.binary(max_size=80).map(lambda raw: Body("base64", base64.b64encode(raw).decode())),
    st.dictionaries(TEXT, st.one_of(TEXT, st.integers(), st.none()), max_size=3).map(
        lambda doc: Body("json", dict[str, JSONValue](doc))
    ),
    st.sampled_from(["@/etc/passwd", "@-", "%s%n\\x41", "$(touch /tmp/pwned)"]).map(
        lambda text: Body("text", text)
    ),
)
PATH = st.text(
    st.one_of(
        st.sampled_from("/[]{}$`'\"%;&*"),
        st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="?#"),
    ),
    max_size=30,
)
METHOD = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PURGE"])


@st.composite
def requests(draw: st.DrawFn) -> Request:
    headers: Headers = tuple((draw(NAMES), draw(VALUE)) for _ in range(draw(st.integers(0, 6))))
    query = draw(st.one_of(st.just(""), PATH))
    return Request(draw(METHOD), "/" + draw(PATH), query, headers, draw(BODY))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(requests())
def test_the_shell_gives_curl_the_recorded_request_exactly(recorder: Path, request_: Request) -> None:
    """Quotes, `$`, backticks, new lines, non-UTF-8 bytes, NUL and unicode all arrive as recorded."""
    command = curl_command(Exchange(request_, Response(200)), BASE + "/")
    sent = run(command, recorder)
    body = body_to_bytes(request_.body)
    expected = [(name, value) for name, value in request_.headers if name.lower() not in DROPPED]
    assert sent.method == request_.method
    assert sent.url == BASE + request_.target
    assert sent.headers == expected
    sent_names = {name.lower() for name, _ in expected}
    assert {"user-agent", "accept"} - sent_names <= sent.suppressed
    assert sent.body == (body if body or request_.method in ("POST", "PUT", "PATCH") else None)
    if sent.body is not None:
        assert "content-type" in sent_names | sent.suppressed


def test_a_binary_body_goes_through_posix_printf() -> None:
    """Every byte value, NUL included, reaches curl's standard input under a POSIX `sh` too."""
    raw = bytes(range(256)) * 2
    request_ = Request(
        "PUT",
        "/v2/files/1",
        "",
        (("Content-Type", "application/octet-stream"),),
        Body("base64", base64.b64encode(raw).decode()),
    )
    command = curl_command(Exchange(request_, Response(204)), BASE)
    assert command.startswith("printf ")
    assert "\0" not in command and "\x1b" not in command


def test_posix_sh_runs_the_printf_form(recorder: Path) -> None:
    """The printf form is POSIX: dash (Debian's sh) gives curl the same bytes as bash."""
    raw = bytes(range(256))
    request_ = Request(
        "POST",
        "/v2/x",
        "a[b]=1",
        (("Content-Type", "application/octet-stream"),),
        Body("base64", base64.b64encode(raw).decode()),
    )
    command = curl_command(Exchange(request_, Response(200)), BASE)
    assert run(command, recorder, shell="sh").body == raw


def test_redacted_values_stay_the_placeholder() -> None:
    """The command carries what the (redacted) exchange holds, and nothing more."""
    request_ = Request("GET", "/v2/orders", "", (("Authorization", "Bearer <redacted>"),))
    command = curl_command(Exchange(request_, Response(200)), BASE)
    assert "'Authorization: Bearer <redacted>'" in command
    assert command.endswith(f" {BASE}/v2/orders")


def test_a_terminal_escape_in_a_header_is_spelled_not_written() -> None:
    """A value holding ESC is written as an octal escape, never as the raw control byte."""
    request_ = Request("GET", "/", "", (("X-Note", "a\x1b[2Jb"),))
    command = curl_command(Exchange(request_, Response(200)), BASE)
    assert "\x1b" not in command
    assert "$'X-Note: a\\033[2Jb'" in command


def test_a_body_decoded_from_gzip_is_sent_without_its_content_encoding(recorder: Path) -> None:
    """The stored body is decoded, so the command does not claim it is gzip."""
    request_ = Request(
        "POST",
        "/v2/x",
        "",
        (("Content-Type", "text/plain"), ("Content-Encoding", "gzip")),
        Body("text", "hello", "gzip"),
    )
    sent = run(curl_command(Exchange(request_, Response(200)), BASE), recorder)
    assert sent.headers == [("Content-Type", "text/plain")]
    assert sent.body == b"hello"


@pytest.mark.parametrize("shell", ["bash", "sh"])
@pytest.mark.parametrize("raw", [b"-\x00", b"--\xff", b"-v x\x01", b"-%d\x00", b"-", b"\x00-"])
def test_a_body_starting_with_a_dash_is_not_read_as_an_option(recorder: Path, raw: bytes, shell: str) -> None:
    """printf reads a format starting with `-` as an option (bash's and dash's alike): found by the
    generator above as `-\\x00` arriving empty."""
    request_ = Request("GET", "/", "", (), Body("base64", base64.b64encode(raw).decode()))
    command = curl_command(Exchange(request_, Response(200)), BASE)
    assert run(command, recorder, shell=shell).body == raw
