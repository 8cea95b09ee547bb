"""What a cassette may say, continued: a `base64:` body is strict base64 in every reader, and a header
value or reason is what goes out as it reads (tested with the other fields in test_cassette_domain);
and fidelity: a JSON body repeating a key is kept as its text and replayed byte for byte."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette, dump_cassette, parse_cassette
from proxy.core.cassette.journal_line import journal_line, parse_json_line
from proxy.core.model.bodies import body_from_bytes, body_to_bytes
from proxy.core.model.domain import base64_problem, exchange_fault
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.errors import CassetteFormatError
from proxy.server.answers import _build
from proxy.store.cassette_reader import loading
from tests.reliability.figures import write_figure
from tests.running import refusal_lines

GOOD_BASE64 = base64.b64encode(b"hello, binary \x00\xff world").decode("ascii")
GOOD = Exchange(
    Request("GET", "/v2/files"),
    Response(200, (("Content-Type", "application/octet-stream"),), Body("base64", GOOD_BASE64)),
    "2026-01-02T03:04:05Z",
    1.0,
)


def _invalid_base64() -> Iterator[str]:
    """Strings that are not strict base64: padding wrong, characters outside the alphabet, garbage in."""
    for length in range(1, 9):
        encoded = base64.b64encode(bytes(range(length))).decode("ascii")
        bare = encoded.rstrip("=")
        if bare != encoded:
            yield bare  # padding left off
            yield encoded + "="  # one too many
        yield encoded + "=="
        yield "=" + encoded
        if len(bare) > 1:
            yield bare[:-1]  # a length no base64 has
    for char in "!@#$%^&*()-_.,;:?~`'\"<>[]{}|\\é\u00a0\u2028\x85\x00\x7f":
        for at in (0, 4, len(GOOD_BASE64) - 1):
            yield GOOD_BASE64[:at] + char + GOOD_BASE64[at:]
    yield from (
        "!!!!",
        "====",
        "a",
        "ab=",
        "abc==",
        "a===",
        "aGVsbG8",
        "aGVs=bG8=",
        "-_-_",
        "aGVsbG8=garbage",
    )


INVALID = list(dict.fromkeys(_invalid_base64()))


def _check(path: Path) -> tuple[int, list[str]]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        code = main(["check", str(path), "-q"])
    return code, stderr.getvalue().splitlines()


def test_every_invalid_base64_body_is_one_error_line_in_every_reader(tmp_path: Path) -> None:
    """Each invalid string as a response's and a request's `base64:` body: `check` (the fast readers and
    the journal fold) exits 2 with one line naming the field; loading refuses it; replay never sends it."""
    text = dump_cassette(Cassette((GOOD,)))
    assert f"    base64: {GOOD_BASE64}\n" in text
    runs = 0
    for number, bad in enumerate(INVALID):
        assert base64_problem(bad) is not None, bad
        scalar = json.dumps(bad)
        for side, changed in (
            ("response", text.replace(f"    base64: {GOOD_BASE64}\n", f"    base64: {scalar}\n")),
            (
                "request",
                text.replace("    path: /v2/files\n", f"    path: /v2/files\n    base64: {scalar}\n"),
            ),
        ):
            path = tmp_path / f"{number}-{side}.yaml"
            path.write_text(changed, encoding="utf-8")
            code, lines = _check(path)
            assert code == 2 and len(lines) == 1, (bad, side, code, lines)
            assert lines[0].startswith(f"commerce-proxy: error: {path}:"), (bad, lines)
            assert f"{side}.base64" in lines[0], (bad, lines)
            with pytest.raises(CassetteFormatError):
                loading.read_cassette_file(path)
            journal = path.with_name(path.name + ".journal")
            exchange = json.loads(journal_line(0, GOOD))["exchange"]
            exchange[side]["base64"] = bad
            header = {"commerce_proxy_journal": 1, "mode": "append", "upstream": None}
            journal.write_text(f"{json.dumps(header)}\n{json.dumps({'seq': 0, 'exchange': exchange})}\n")
            path.write_text("cassette_format: 2\nexchanges: []\n", encoding="utf-8")
            code, lines = _check(path)
            assert code == 2 and len(lines) == 1 and f"{side}.base64" in lines[0], (bad, side, lines)
            runs += 2
        built = _build(Response(200, (), Body("base64", bad)), None, "http://127.0.0.1:1")
        assert built.status == 500, bad
    write_figure("cassette_base64_invalid", len(INVALID), "invalid base64 bodies, refused by every reader")
    print(f"base64 domain: {len(INVALID)} invalid strings, {runs} reader runs")


def test_the_issue_base64_examples_through_the_command_line(tmp_path: Path) -> None:
    """`check` and `replay` as a user meets them: one line, exit 2, no traceback."""
    text = dump_cassette(Cassette((GOOD,)))
    for name, bad in (("padding", "aGVsbG8"), ("bangs", "!!!!")):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text.replace(GOOD_BASE64, json.dumps(bad)), encoding="utf-8")
        for arguments in (["check", str(path)], ["replay", "--cassette", str(path), "--port", "0"]):
            code, lines, stderr = refusal_lines(*arguments)
            assert code == 2 and len(lines) == 1, (name, arguments[0], stderr[-2000:])
            assert "response.base64" in lines[0] and "Traceback" not in stderr, lines


@pytest.mark.parametrize("size", [0, 1, 2, 3, 57, 300, 5000])
def test_valid_base64_is_read_folded_or_not_and_served_exactly(tmp_path: Path, size: int) -> None:
    """Strict base64 is inside the domain, with the blanks a YAML writer folds a long line at."""
    raw = bytes((i * 7) % 256 for i in range(size))
    encoded = base64.b64encode(raw).decode("ascii")
    folded = " ".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))
    for value in (encoded, folded, folded.replace(" ", "\n")):
        body = Body("base64", value)
        assert base64_problem(value) is None and body_to_bytes(body) == raw
        exchange = Exchange(GOOD.request, Response(200, (), body), GOOD.recorded_at, 1.0)
        assert exchange_fault(exchange, None) is None
    path = tmp_path / "good.yaml"
    exchange = Exchange(GOOD.request, Response(200, (), Body("base64", encoded)), GOOD.recorded_at, 1.0)
    path.write_text(dump_cassette(Cassette((exchange,))), encoding="utf-8")
    assert body_to_bytes(loading.read_cassette_file(path).exchanges[0].response.body) == raw


KEYS = st.sampled_from(["a", "b", "id", "é", ""])
SCALARS = st.sampled_from(["1", "-0", "1.50", "true", "null", '"x"', '"\\u00e9"', "[]", "{}", "2"])


def _object(members: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{json.dumps(key)}:{value}" for key, value in members) + "}"


@st.composite
def _repeating(draw: st.DrawFn) -> str:
    """A JSON text with one object, at any depth, naming a key twice (the rest drawn around it)."""
    key = draw(KEYS)
    inner = [(key, draw(SCALARS)), *[(draw(KEYS), draw(SCALARS)) for _ in range(draw(st.integers(0, 2)))]]
    inner.insert(draw(st.integers(1, len(inner))), (key, draw(SCALARS)))
    text = _object(inner)
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            text = "[" + ",".join([*draw(st.lists(SCALARS, max_size=2)), text]) + "]"
        else:
            text = _object(
                [*[(k, "0") for k in draw(st.lists(st.sampled_from(["p", "q"]), max_size=1))], ("w", text)]
            )
    return text if draw(st.booleans()) else text.replace(",", ", ")


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(text=_repeating())
def test_a_json_body_repeating_a_key_is_kept_as_its_text_and_replayed_exactly(text: str) -> None:
    """Recording keeps such a body as `text:` (a document would keep one member); the cassette, the
    journal and replay give back its bytes."""
    raw = text.encode("utf-8")
    for headers in ((("Content-Type", "application/json"),), (("Content-Type", "application/vnd.x+json"),)):
        body = body_from_bytes(raw, headers)
        assert body.kind == "text" and body_to_bytes(body) == raw, text
        exchange = Exchange(GOOD.request, Response(200, headers, body), GOOD.recorded_at, 1.0)
        again = parse_cassette(dump_cassette(Cassette((exchange,))), "dup.yaml").exchanges[0]
        assert body_to_bytes(again.response.body) == raw, text
        line = parse_json_line(journal_line(0, exchange))
        assert line["exchange"]["response"]["text"] == text
        built = _build(again.response, None, "http://127.0.0.1:1")
        assert built.status == 200 and built.body == raw, text
