"""An action names an exchange by a position that may have moved: whatever changes the cassette under
an open offline view (a `cassette delete` from the command line, an insert, a reorder, a rewrite of the
same length with its time put back), a delete or edit from the UI never changes an exchange the user
did not choose. The view notices a changed file before acting (size, time) and indexes it again; the
edit use case compares, under the cassette's lock, the exchange at the index with the one the view
indexed ("raced": the file changed after the view looked), and refuses with 409 either way."""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from proxy.app import cassette_edits
from proxy.app.project_rules import project_rules
from proxy.app.traffic_rows import indexed_identity
from proxy.app.traffic_view import offline_state, offline_view
from proxy.app.ui_action_cases import ActionSetting, Conflict, NotFound, UiActions
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


def _identities(path: Path) -> list[str]:
    return [f"{indexed_identity(exchange)} in {path}" for exchange in read_cassette_file(path).exchanges]


def test_an_action_from_a_page_shown_before_the_views_own_actions_changes_only_the_exchange_shown(
    tmp_path: Path,
) -> None:
    """Pages opened at the start (stale tabs) act in drawn order, each on a drawn exchange, giving the
    identity its detail document showed or none: the view's own deletes move the ids after them
    (across cassettes too). Every action that went through changed the exchange its page showed and
    nothing else; every action whose id names another exchange by then was refused, files unchanged
    (and so was one giving an identity an edit has changed since)."""
    chance = random.Random(43)
    done = refused = 0
    for round_number in range(12):
        folder = tmp_path / str(round_number)
        folder.mkdir()
        paths = [folder / "a.yaml", folder / "b.yaml"]
        for path in paths:
            shutil.copyfile(WALK, path)
        in_force = project_rules(folder)
        view = offline_view(paths, in_force, cache=False)
        actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
        shown = {number: view.exchange(number) for number in range(1, view.cursor + 1)}
        current = {document["identity"]: document["identity"] for document in shown.values() if document}
        for step in range(5):
            number = chance.choice(sorted(shown))
            document = shown[number]
            assert document is not None
            identity = document["identity"] if chance.random() < 0.5 else None
            before = {path: _identities(path) for path in paths}
            now = view.exchange(number)
            meant = now is not None and now["identity"] == current[document["identity"]]
            kind = "delete" if chance.random() < 0.6 else "edit"
            try:
                if kind == "delete":
                    actions.delete(number, identity)
                else:
                    actions.edit(number, "resp.header.X-Note", f"step {step}", identity=identity)
            except (Conflict, NotFound):  # 409, or 404 for an id past the end now
                refused += 1
                assert {path: _identities(path) for path in paths} == before
                assert not meant or (now is not None and identity not in (None, now["identity"]))
                continue
            done += 1
            assert meant, (number, identity)  # went through: the id still named the exchange shown
            after = {path: _identities(path) for path in paths}
            changed = [path for path in paths if after[path] != before[path]]
            assert len(changed) == 1
            old, new = before[changed[0]], after[changed[0]]
            at = next(i for i in range(len(old)) if i >= len(new) or old[i] != new[i])
            assert old[at] == current[document["identity"]]  # the first difference: the exchange shown
            if kind == "delete":
                assert new == old[:at] + old[at + 1 :]
                shown.pop(number)
            else:
                assert len(new) == len(old) and new[:at] + new[at + 1 :] == old[:at] + old[at + 1 :]
                edited = view.exchange(number)
                assert edited is not None
                current = {
                    key: edited["identity"] if value == old[at] else value for key, value in current.items()
                }
        view.close()
    assert done > 15 and refused > 10  # both drawn often


def test_an_exchange_the_journal_holds_is_refused_as_one_the_cassette_does_not(tmp_path: Path) -> None:
    """A recording goes on into the cassette: the view lists its journal's exchanges after the file's.
    A delete or edit of any of those is a 409 saying so, the files untouched; one of the file's own
    exchanges is edited as ever."""
    from proxy.app.recording import RecordingSession, RecordSettings
    from tests.unit.store.test_files import numbered

    path = tmp_path / "shop.yaml"
    shutil.copyfile(WALK, path)
    held = len(read_cassette_file(path).exchanges)
    session = RecordingSession(
        RecordSettings(upstream="http://127.0.0.1:9", cassette=path, mode="new_episodes")
    )
    for exchange in numbered(3, start=held):
        session.keep(exchange)
    in_force = project_rules(tmp_path)
    view = offline_view([path], in_force, cache=False)
    actions = UiActions(view, ActionSetting("offline", in_force, policy=in_force.project.redaction))
    assert view.cursor == held + 3
    files = sorted(tmp_path.iterdir())
    before = {file: file.read_bytes() for file in files}
    for number in range(held + 1, held + 4):
        for act in ACTIONS.values():
            with pytest.raises(Conflict, match="journal, not yet in the cassette"):
                act(actions, number)
    assert {file: file.read_bytes() for file in sorted(tmp_path.iterdir())} == before
    actions.edit(held, "resp.header.X-Note", "chosen")  # the file's last exchange: edited
    view.close()
