"""The `cassette` use cases on their own, without the command line: they read and write every file
themselves, refuse what they were not asked to replace before writing, and leave a file they refuse
byte for byte as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app import cassette_edits as edits
from proxy.app.cassette_format import FormatRequest, format_cassettes
from proxy.app.cassette_reading import ListRequest, ShowRequest, list_exchanges, show_exchange
from proxy.core.cassette.document import Cassette
from proxy.core.editing.selection import parse_selection
from proxy.errors import CommerceProxyError, UsageError
from proxy.store.saving import save_cassette
from tests.conftest import json_body, make_exchange, make_request

SHAPES = {
    "one exchange": Cassette((make_exchange(),)),
    "json and a miss": Cassette((make_exchange(body=json_body({"a": 1})), make_exchange(status=404))),
    "a POST with a body": Cassette(
        (make_exchange(make_request("POST", "/v2/carts", body=json_body({"n": 2})), status=201),)
    ),
    "no exchange": Cassette(),
}
BROKEN = {
    "unclosed flow": "cassette_format: 2\nexchanges: [\n",
    "not a mapping": "- just\n- a list\n",
    "exchange without a request": "cassette_format: 2\nexchanges:\n- response:\n    status: 200\n",
    "tab indentation": "cassette_format: 2\nexchanges:\n\t- request: {}\n",
}


@pytest.fixture(autouse=True)
def no_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped rules: no config is found from the test's own folder."""
    monkeypatch.chdir(tmp_path)


