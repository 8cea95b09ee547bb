"""What a cassette may say: every field set to values outside its domain (docs/cassette-format.md), built
by loops, through every reader (the fast readers, the whole-document parse, the journal fold and a
planted parse cache entry) and `check`: one error line naming the file and the field, exit 2; replay
never sends an answer outside the domain."""

from __future__ import annotations

import contextlib
import io
import json
import math
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette, dump_cassette
from proxy.core.model.domain import _first_fault, _inside
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.server.answers import _build
from proxy.server.wire import Outgoing
from proxy.store.cassette_reader import loading, parse_cache, streaming
from tests.reliability.figures import write_figure
from tests.running import refusal_lines

RECORDED_AT = "2026-01-02T03:04:05.678901Z"
GOOD = Exchange(
    Request("GET", "/v2/brands", "page[limit]=1", (("Accept", "application/json"),)),
    Response(200, (("X-Good", "ok"),), Body("json", {"data": []}), reason="Fine"),
    RECORDED_AT,
    12.5,
)


def _stamp(offset: timedelta) -> str:
    return (datetime.now(UTC) + offset).isoformat().replace("+00:00", "Z")


def _statuses() -> Iterator[str]:
    yield from (str(status) for status in range(0, 200))  # nothing below 200 is a final answer
    yield from (str(status) for status in (600, 601, 699, 700, 999, 1000, 10**6, 10**40))
    yield from ("-1", "-200", "200.0", "200.5", ".inf", ".nan", "'200'", "two hundred", "true", "null", "[]")


def _durations() -> Iterator[str]:
    yield from (".inf", "-.inf", ".nan", "-.nan", "-1", "-0.001", "600000.001", "600001", "1e300")
    yield from (str(10**400), "'12'", "twelve", "true", "[]", "{}")


