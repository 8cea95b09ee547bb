"""A full disk or a read-only cassette folder: a clear error at start or on the first failed write, an
answer no client can take for recorded, and no recorded exchange lost."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.journal import journal_path, read_journal
from tests.conftest import Serve
from tests.integration.server.upstream import create_upstream_app
from tests.reliability.figures import write_figure
from tests.running import commerce_proxy, run_commerce_proxy, stop_with

FILE_SIZE_LIMIT = 64 * 1024
REQUESTS = 200


def test_a_full_disk_at_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """No room for even the journal's first line: `record` refuses to start and says why."""
    cassette = tmp_path / "c.yaml"
    done = run_commerce_proxy(
        "record", "--upstream", "http://127.0.0.1:9", "--cassette", str(cassette), file_size_limit=0
    )
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert (
        line == f"commerce-proxy: error: {journal_path(cassette)}: cannot write the journal: File too large"
    )
    assert not cassette.exists() and journal_path(cassette).read_bytes() == b""


def test_a_device_or_fifo_where_a_file_belongs_is_refused(tmp_path: Path) -> None:
    """/dev/full as a journal, /dev/zero or a FIFO as a cassette: refused in one line, not read forever
    (a FIFO's open would wait for a writer; /dev/zero would fill memory)."""
    cassette, fifo = tmp_path / "c.yaml", tmp_path / "fifo.yaml"
    journal_path(cassette).symlink_to("/dev/full")
    os.mkfifo(fifo)
    runs = [
        (
            run_commerce_proxy("record", "--upstream", "http://127.0.0.1:9", "--cassette", str(cassette)),
            journal_path(cassette),
        ),
        (run_commerce_proxy("check", str(cassette)), journal_path(cassette)),
        (run_commerce_proxy("check", str(fifo)), fifo),
        (run_commerce_proxy("check", "/dev/zero"), Path("/dev/zero")),
    ]
    for done, named in runs:
        assert done.returncode == 2, done.stderr
        [line] = done.stderr.splitlines()
        assert line.startswith(f"commerce-proxy: error: {named}: not a regular file"), line


@pytest.fixture
def read_only_folder() -> Iterator[Path]:
    """A folder this user cannot write to, with a cassette in it (a shared checkout, a mounted volume)."""
    with tempfile.TemporaryDirectory() as parent:
        os.chmod(parent, 0o755)  # readable by the user the test may run as (below)
        folder = Path(parent, "cassettes")
        folder.mkdir()
        (folder / "old.yaml").write_text("cassette_format: 2\nexchanges: []\n", encoding="utf-8")
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        try:
            yield folder
        finally:
            folder.chmod(0o755)


# Root writes anywhere: as root the command runs in a user namespace as `nobody`, without that power.
AS_UNPRIVILEGED = ["unshare", "-U", "--map-user=65534", "--map-group=65534"] if os.geteuid() == 0 else []


def test_a_read_only_folder_is_refused_at_start_and_still_read(read_only_folder: Path) -> None:
    """`record` into a read-only folder stops at start with one line; `check` still reads it."""
    cassette = read_only_folder / "new.yaml"
    arguments = ("record", "--upstream", "http://127.0.0.1:9", "--cassette", str(cassette), "--port", "0")
    done = run_commerce_proxy(*arguments, prefix=AS_UNPRIVILEGED)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("commerce-proxy: error: ") and "Permission denied" in line, line
    assert str(read_only_folder) in line
    assert sorted(path.name for path in read_only_folder.iterdir()) == ["old.yaml"]
    checked = run_commerce_proxy("check", str(read_only_folder / "old.yaml"), prefix=AS_UNPRIVILEGED)
    assert checked.returncode == 0, checked.stderr


async def test_a_disk_that_fills_while_recording_loses_no_acknowledged_exchange(
    serve: Serve, tmp_path: Path
) -> None:
    """Writes fail past a size limit mid-recording: each unrecorded exchange is answered 507 (never as
    if recorded), the journal keeps every line whole, the failed cassette write names the journal, and
    the next command folds it in with every acknowledged exchange exactly once."""
    upstream = await serve(create_upstream_app())
    cassette = tmp_path / "full.yaml"
    answered: dict[int, str] = {}
    async with (
        commerce_proxy(
            "record", "--upstream", upstream, "--cassette", str(cassette), file_size_limit=FILE_SIZE_LIMIT
        ) as running,
        aiohttp.ClientSession() as session,
    ):
        for number in range(REQUESTS):
            async with session.post(
                f"{running.url}/fill/{number}", json={"n": number, "pad": "x" * 200}
            ) as answer:
                document = await answer.json()
                if answer.status == 507:
                    [error] = document["errors"]
                    answered[number] = "refused"
                    assert "cannot write the journal" in error["detail"], error
                    # the file size limit says so; a write that stopped short is not called a full disk
                    assert "File too large" in error["detail"] and "no room" not in error["detail"], error
                    assert error["detail"].endswith("this exchange is not recorded"), error
                else:
                    assert answer.status == 200 and document["raw_path"] == f"/fill/{number}"
                    answered[number] = "acknowledged"
        code, err = await stop_with(running, signal.SIGINT)
    acknowledged = [number for number, outcome in answered.items() if outcome == "acknowledged"]
    refused = len(answered) - len(acknowledged)
    assert acknowledged and refused, answered  # the limit was reached part way through
    assert acknowledged == list(range(len(acknowledged))), "after the first refusal, none was recorded"
    journaled = read_journal(journal_path(cassette))  # every line whole: it reads without a torn tail
    assert not journaled.torn_tail and len(journaled.exchanges) == len(acknowledged)
    assert code == 2 and not cassette.exists()
    lines = err.strip().splitlines()
    assert f"all {len(acknowledged)} recorded exchanges are kept in {journal_path(cassette)}" in lines[-1], (
        err
    )
    assert sum("cannot write the journal" in line for line in lines) == 1, err  # not once per request
    assert f"{refused} exchanges were not recorded" in err

    checked = run_commerce_proxy("check", str(cassette), "-q")
    assert checked.returncode in (0, 1) and "recovered" in checked.stderr, checked.stderr
    paths = [exchange.request.path for exchange in read_cassette_file(cassette).exchanges]
    assert paths == [f"/fill/{number}" for number in acknowledged]
    write_figure("disk_full_acknowledged_lost", 0, "acknowledged exchanges lost when the disk filled")
    print(f"disk full figures: {len(acknowledged)} acknowledged and recovered, {refused} answered 507")
    await asyncio.sleep(0)
