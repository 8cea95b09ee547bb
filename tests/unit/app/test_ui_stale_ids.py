"""An action names an exchange by a position that may have moved: whatever changes the cassette under
an open offline view (a `cassette delete` from the command line, an insert, a reorder, a rewrite of the
same length with its time put back), a delete or edit from the UI never changes an exchange the user
did not choose. The view notices a changed file before acting (size, time) and indexes it again; the
edit use case compares, under the cassette's lock, the exchange at the index with the one the view
indexed ("raced": the file changed after the view looked), and refuses with 409 either way."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.app import cassette_edits
from proxy.app.project_rules import project_rules
from proxy.app.traffic_view import offline_state, offline_view
from proxy.app.ui_action_cases import ActionSetting, Conflict, UiActions
from proxy.core.cassette.document import Cassette
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
CHOSEN = 1  # the cassette index of the exchange the user opens


def cli_delete_before(path: Path) -> None:
    cassette_edits.delete(cassette_edits.DeleteRequest(path, ("0",)))


def insert_before(path: Path) -> None:
    cassette = read_cassette_file(path)
    extra = cassette.exchanges[-1]
    extra = replace(extra, request=replace(extra.request, path="/v2/inserted"))
    save_cassette(path, Cassette((extra, *cassette.exchanges), cassette.upstream, cassette.confirmed_at))


def reorder(path: Path) -> None:
    cassette = read_cassette_file(path)
    moved = tuple(reversed(cassette.exchanges))
    save_cassette(path, Cassette(moved, cassette.upstream, cassette.confirmed_at))


def rewrite_same_length(path: Path) -> None:
    """One digit of the chosen exchange's recording time changed in place, the file's time put back:
    nothing a look at the file (size, time, inode) can see."""
    state = path.stat()
    text = path.read_text(encoding="utf-8")
    stamps = list(re.finditer(r"recorded_at: '?\d{4}-\d\d-\d\dT\d\d:\d\d:(\d)", text))
    digit = stamps[CHOSEN].start(1)
    changed = text[:digit] + str((int(text[digit]) + 1) % 6) + text[digit + 1 :]
    with path.open("r+", encoding="utf-8") as file:
        file.write(changed)
    os.utime(path, ns=(state.st_atime_ns, state.st_mtime_ns))
    assert path.stat().st_size == state.st_size and path.stat().st_ino == state.st_ino


CHANGES: list[Callable[[Path], None]] = [cli_delete_before, insert_before, reorder, rewrite_same_length]
ACTIONS: dict[str, Callable[[UiActions, int], object]] = {
    "delete": lambda actions, number: actions.delete(number),
    "edit": lambda actions, number: actions.edit(number, "resp.header.X-Note", "chosen"),
}


@pytest.mark.parametrize("raced", [False, True], ids=["noticed", "raced"])
@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__)
def test_no_action_changes_an_exchange_the_user_did_not_choose(
    tmp_path: Path, change: Callable[[Path], None], action: str, raced: bool
) -> None:
    path = tmp_path / "walk.yaml"
    shutil.copyfile(WALK, path)
    in_force = project_rules(tmp_path)
    view = offline_view([path], in_force, cache=False)
    actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
    number = CHOSEN + 1  # ids count from 1 in the order indexed
    assert view.stored(number)[0]["index"] == CHOSEN  # type: ignore[index]
    change(path)
    if raced:  # changed after the view looked at its file: only the check under the lock sees it
        view.state = offline_state(view)
    after_change = path.read_bytes()
    with pytest.raises(Conflict, match="the cassette changed since it was indexed; reload"):
        ACTIONS[action](actions, number)
    assert path.read_bytes() == after_change  # nothing written
    assert view.state == offline_state(view)  # indexed again: the page reloads what is there now
    view.close()


def test_an_unchanged_cassette_is_edited_at_the_exchange_chosen(tmp_path: Path) -> None:
    path = tmp_path / "walk.yaml"
    shutil.copyfile(WALK, path)
    in_force = project_rules(tmp_path)
    view = offline_view([path], in_force, cache=False)
    actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
    actions.edit(CHOSEN + 1, "resp.header.X-Note", "chosen")
    notes = [dict(exchange.response.headers).get("X-Note") for exchange in read_cassette_file(path).exchanges]
    assert notes[CHOSEN] == "chosen" and notes.count("chosen") == 1
    view.close()
