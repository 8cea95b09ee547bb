"""Reading a cassette one exchange at a time (`check`): the same exchanges and errors as a whole load,
the parse cache filled on the way, and memory that does not grow with the cassette."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from proxy.core.cassette import document as cassette_format
from proxy.core.cassette.document import Cassette
from proxy.errors import CommerceProxyError
from proxy.store.cassette_folders import cassette_files
from proxy.store.cassette_reader import parse_cache, second_half, streaming, yaml_stream
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.cassette_reader.streaming import stream_cassette
from proxy.store.journal import JournalWriter, journal_path
from proxy.store.shipped import shipped_dir
from tests.conftest import json_body, make_exchange, make_request
from tests.paths import ROOT


@pytest.fixture(autouse=True)
def beside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries beside the cassettes (the default), for cassettes of any size."""
    monkeypatch.delenv("COMMERCE_PROXY_CACHE", raising=False)
    monkeypatch.setattr(parse_cache, "SMALLEST_CACHED", 0)


def exchanges(count: int) -> tuple:
    return tuple(
        make_exchange(
            make_request(query=f"page[offset]={number}"),
            body=json_body({"data": [{"id": str(number), "n": [number, 2.5, None, True]}]}),
        )
        for number in range(count)
    )


def written(tmp_path: Path, count: int = 5, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(cassette_format.dump_cassette(Cassette(exchanges(count), "http://127.0.0.1:9")))
    return path


def entry_of(path: Path) -> Path:
    return path.parent / ".commerce-proxy-cache" / f"{path.name}.json"


def streamed(path: Path) -> tuple:
    return tuple(stream_cassette(path).exchanges)


def whole(path: Path) -> tuple:
    """The whole-document parse, with no cache involved."""
    return cassette_format.parse_cassette(path.read_text(), str(path)).exchanges


def test_a_stream_reads_the_yaml_once_and_writes_an_entry_the_next_stream_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = written(tmp_path)
    assert streamed(path) == whole(path) == exchanges(5)
    assert entry_of(path).exists()

    def no_yaml(*arguments: object, **options: object) -> None:
        raise AssertionError("the YAML was read")

    monkeypatch.setattr(yaml_stream, "CassetteItems", no_yaml)
    monkeypatch.setattr(yaml_stream, "parse_cassette", no_yaml)
    monkeypatch.setattr(parse_cache, "RACY_NS", 0)  # old enough: the stat is trusted
    assert streamed(path) == exchanges(5)
    assert read_cassette_file(path).exchanges == exchanges(5)  # the whole load reads the same entry


def test_the_shipped_cassettes_stream_as_they_load(tmp_path: Path) -> None:
    for path in cassette_files(shipped_dir("cassettes")):
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        assert streamed(copy) == whole(copy), path.name


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda text: text.replace("cassette_format: 2\n", "cassette_format: 1\n"), id="format-1"
        ),
        pytest.param(  # the version after the list: known only at the end
            lambda text: text.replace("cassette_format: 2\n", "") + "cassette_format: 2\n", id="format-last"
        ),
        pytest.param(  # a merge key in the third exchange: PyYAML's constructor builds it
            lambda text: _nth(text, "- request:", 2, "- <<: {duration_ms: 1.5}\n  "),
            id="merge-key",
        ),
        pytest.param(lambda text: "%YAML 1.1\n---\n" + text, id="directive"),
        pytest.param(lambda text: text.replace("exchanges:\n", "exchanges: !!seq\n"), id="tagged-list"),
    ],
)
def test_what_streaming_does_not_build_is_read_whole_with_the_same_result(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.yaml"
    path.write_text(change(written(tmp_path, name="plain.yaml").read_text()))
    assert streamed(path) == whole(path)
    assert len(streamed(path)) == 5


def _nth(text: str, marker: str, number: int, insert: str) -> str:
    at = [match.start() for match in re.finditer(re.escape(marker), text)][number]
    return text[:at] + insert + text[at + 2 :]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda text: text.replace("method: GET", "method: 7", 1), id="first-exchange"),
        pytest.param(lambda text: _last(text, "status: 200", "status: two hundred"), id="last-exchange"),
        pytest.param(lambda text: _last(text, '"n"', '"n" oops'), id="bad-json"),
        pytest.param(lambda text: text + "exchanges: []\n", id="duplicate-key-at-end"),
        pytest.param(lambda text: text + "upstream2: [\n", id="broken-yaml-at-end"),
        pytest.param(lambda text: text.replace("upstream: http://127.0.0.1:9", "upstream: 9"), id="upstream"),
        pytest.param(lambda text: text.replace("cassette_format: 2", "cassette_format: 99"), id="newer"),
        pytest.param(lambda text: text.encode("utf-16"), id="utf-16"),
        pytest.param(lambda text: text.encode()[:-40] + b"\xff\xfe\n", id="not-utf-8"),
    ],
)
def test_a_broken_cassette_streams_the_whole_load_error(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Exchanges already handed out are not handed out again; the error is the whole parse's, with its
    line, and no entry is left behind."""
    path = tmp_path / "c.yaml"
    content = change(written(tmp_path, name="plain.yaml").read_text())
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CommerceProxyError) as expected:
        read_cassette_file(path)
    given = []
    with pytest.raises(CommerceProxyError) as got:
        for exchange in stream_cassette(path).exchanges:
            given.append(exchange)
    assert str(got.value) == str(expected.value)
    assert re.match(rf"{re.escape(str(path))}(:\d+)?: ", str(got.value))
    assert given == list(exchanges(len(given)))
    assert not entry_of(path).exists()
    assert not list(entry_of(path).parent.glob(".*.json.*")), "a temporary entry was left"


def _last(text: str, old: str, new: str) -> str:
    at = text.rindex(old)
    return text[:at] + new + text[at + len(old) :]


def test_an_entry_damaged_half_way_gives_the_rest_from_the_yaml(tmp_path: Path) -> None:
    path = written(tmp_path, count=6)
    streamed(path)
    entry = entry_of(path)
    lines = entry.read_bytes().splitlines(keepends=True)
    for damaged in (
        [*lines[:4], b"[not json\n", *lines[5:]],  # a broken line after three exchanges
        lines[:-1],  # no closing line: cut short
        [*lines[:-1], b'{"upstream":"http://127.0.0.1:9","count":5}\n'],  # the wrong count
        [*lines, b"[]\n"],  # a line after the closing one
    ):
        entry.write_bytes(b"".join(damaged))
        assert streamed(path) == exchanges(6)
        assert read_cassette_file(path).exchanges == exchanges(6)


def test_a_cassette_with_a_journal_is_recovered_first(tmp_path: Path) -> None:
    path = written(tmp_path, count=2)
    writer = JournalWriter(journal_path(path), "append", "http://127.0.0.1:9")
    writer.append(1, exchanges(3)[2])
    os.close(writer._fd)  # the recording died
    result = stream_cassette(path)
    assert tuple(result.exchanges) == exchanges(3)
    assert "recovered 1 exchanges" in result.notes[0]


def test_checking_a_cassette_ten_times_larger_takes_no_more_memory(tmp_path: Path) -> None:
    """`check` streams: its peak memory on 4,000 list pages of 4 KB is within 8 MB of that on 400, cold
    (YAML) and warm (cache), where loading the larger one whole from the cache takes 15 MB more."""
    sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))
    from loading import write_ours  # the benchmark's conformant pages: no findings pile up

    peaks = {}
    for count in (400, 4_000):
        path = tmp_path / f"c{count}.yaml"
        write_ours(path, count)
        shutil.rmtree(entry_of(path).parent)  # cold: the YAML is read
        check = ("check", "-q", "--format", "json", "-o", str(tmp_path / "r.json"), str(path))
        peaks[count] = [peak_kb(*check), peak_kb(*check)]
        assert json.loads((tmp_path / "r.json").read_text())["exchanges"] == count
    whole_load = peak_kb("cassette", "show", str(tmp_path / "c4000.yaml"), "0")
    for cold_or_warm in (0, 1):
        assert peaks[4_000][cold_or_warm] - peaks[400][cold_or_warm] < 8_000, peaks
    assert whole_load - peaks[4_000][1] > 15_000, (whole_load, peaks)


def peak_kb(*arguments: str) -> int:
    """The peak resident memory (KB) of `python -m proxy ARGS`, run in a child of a fresh child."""
    measure = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'proxy', *sys.argv[1:]], capture_output=True)\n"
        "assert done.returncode in (0, 1), done.stderr\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", measure, *arguments], capture_output=True, text=True, timeout=300, check=True
    )
    return int(done.stdout)


# --- the second half read by a forked child -------------------------------------------------------


@pytest.fixture
def split_small(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Small cassettes are split too; the list holds the split offset of each read that split."""
    monkeypatch.setattr(second_half, "SMALLEST_SPLIT", 0)
    splits: list[int] = []
    start = second_half.SecondHalf.start.__func__  # type: ignore[attr-defined]

    def recorded(
        cls: type, fd: int, size: int, share: float = second_half.SHARE
    ) -> second_half.SecondHalf | None:
        half = start(cls, fd, size, share)
        if half is not None:
            splits.append(half.split)
        return half

    monkeypatch.setattr(second_half.SecondHalf, "start", classmethod(recorded))
    return splits


def test_a_split_read_gives_the_whole_parse_and_its_entry(tmp_path: Path, split_small: list[int]) -> None:
    path = written(tmp_path, count=40)
    loaded = read_cassette_file(path)
    assert split_small and 0 < split_small[0] < path.stat().st_size
    assert loaded == Cassette(exchanges(40), "http://127.0.0.1:9")
    assert read_cassette_file(path) == loaded  # from the entry both halves wrote
    entry_of(path).unlink()
    assert streamed(path) == exchanges(40)
    assert len(split_small) == 2


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(  # the child meets a merge key: the file is read whole
            lambda text: _nth(text, "- request:", 35, "- <<: {duration_ms: 1.5}\n  "), id="merge-key"
        ),
        pytest.param(  # the split lands in another top-level list after the exchanges (refused, as whole)
            lambda text: text + "notes:\n" + "".join(f"- note {n}\n" for n in range(4000)), id="list-after"
        ),
        pytest.param(  # a key of the format after the exchanges
            lambda text: (
                text.replace("upstream: http://127.0.0.1:9\n", "") + "upstream: http://127.0.0.1:9\n"
            ),
            id="key-after",
        ),
        pytest.param(lambda text: text + "upstream2: http://127.0.0.1:1\n", id="other-key-after"),
        pytest.param(lambda text: text.replace("cassette_format: 2", "cassette_format: 1"), id="format-1"),
    ],
)
def test_what_the_split_read_does_not_take_is_read_whole(  # type: ignore[no-untyped-def]
    tmp_path: Path, split_small: list[int], change
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(change(written(tmp_path, count=40, name="plain.yaml").read_text()))
    assert outcome(lambda: read_cassette_file(path)) == outcome(
        lambda: cassette_format.parse_cassette(path.read_text(), str(path))
    )
    assert split_small, "the file was split"
    entry_of(path).unlink(missing_ok=True)
    assert outcome(lambda: streamed(path)) == outcome(lambda: whole(path))


def outcome(read: Any) -> Any:
    """What a read gives: its result, or its one-line refusal (a key outside the format)."""
    try:
        return read()
    except CommerceProxyError as error:
        return str(error)


def test_an_error_in_the_second_half_is_the_whole_parse_error(tmp_path: Path, split_small: list[int]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        _last(written(tmp_path, count=40, name="plain.yaml").read_text(), "status: 200", "status: x")
    )
    with pytest.raises(CommerceProxyError) as expected:
        cassette_format.parse_cassette(path.read_text(), str(path))
    with pytest.raises(CommerceProxyError) as got:
        read_cassette_file(path)
    assert str(got.value) == str(expected.value)
    assert split_small
    assert not entry_of(path).exists()


def test_without_a_fork_the_file_is_read_on_one_core(
    tmp_path: Path, split_small: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_fork() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    path = written(tmp_path, count=40)
    assert read_cassette_file(path) == Cassette(exchanges(40), "http://127.0.0.1:9")
    assert split_small == []


def test_a_child_that_never_finishes_is_killed_and_the_file_read_whole(
    tmp_path: Path, split_small: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(second_half, "PATIENCE_S", 0.3)
    monkeypatch.setattr(second_half, "_read_into", lambda *arguments: time.sleep(120))
    children: list[int] = []
    start = second_half.SecondHalf.start  # already recording splits (split_small)

    def remembered(fd: int, size: int, share: float = second_half.SHARE) -> second_half.SecondHalf | None:
        half = start(fd, size, share)
        if half is not None and half.child.pid is not None:
            children.append(half.child.pid)
        return half

    monkeypatch.setattr(second_half.SecondHalf, "start", remembered)
    path = written(tmp_path, count=40)
    began = time.monotonic()
    assert read_cassette_file(path) == Cassette(exchanges(40), "http://127.0.0.1:9")
    assert time.monotonic() - began < 30
    assert len(children) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie left
        os.waitpid(children[0], os.WNOHANG)


def test_a_read_error_half_way_is_one_line_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = written(tmp_path, count=40)
    original = yaml_stream._Hashing.read

    def failing(self: yaml_stream._Hashing, size: int = -1) -> bytes:
        if self.digest.name and getattr(self, "_calls", 0) >= 1:
            raise OSError(5, "Input/output error")
        self._calls = getattr(self, "_calls", 0) + 1  # type: ignore[attr-defined]
        return original(self, min(size, 64) if size > 0 else 64)

    monkeypatch.setattr(yaml_stream._Hashing, "read", failing)
    with pytest.raises(
        CommerceProxyError, match=rf"^{re.escape(str(path))}: cannot read: Input/output error$"
    ):
        read_cassette_file(path)
    assert not entry_of(path).exists()


def test_a_stream_gives_the_childs_exchanges_while_it_still_runs(
    tmp_path: Path, split_small: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child does not exit until this process has been given the last exchange, which it wrote: a
    check goes on with the child's exchanges as they come, instead of waiting for its whole part."""
    go_on = tmp_path / "go-on"
    read_into = second_half._read_into

    def then_wait(*arguments: object) -> None:
        read_into(*arguments)  # type: ignore[arg-type]
        deadline = time.monotonic() + 10
        while not go_on.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the last exchange was not taken while the child ran")
            time.sleep(0.005)

    monkeypatch.setattr(second_half, "_read_into", then_wait)
    whole_reads: list[Path] = []
    parsed_whole = yaml_stream.parsed_whole
    monkeypatch.setattr(
        yaml_stream, "parsed_whole", lambda path, state: whole_reads.append(path) or parsed_whole(path, state)
    )
    path = written(tmp_path, count=40)
    given = []
    for exchange in stream_cassette(path).exchanges:
        given.append(exchange)
        if len(given) == 40:
            go_on.touch()
    assert given == list(exchanges(40))
    assert split_small, "the file was split"
    assert whole_reads == []
    assert read_cassette_file(path) == Cassette(exchanges(40), "http://127.0.0.1:9")  # its entry is whole


def test_history_passes_over_unwanted_requests_before_the_split_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = written(tmp_path, count=8)
    streamed(path)  # fills the parse cache
    lines_read: list[bytes] = []
    read = parse_cache.CachedExchanges.exchange

    def counted(self: parse_cache.CachedExchanges, line: bytes) -> object:
        lines_read.append(line)
        return read(self, line)

    monkeypatch.setattr(parse_cache.CachedExchanges, "exchange", counted)
    asked: list[tuple[str, str, str]] = []

    def wanted(method: str, path: str, query: str) -> bool:
        asked.append((method, path, query))
        return query in {"page[offset]=1", "page[offset]=4"}

    given = list(streaming.stream_history(path, 6, wanted))
    assert [index for index, _ in given] == [1, 4, 6, 7]
    assert [exchange for _, exchange in given] == [exchanges(8)[index] for index in (1, 4, 6, 7)]
    assert len(lines_read) == 4  # the other four were never parsed
    assert asked == [("GET", "/v2/products", f"page[offset]={number}") for number in range(6)]


def test_history_reads_a_damaged_entry_from_the_yaml_and_a_journal_whole(tmp_path: Path) -> None:
    path = written(tmp_path, count=8)
    streamed(path)
    entry = entry_of(path)
    lines = entry.read_bytes().splitlines(keepends=True)
    entry.write_bytes(
        b"".join([*lines[:5], b'["x",1.0,["GET","/v2/products","page[offset]=4",\n', *lines[6:]])
    )

    def wanted(method: str, path: str, query: str) -> bool:
        return query == "page[offset]=4"

    given = list(streaming.stream_history(path, 6, wanted))
    assert [index for index, _ in given] == [4, 5, 6, 7]  # from the damaged line on, every exchange
    assert [exchange for _, exchange in given] == list(exchanges(8)[4:])
    writer = JournalWriter(journal_path(path), "append", "http://127.0.0.1:9")
    writer.append(1, exchanges(9)[8])
    os.close(writer._fd)  # the recording died
    assert [exchange for _, exchange in streaming.stream_history(path, 6, wanted)] == list(exchanges(9))