def saved(path: Path, cassette: Cassette) -> Path:
    save_cassette(path, cassette)
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
@pytest.mark.parametrize("check", [False, True])
def test_fmt_refuses_a_cassette_that_does_not_parse_and_leaves_it_as_it_was(
    tmp_path: Path, text: str, check: bool
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    before = snapshot(tmp_path)
    told: list[str] = []
    with pytest.raises(CommerceProxyError, match=r"broken\.yaml"):
        format_cassettes(FormatRequest((path,), check=check), told.append)
    assert snapshot(tmp_path) == before
    assert told == []


@pytest.mark.parametrize("cassette", SHAPES.values(), ids=SHAPES.keys())
def test_fmt_rewrites_only_what_is_off_the_layout_and_check_writes_nothing(
    tmp_path: Path, cassette: Cassette
) -> None:
    path = saved(tmp_path / "c.yaml", cassette)
    normal = path.read_bytes()
    assert format_cassettes(FormatRequest((tmp_path,)), [].append) == []  # already normal
    path.write_text(path.read_text().replace("cassette_format: 2\n", "cassette_format:   2\n"))
    off = path.read_bytes()
    told: list[str] = []
    assert format_cassettes(FormatRequest((path,), check=True), told.append) == [path]
    assert path.read_bytes() == off and told == [f"{path}: not in the normal layout ({_hint(path)})"]
    assert format_cassettes(FormatRequest((path,)), told.append) == [path]
    assert path.read_bytes() == normal and told[-1] == f"{path}: reformatted"


def _hint(path: Path) -> str:
    return f"run `commerce-proxy cassette fmt {path}`"


def test_fmt_keeps_a_hand_written_comment_unless_told_to_drop_it(tmp_path: Path) -> None:
    path = saved(tmp_path / "c.yaml", SHAPES["json and a miss"])
    path.write_text(path.read_text().replace("- request:\n", "# why\n- request:\n", 1))
    path.write_text(path.read_text() + "\n")  # off the layout too
    before = path.read_bytes()
    with pytest.raises(UsageError, match="hand-written comment that fmt would drop"):
        format_cassettes(FormatRequest((path,)), [].append)
    assert path.read_bytes() == before
    assert format_cassettes(FormatRequest((path,), drop_comments=True), [].append) == [path]
    assert b"# why" not in path.read_bytes()


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("cassette", SHAPES.values(), ids=SHAPES.keys())
def test_merge_replaces_a_file_that_is_not_an_input_only_with_force(
    tmp_path: Path, cassette: Cassette, force: bool
) -> None:
    a = saved(tmp_path / "a.yaml", cassette)
    b = saved(tmp_path / "b.yaml", SHAPES["one exchange"])
    other = saved(tmp_path / "other.yaml", SHAPES["a POST with a body"])
    before = snapshot(tmp_path)
    asked = edits.MergeRequest((a, b), other, force=force, options=edits.EditOptions(no_check=True))
    if not force:
        with pytest.raises(
            UsageError, match="is an existing cassette; the merged cassette would replace it: pass --force"
        ):
            edits.merge(asked)
        assert snapshot(tmp_path) == before
        return
    edited = edits.merge(asked)
    assert edited.written == 1 and edited.recheck is None
    assert "merged 2 cassette(s)" in edited.summary
    assert snapshot(tmp_path)["a.yaml"] == before["a.yaml"] and other.read_bytes() != before["other.yaml"]


def test_merge_may_write_over_one_of_its_inputs_and_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    a = saved(tmp_path / "a.yaml", SHAPES["json and a miss"])
    b = saved(tmp_path / "b.yaml", SHAPES["a POST with a body"])
    before = snapshot(tmp_path)
    dry = edits.merge(edits.MergeRequest((a, b), a, options=edits.EditOptions(dry_run=True)))
    assert snapshot(tmp_path) == before
    assert dry.recheck is not None and dry.recheck.rules > 0
    edits.merge(edits.MergeRequest((a, b), a))
    assert len(list_exchanges(ListRequest(a)).cassettes[0].cassette.exchanges) == 3


def test_split_replaces_parts_already_there_only_with_force(tmp_path: Path) -> None:
    path = saved(tmp_path / "c.yaml", SHAPES["json and a miss"])
    parts = tmp_path / "parts"
    edits.split(edits.SplitRequest(path, "status", parts))
    written = snapshot(parts)
    assert sorted(written) == ["200.yaml", "404.yaml"]
    with pytest.raises(UsageError, match="is an existing cassette; a part would replace it: pass --force"):
        edits.split(edits.SplitRequest(path, "status", parts))
    assert snapshot(parts) == written
    assert edits.split(edits.SplitRequest(path, "status", parts, force=True)).written == 2


@pytest.mark.parametrize("cassette", [SHAPES["one exchange"], SHAPES["json and a miss"]])
def test_an_edit_in_place_is_written_and_rechecked_unless_a_dry_run(
    tmp_path: Path, cassette: Cassette
) -> None:
    path = saved(tmp_path / "c.yaml", cassette)
    before = path.read_bytes()
    dry = edits.delete(edits.DeleteRequest(path, ("-1",), edits.EditOptions(dry_run=True)))
    assert path.read_bytes() == before
    assert dry.summary == f"{path}: deleted 1 exchange(s); {len(cassette.exchanges) - 1} left"
    edits.delete(edits.DeleteRequest(path, ("-1",)))
    assert len(show_cassette(path)) == len(cassette.exchanges) - 1


def show_cassette(path: Path) -> list[int]:
    return list(list_exchanges(ListRequest(path)).cassettes[0].picked)


def test_keep_set_and_unset_edit_the_file_they_name(tmp_path: Path) -> None:
    path = saved(tmp_path / "c.yaml", SHAPES["json and a miss"])
    kept = edits.keep(edits.KeepRequest(path, parse_selection("status = 404")))
    assert kept.summary == f"{path}: kept 1 of 2 exchange(s)"
    edits.change_field(edits.FieldRequest(path, "0", "resp.header.X-Note", "hi"))
    assert show_exchange(ShowRequest(path, "0")).exchange.response.headers[-1] == ("X-Note", "hi")
    edits.change_field(edits.FieldRequest(path, "0", "resp.header.X-Note", unset=True))
    assert ("X-Note", "hi") not in show_exchange(ShowRequest(path, "0")).exchange.response.headers


def test_an_edit_refuses_to_drop_a_comment_and_leaves_the_file(tmp_path: Path) -> None:
    path = saved(tmp_path / "c.yaml", SHAPES["one exchange"])
    path.write_text(path.read_text() + "# mine\n")
    before = path.read_bytes()
    with pytest.raises(UsageError, match="hand-written comment"):
        edits.fix_etag(edits.CassetteRequest(path))
    assert path.read_bytes() == before


def test_show_gives_the_files_own_lines_and_grep_picks_by_expression(tmp_path: Path) -> None:
    path = saved(tmp_path / "c.yaml", SHAPES["json and a miss"])
    one = show_exchange(ShowRequest(path, "-1"))
    assert one.index == 1 and one.stored is not None and "status: 404" in one.stored
    assert show_exchange(ShowRequest(path, "0", file_text=False)).stored is None
    listing = list_exchanges(ListRequest(tmp_path, parse_selection("status >= 400")))
    assert [list(listed.picked) for listed in listing.cassettes] == [[1]] and not listing.dated
    with pytest.raises(UsageError, match="--stale: no max_age in the project config"):
        list_exchanges(ListRequest(path, stale=""))


def _names_derived_from(cassette: Path) -> list[tuple[str, Path]]:
    """A file name for each file the tool keeps for `cassette` (a name inside a folder it keeps, and
    one a temporary file's prefix starts)."""
    from proxy.store.outputs import derived_files

    named = []
    for derived in derived_files(cassette):
        if derived.path == cassette.parent:
            continue  # the folder it is in (locked by every writer): -o there is refused as a folder
        path = {"file": derived.path, "folder": derived.path / "x.yaml", "prefix": Path(f"{derived.path}x")}
        named.append((derived.what, path[derived.match]))
    return named


@pytest.mark.parametrize("force", [False, True])
def test_merge_and_split_never_write_over_a_file_the_tool_keeps_for_an_input(
    tmp_path: Path, force: bool
) -> None:
    # Every file derived from an input, drawn from the store's own list (journal, lock, parse cache,
    # temporary files, the folder lock), as merge's -o; split's parts into the folder an input is
    # in, one of them the input's own name. Each is refused, with or without --force, and no byte
    # of the folder changes. Merge over a journal passed before (it wrote there and `a.yaml` could no
    # longer be opened).
    a = saved(tmp_path / "a.yaml", SHAPES["json and a miss"])
    b = saved(tmp_path / "b.yaml", SHAPES["one exchange"])
    targets = _names_derived_from(a) + _names_derived_from(b)
    assert len(targets) >= 10
    for what, target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"kept by the tool\n")
        before = snapshot(tmp_path)
        asked = edits.MergeRequest((a, b), target, force=force, options=edits.EditOptions(no_check=True))
        with pytest.raises(UsageError, match="never replaces a file the tool keeps for an input"):
            edits.merge(asked)
        assert snapshot(tmp_path) == before, what
        assert target.read_bytes() == b"kept by the tool\n", what  # the lock file is elsewhere
        target.unlink()
    parts = tmp_path / "parts"
    parts.mkdir()
    inside = saved(parts / "200.yaml", SHAPES["json and a miss"])
    before = snapshot(tmp_path)
    with pytest.raises(UsageError, match="is one of this command's inputs"):
        edits.split(edits.SplitRequest(inside, "status", parts, force=force))
    assert snapshot(tmp_path) == before
