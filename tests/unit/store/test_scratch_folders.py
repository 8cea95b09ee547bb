"""scratch_folder: gone when its block ends; the next one sweeps a folder whose run is gone (its lock
free, or lockless and old), never a live run's, a young lockless one, another prefix's or a non-folder."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from proxy.store.scratch_folders import GRACE_SECONDS, HELD, SWEPT_PER_RUN, scratch_folder


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_run_sweeps_what_gone_runs_left_and_nothing_else(temporary: Path) -> None:
    gone = []
    for index in range(SWEPT_PER_RUN + 2):  # as a SIGKILLed run leaves it: its lock file free
        folder = temporary / f"commerce-proxy-demo-gone{index}"
        folder.mkdir()
        (folder / HELD).touch()
        (folder / "demo.yaml").write_text("x")
        gone.append(folder)
    old = temporary / "commerce-proxy-demo-older"  # an older version's, lockless, long untouched
    old.mkdir()
    os.utime(old, (time.time() - 2 * GRACE_SECONDS,) * 2)
    young = temporary / ".commerce-proxy-demo-young"  # being made
    young.mkdir()
    kept = [young, temporary / "commerce-proxy-fuzz-other", temporary / "commerce-proxy-demo-file"]
    kept[1].mkdir()
    kept[2].touch()
    with scratch_folder("commerce-proxy-demo-") as (live, _):
        assert len({*gone, old} - set(temporary.iterdir())) == SWEPT_PER_RUN  # bounded per run
        with scratch_folder("commerce-proxy-demo-") as (second, _):
            assert live.exists() and second.exists()  # a live run's is never swept
        assert not second.exists() and set(temporary.iterdir()) == {*kept, live}
    assert set(temporary.iterdir()) == set(kept)