def _recorded_ats() -> Iterator[str]:
    yield from ("2026-01-01", "''", "garbage", "'2026-01-01T00:00:00'", "'2026-01-01 00:00:00Z'")
    yield from ("'2026-01-01T00:00Z'", "'2026-13-01T00:00:00Z'", "'2026-02-30T00:00:00Z'")
    yield from ("'2026-01-01T24:00:00Z'", "'2026-01-01T00:60:00Z'", "'2026-01-01T00:00:61Z'")
    yield from ("'2026-01-01T00:00:00+25:00'", "'2026-01-01T00:00:00+0100'", "'2026-01-01T00:00:00 Z'")
    yield from (
        "'0000-01-01T00:00:00Z'",
        "'\uff12\uff10\uff12\uff16-01-01T00:00:00Z'",
        "'2026-01-01T00:00:00.Z'",
        "12345",
    )
    yield from ("'9999-12-31T23:59:59Z'", f"'{_stamp(timedelta(days=1))}'", f"'{_stamp(timedelta(hours=1))}'")
    yield from (f"'{_stamp(timedelta(minutes=30))}'", f"'{_stamp(timedelta(days=400))}'", "true", "[]")


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar: \\r, \\n, \\u0000 as escapes, and one past U+FFFF as \\U0001f600."""
    return "".join(
        json.dumps(char)[1:-1] if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}" for char in f"{text}"
    ).join('""')


CONTROLS = [chr(code) for code in (*range(0, 9), *range(10, 32), 127)]
C1_CONTROLS = [chr(code) for code in range(0x80, 0xA0)]
# Past Latin-1, a header value or reason cannot go out one byte a character, as it reads.
PAST_LATIN_1 = ["\u2028", "\u2029", "\u0100", "\u200b", "\ufeff", "\u20ac", "\U0001f600"]
# Not printable: a path or query holding one would be shown or read as something else.
UNPRINTABLE = ["\u2028", "\u2029", "\u00a0", "\u00ad", "\u200b", "\u200e", "\ufeff", "\u3000"]


def _cases() -> Iterator[tuple[str, str, str, str]]:
    """(field, the line in GOOD's layout, the line put in its place, what the error names)."""
    for value in _statuses():
        yield "status", "    status: 200\n", f"    status: {value}\n", "status"
    for value in _durations():
        yield "duration", "  duration_ms: 12.5\n", f"  duration_ms: {value}\n", "duration_ms"
    for value in _recorded_ats():
        yield "recorded_at", f"- recorded_at: '{RECORDED_AT}'\n", f"- recorded_at: {value}\n", "recorded_at"
    for control in CONTROLS:
        reason = _quoted(f"OK{control}\r\nSet-Cookie: forged=1" if control == "\r" else f"OK{control}x")
        yield "reason", "    reason: Fine\n", f"    reason: {reason}\n", "reason"
        value = _quoted(f"ok{control}Set-Cookie: forged=1")
        yield "header value", "      X-Good: ok\n", f"      X-Good: {value}\n", "X-Good"
    for char in PAST_LATIN_1:  # bytes 0x80-0xFF (obs-text, C1 included) are kept: a UTF-8 value's bytes
        yield "reason", "    reason: Fine\n", f"    reason: {_quoted(f'OK{char}x')}\n", "reason"
        yield "header value", "      X-Good: ok\n", f"      X-Good: {_quoted(f'ok{char}x')}\n", "X-Good"
    for char in (*C1_CONTROLS, *UNPRINTABLE):
        yield "path", "    path: /v2/brands\n", f"    path: {_quoted(f'/v2/{char}brands')}\n", "path"
        yield (
            "query",
            "    query: page[limit]=1\n",
            f"    query: {_quoted(f'page[limit]=1{char}')}\n",
            "query",
        )
    for name in ("X Good", "X:Good", "X-Gööd", "X\r\nSet-Cookie", "(X)", "X/Y", "X@Y", "X,Y"):
        yield "header name", "      X-Good: ok\n", f"      {_quoted(name)}: ok\n", "headers"
    for method in ("GET / HTTP/1.1", "G\tET", "GET\r\n", "\uff27\uff25\uff34", "G(E)T", "", "7"):
        yield (
            "method",
            "    method: GET\n",
            f"    method: {_quoted(method) if method != '7' else 7}\n",
            "method",
        )
    for target in ("v2/brands", "http://evil.example/x", "/a b", "/a\r\nX: y", "/a\x00", "", "*"):
        yield "path", "    path: /v2/brands\n", f"    path: {_quoted(target)}\n", "path"


CASES = list(_cases())


def _layouts(text: str) -> dict[str, str]:
    """The same cassette as the fast readers read it (format 2) and as only the whole-document parse
    does (format 1, which migrates)."""
    format_1 = text.replace("cassette_format: 2", "cassette_format: 1")
    format_1 = format_1.replace(
        '    json: |\n      {\n        "data": []\n      }\n', "    json: {data: []}\n"
    )
    return {"fast readers": text, "whole parse": format_1}


def _check(path: Path) -> tuple[int, list[str]]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        code = main(["check", str(path), "-q"])
    return code, stderr.getvalue().splitlines()


def test_the_good_cassette_is_read_in_every_layout(tmp_path: Path) -> None:
    """The base every case changes one line of: good in each layout, and each line it changes is there."""
    text = dump_cassette(Cassette((GOOD,)))
    for where, layout in _layouts(text).items():
        path = tmp_path / "good.yaml"
        path.write_text(layout, encoding="utf-8")
        assert _check(path)[0] in (0, 1), where
        assert loading.read_cassette_file(path).exchanges == (GOOD,), where
    for _, old, _, _ in CASES:
        assert text.count(old) == 1, old


def test_every_field_outside_its_domain_is_one_error_line_in_every_reader(tmp_path: Path) -> None:
    """Each field set to many values outside its domain, in both layouts and folded in from a journal:
    `check` exits 2 with one line naming the file and the field."""
    text = dump_cassette(Cassette((GOOD,)))
    runs = 0
    for number, (field, old, new, named) in enumerate(CASES):
        bad = text.replace(old, new)
        for where, layout in _layouts(bad).items():
            path = tmp_path / f"{number}-{where.replace(' ', '-')}.yaml"
            path.write_text(layout, encoding="utf-8")
            code, lines = _check(path)
            runs += 1
            assert code == 2 and len(lines) == 1, (field, new, where, code, lines)
            assert lines[0].startswith(f"commerce-proxy: error: {path}:"), (field, new, where, lines)
            assert named in lines[0], (field, new, where, lines)
        runs += 1
        assert _journal_fold_refused(tmp_path / f"{number}-journal.yaml", bad, named), (field, new)
    print(f"cassette domain: {len(CASES)} values outside their field's domain, {runs} reader runs")
    write_figure("cassette_domain_cases", len(CASES), "values outside a cassette field's domain, refused")
    write_figure(
        "cassette_domain_runs", runs, "reader runs of them (fast readers, whole parse, journal fold)"
    )


def _journal_fold_refused(path: Path, bad_text: str, named: str) -> bool:
    """A journal whose one exchange is `bad_text`'s, beside an empty cassette: the fold refuses it."""
    import yaml

    document = yaml.safe_load(bad_text.replace("2026-01-01\n", "'2026-01-01'\n"))
    item = document["exchanges"][0]
    for side in ("request", "response"):
        if isinstance(item[side].get("json"), str):
            item[side]["json"] = json.loads(item[side]["json"])
    path.write_text("cassette_format: 2\nexchanges: []\n", encoding="utf-8")
    header = {"commerce_proxy_journal": 1, "mode": "append", "upstream": None}
    line = json.dumps({"seq": 0, "exchange": item}, default=str, allow_nan=True)
    if "Infinity" in line or "NaN" in line:
        named = "not a JSON line"  # JSON has no infinity: the line is refused before its fields
    journal = path.with_name(path.name + ".journal")
    journal.write_text(json.dumps(header) + "\n" + line + "\n", encoding="utf-8")
    code, lines = _check(path)
    return code == 2 and len(lines) == 1 and named in lines[0] and journal.exists()


def _planted(exchange: list[object], field: str, value: object) -> list[object]:
    """An entry line's exchange with one field replaced (the layout `cache_line.entry_line` writes)."""
    request, response = list(exchange[2]), list(exchange[3])  # type: ignore[call-overload]
    changed = [exchange[0], exchange[1], request, response]
    if field == "recorded_at":
        changed[0] = value
    elif field == "duration":
        changed[1] = value
    elif field == "status":
        response[0] = value
    elif field == "reason":
        response[1] = value
    elif field == "header value":
        response[2] = ["X-Good", value]
    elif field == "header name":
        response[2] = [value, "ok"]
    elif field == "method":
        request[0] = value
    elif field == "query":
        request[2] = value
    else:
        request[1] = value
    return changed


def _entry_values() -> Iterator[tuple[str, object]]:
    """Values outside each field's domain that a JSON entry line can hold."""
    for field, _, new, _ in CASES:
        scalar = new.split(": ", 1)[1].strip() if field != "header name" else new.strip()[:-4]
        try:
            value = json.loads(scalar.replace("'", '"')) if "\\U" not in scalar else yaml.safe_load(scalar)
        except ValueError:
            value = {".inf": 1e308 * 10, "-.inf": -1e308 * 10, "2026-01-01": "2026-01-01"}.get(scalar, scalar)
        if isinstance(value, float) and not math.isfinite(value):
            continue  # orjson writes NaN and infinities as null, which is inside the domain
        yield field, value


def test_a_planted_parse_cache_entry_is_judged_like_the_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache entry (a shared cache folder, say) with a field outside its domain is a miss: every reader
    of the cache gives the YAML's exchange, never the planted one."""
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)
    monkeypatch.setenv("COMMERCE_PROXY_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "cached.yaml"
    path.write_text(dump_cassette(Cassette((GOOD,))), encoding="utf-8")
    assert loading.read_cassette_file(path).exchanges == (GOOD,)
    (entry,) = (tmp_path / "cache").glob("*.json")
    key, line, closing = entry.read_bytes().splitlines(keepends=True)
    assert loading.read_cassette_file(path).exchanges == (GOOD,)  # warm: from the entry
    planted = 0
    for field, value in _entry_values():
        try:
            bad = orjson.dumps(_planted(orjson.loads(line), field, value), option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:
            continue  # an integer over 64 bits: an entry cannot hold it
        planted += 1
        for read in (
            lambda: parse_cache.cached_cassette(path, parse_cache.file_state(path)),
            lambda: loading.read_cassette_file(path),
            lambda: Cassette(tuple(streaming.stream_cassette(path).exchanges)),
        ):
            entry.write_bytes(key + bad + closing)  # each reader finds it planted (a miss rewrites it)
            assert read() in (None, Cassette((GOOD,))), (field, value)
    assert planted > 300
    write_figure("cassette_domain_planted", planted, "planted parse cache entries outside the domain, missed")


def test_replay_never_builds_an_answer_outside_the_domain() -> None:
    """The answer builder and the wire's answer refuse what the loader refuses, as a second line."""
    refused = 0
    for status in (*range(0, 200), 600, 1000, -1):
        response = Response(status, (), Body("text", "HTTP/1.1 200 OK\r\nSet-Cookie: forged=1\r\n\r\n"))
        built = _build(response, None, "http://127.0.0.1:1")
        assert built.status == 500 and b"forged" not in built.head + built.body, status
        with pytest.raises(ValueError, match="outside the cassette format"):
            Outgoing(status, (), b"")
        refused += 1
    for control in CONTROLS:
        for response in (
            Response(200, (("X-Good", f"a{control}b"),)),
            Response(200, ((f"X{control}Good", "a"),)),
            Response(200, (), reason=f"OK{control}Set-Cookie: forged=1"),
        ):
            built = _build(response, None, "http://127.0.0.1:1")
            assert built.status == 500 and b"forged" not in built.head, response
            with pytest.raises(ValueError, match="outside the cassette format"):
                Outgoing(response.status, response.headers, b"", response.reason)
            refused += 1
    assert refused > 250


def test_replay_never_sends_a_character_past_latin_1_and_sends_obs_text_as_recorded() -> None:
    """What cannot go out one byte a character as it reads is never put on the wire; obs-text (bytes
    0x80-0xFF, the bytes of a UTF-8 value among them) goes out as the bytes it stands for."""
    for char in [*C1_CONTROLS, "\xe2\x82\xac", "\xa0", "\xff"]:
        response = Response(
            200, (("Content-Disposition", f"attachment; filename=a{char}b"),), reason=f"OK{char}"
        )
        built = _build(response, None, "http://127.0.0.1:1")
        assert built.status == 200 and f"a{char}b".encode("latin-1") in built.head
        assert f"OK{char}".encode("latin-1") in built.head
    refused = 0
    for char in PAST_LATIN_1:
        for response in (Response(200, (("X-Good", f"a{char}b"),)), Response(200, (), reason=f"OK{char}")):
            built = _build(response, None, "http://127.0.0.1:1")
            assert built.status == 500 and char.encode("latin-1", "replace") not in built.head, response
            with pytest.raises(ValueError, match="outside the cassette format"):
                Outgoing(response.status, response.headers, b"", response.reason)
            refused += 1
    assert refused == 2 * len(PAST_LATIN_1)


def test_what_http_allows_is_read_and_replayed_exactly(tmp_path: Path) -> None:
    """Inside the domain: obs-text (U+00A0-U+00FF) in a header value and a reason, sent as those bytes;
    a printable character past ASCII in a path; a leap second and a lower-case `t` and `z`."""
    obs_text = "".join(chr(code) for code in range(0xA0, 0x100))
    stamps = ("2016-12-31T23:59:60Z", "2026-01-02t03:04:05z", "2026-01-02T03:04:05.5+01:00")
    for stamp in stamps:
        response = Response(200, (("X-Good", f"a {obs_text}\tb"),), reason=f"Fine {obs_text}")
        exchange = Exchange(Request("GET", "/v2/caf\u00e9/\U0001f600", "q=\u00e9"), response, stamp, 1.0)
        path = tmp_path / "inside.yaml"
        path.write_text(dump_cassette(Cassette((exchange,))), encoding="utf-8")
        assert _check(path)[0] in (0, 1), stamp
        assert loading.read_cassette_file(path).exchanges == (exchange,), stamp
        built = _build(response, None, "http://127.0.0.1:1")
        assert built.status == 200 and f"a {obs_text}\tb".encode("latin-1") in built.head
        assert f" 200 Fine {obs_text}\r\n".encode("latin-1") in built.head


def test_the_issue_examples_through_the_command_line(tmp_path: Path) -> None:
    """The issue's examples as a user meets them: `check` and `replay` exit 2 with one line, no
    traceback; replay does not start on them."""
    text = dump_cassette(Cassette((GOOD,)))
    examples = {
        "status-100": text.replace("    status: 200\n", "    status: 100\n"),
        "duration-inf": text.replace("  duration_ms: 12.5\n", "  duration_ms: .inf\n"),
        "recorded-at-a-date": text.replace(f"'{RECORDED_AT}'", "2026-01-01"),
        "recorded-at-future": text.replace(RECORDED_AT, _stamp(timedelta(days=30))),
    }
    for name, content in examples.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(content, encoding="utf-8")
        for arguments in (["check", str(path)], ["replay", "--cassette", str(path), "--port", "0"]):
            code, lines, stderr = refusal_lines(*arguments)
            assert code == 2 and len(lines) == 1, (name, arguments[0], stderr[-2000:])
            assert lines[0].startswith(f"commerce-proxy: error: {path}:"), (name, lines)
            assert "Traceback" not in stderr


def test_a_recording_just_made_is_inside_the_domain() -> None:
    """The clock skew allowance: a recording made now (or a few seconds ahead) is read."""
    from proxy.core.model.domain import exchange_fault

    for offset in (timedelta(0), timedelta(seconds=-5), timedelta(seconds=30), timedelta(minutes=4)):
        stamp = _stamp(offset)
        assert exchange_fault(Exchange(GOOD.request, GOOD.response, stamp, 0.0), time.time()) is None, stamp


TEXT = st.text(alphabet="aZ09-/:?= \t\r\n\x00\x0b\x7fé\x85\x9b\xa0\xad\u2028\u0100😀", max_size=6)
BODIES = st.sampled_from([Body(), Body("base64", "aGVsbG8="), Body("text", "x")]) | st.builds(
    lambda text: Body("base64", text), st.text(alphabet="aGV=sb/+ \n!é", max_size=9)
)


@settings(max_examples=2000, derandomize=True, database=None, deadline=None)
@given(
    method=TEXT | st.sampled_from(["GET", "get", "PUT"]),
    path=TEXT.map(lambda text: "/" + text) | TEXT,
    query=TEXT,
    headers=st.lists(st.tuples(TEXT | st.just("X-A"), TEXT), max_size=3),
    status=st.integers(-5, 700),
    reason=st.none() | TEXT,
    stamp=st.none()
    | st.sampled_from([RECORDED_AT, "2026-02-29T00:00:00Z", "2024-02-29T23:59:59+23:59"])
    | TEXT,
    duration=st.none() | st.floats(allow_nan=True) | st.integers(-5, 10**7),
    bodies=st.tuples(BODIES, BODIES),
)
def test_the_fast_judgement_agrees_with_the_field_by_field_search(
    method: str,
    path: str,
    query: str,
    headers: list[tuple[str, str]],
    status: int,
    reason: str | None,
    stamp: str | None,
    duration: float | None,
    bodies: tuple[Body, Body],
) -> None:
    """`exchange_fault` says an exchange is inside its domain at once only when each field is."""
    response = Response(status, tuple(headers), bodies[1], reason=reason)
    request = Request(method, path, query, tuple(headers), bodies[0])
    exchange = Exchange(request, response, stamp, duration)
    now = time.time()
    assert _inside(exchange, now) == (_first_fault(exchange, now) is None)
