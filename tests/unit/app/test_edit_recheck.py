"""What an edit's re-check calls new: the findings the edit added, never one that was there before and
only reads differently because the edit changed what its text quotes; what a merge calls gone; and
where an edit's `-o` may go. The use cases on their own, no command line."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.app import cassette_edits as edits
from proxy.app.check_run import check_cassette
from proxy.app.command_inputs import RuleChoice
from proxy.errors import UsageError
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.shipped import shipped_dir

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
ORIGIN = "http://127.0.0.1:37615"
LINK = ORIGIN + "/v2/products?page[limit]=10&page[offset]={offset}&page[total_method]=exact"


@pytest.fixture(autouse=True)
def no_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped rules: no config is found from the test's own folder."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """The pagination walk with two `links.next` pointing at the wrong page (#1 and #2): two errors
    whose text quotes the link, its origin included."""
    text = WALK.read_text()
    assert read_cassette_file(WALK).upstream == ORIGIN
    for right, wrong in [(10, 50), (20, 70)]:
        old = f'"next": "{LINK.format(offset=right)}"'
        assert text.count(old) == 1
        text = text.replace(old, f'"next": "{LINK.format(offset=wrong)}"')
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    return path


def errors(path: Path) -> list[str]:
    found = check_cassette(RuleChoice().load(), read_cassette_file(path), str(path))
    return [
        f"{finding.rule} #{finding.exchange} {finding.where}"
        for finding in found
        if finding.severity == "error"
    ]


def rehost(path: Path) -> edits.Edited:
    return edits.rehost(edits.CassetteRequest(path, to="http://127.0.0.1:19000"))


def set_another_wrong_link(path: Path) -> edits.Edited:
    return edits.change_field(edits.FieldRequest(path, "1", "resp.json.links.next", LINK.format(offset=60)))


def set_a_header(path: Path) -> edits.Edited:
    return edits.change_field(edits.FieldRequest(path, "2", "resp.header.X-Note", "checked"))


def delete_the_first(path: Path) -> edits.Edited:
    return edits.delete(edits.DeleteRequest(path, ("0",)))


def redact(path: Path) -> edits.Edited:
    return edits.redact(edits.CassetteRequest(path))


def fix_etag(path: Path) -> edits.Edited:
    return edits.fix_etag(edits.CassetteRequest(path))


def merge_with_itself(path: Path) -> edits.Edited:
    copy = path.with_name("copy.yaml")
    shutil.copyfile(path, copy)
    return edits.merge(edits.MergeRequest((path, copy), path.with_name("merged.yaml")))


def merge_into_itself(path: Path) -> edits.Edited:
    return edits.merge(edits.MergeRequest((path, path), path))


def split(path: Path) -> edits.Edited:
    return edits.split(edits.SplitRequest(path, "status", path.with_name("parts")))


EDITS: dict[str, Callable[[Path], edits.Edited]] = {
    "rehost": rehost,
    "set the quoted link": set_another_wrong_link,
    "set a header": set_a_header,
    "delete": delete_the_first,
    "redact": redact,
    "fix-etag": fix_etag,
    "merge with a copy": merge_with_itself,
    "merge into itself": merge_into_itself,
    "split": split,
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_findings_the_cassette_already_had_are_neither_new_nor_gone(
    broken: Path, edit: Callable[[Path], edits.Edited]
) -> None:
    assert len(errors(broken)) == 2
    result = edit(broken)
    assert result.recheck is not None
    assert [finding.message for finding in result.recheck.added] == []
    assert result.recheck.gone == 0


def test_rehost_keeps_the_errors_and_the_text_quotes_the_new_origin(broken: Path) -> None:
    before = errors(broken)
    rehost(broken)
    assert errors(broken) == before
    assert ORIGIN not in broken.read_text()


NEW = {
    # the same rule on the same exchange as an error already there, at another place
    "links.prev of #2": ("2", "resp.json.links.prev", LINK.format(offset=40), "links.prev"),
    # on an exchange that had no error
    "links.next of #3": ("3", "resp.json.links.next", LINK.format(offset=90), "links.next"),
}


@pytest.mark.parametrize(("index", "name", "value", "where"), NEW.values(), ids=NEW.keys())
def test_a_finding_the_edit_added_is_new_beside_one_already_there(
    broken: Path, index: str, name: str, value: str, where: str
) -> None:
    result = edits.change_field(edits.FieldRequest(broken, index, name, value))
    assert result.recheck is not None
    assert [(finding.rule, finding.exchange, finding.where) for finding in result.recheck.added] == [
        ("pagination.links.targets", int(index), where)
    ]
    assert result.recheck.errors == 1 and result.recheck.gone == 0


def test_a_merge_of_a_fixed_and_a_broken_version_keeps_both_and_loses_nothing(
    broken: Path, tmp_path: Path
) -> None:
    """Only exact repeats are counted once: the pages both versions share, not #1 and #2."""
    fixed = tmp_path / "fixed.yaml"
    shutil.copyfile(WALK, fixed)
    result = edits.merge(edits.MergeRequest((broken, fixed), tmp_path / "m.yaml"))
    assert result.recheck is not None
    # both versions of #1 and #2 are kept (another answer to the same request), so nothing is gone
    assert result.recheck.added == [] and result.recheck.gone == 0


OUTPUTS: dict[str, Callable[[Path, Path], object]] = {
    "merge -o": lambda path, out: edits.merge(edits.MergeRequest((path,), out / "m.yaml")),
    "split -o": lambda path, out: edits.split(edits.SplitRequest(path, "path", out / "parts")),
    "merge -o --dry-run": lambda path, out: edits.merge(
        edits.MergeRequest((path,), out / "m.yaml", options=edits.EditOptions(dry_run=True))
    ),
}


@pytest.mark.parametrize("edit", OUTPUTS.values(), ids=OUTPUTS.keys())
def test_an_edit_output_in_a_missing_folder_is_refused_and_nothing_is_made(
    broken: Path, tmp_path: Path, edit: Callable[[Path, Path], object]
) -> None:
    before = sorted(tmp_path.rglob("*"))
    missing = tmp_path / "newdir"
    with pytest.raises(UsageError, match=f"no such folder {missing}"):
        edit(broken, missing)
    assert sorted(tmp_path.rglob("*")) == before
