"""A recording refused as it starts leaves nothing it made: whatever refuses it (`--mode once` over a
cassette that exists, another record holding the journal, a broken cassette to add to) and however the
cassette's path reaches its folder (new folders on the way, `..` through a folder that did not exist),
no folder, journal or file is left that was not there before."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from proxy.app.recording import RecordingSession, RecordSettings
from proxy.errors import CommerceProxyError, UsageError
from proxy.store.journal import JournalWriter, journal_path
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
SPELLINGS = ("cassettes/shop.yaml", "new/../cassettes/shop.yaml", "new/deeper/../../cassettes/shop.yaml")


def _tree(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def _exists(root: Path) -> None:
    shutil.copyfile(WALK, root / "cassettes" / "shop.yaml")


def _locked(root: Path) -> JournalWriter:
    _exists(root)
    return JournalWriter(journal_path(root / "cassettes" / "shop.yaml"), "append", None)


def _broken(root: Path) -> None:
    (root / "cassettes" / "shop.yaml").write_text("cassette_format: 2\nexchanges: [1, 2\n")


REFUSALS = {
    "once over an existing cassette": ("once", _exists),
    "journal held": ("new_episodes", _locked),
    "broken cassette": ("new_episodes", _broken),
}


@pytest.mark.parametrize(("refusal", "spelling"), list(itertools.product(REFUSALS, SPELLINGS)))
def test_a_refused_recording_leaves_nothing_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: str, spelling: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cassettes").mkdir()
    mode, make = REFUSALS[refusal]
    held = make(tmp_path)
    before = _tree(tmp_path)
    with pytest.raises((UsageError, CommerceProxyError)):
        RecordingSession(RecordSettings(upstream="http://127.0.0.1:9", cassette=Path(spelling), mode=mode))
    assert _tree(tmp_path) == before, refusal
    if isinstance(held, JournalWriter):
        held.close(remove=True)
