"""No command writes over one of its own inputs, under any name and with or without `--force`, and none
replaces another existing cassette unless `--force`: each is refused in one line, before any work,
with every file left byte for byte as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proxy.cli.main import main
from proxy.store.shipped import shipped_dir
from tests.integration.cli.test_cli import one_error_line
from tests.reliability.figures import write_figure


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with two cassettes (`a.yaml`, `b.yaml`), a link to the first and a HAR export of it."""
    monkeypatch.chdir(tmp_path)
    shipped = sorted(shipped_dir("cassettes").glob("*.yaml"))
    shutil.copy(shipped[0], tmp_path / "a.yaml")
    shutil.copy(shipped[1], tmp_path / "b.yaml")
    (tmp_path / "link.yaml").symlink_to("a.yaml")
    assert main(["export-har", "a.yaml", "-o", "a.har"]) == 0
    return tmp_path


REFUSED = [
    (["export-har", "a.yaml", "-o", "a.yaml"], "is one of this command's inputs"),
    (["export-har", "a.yaml", "-o", "a.yaml", "--force"], "is one of this command's inputs"),
    (["export-har", "link.yaml", "-o", "a.yaml", "--force"], "is one of this command's inputs"),
    (["export-har", "a.yaml", "-o", "b.yaml"], "is an existing cassette; the HAR file would replace it"),
    (["import-har", "a.har", "-o", "a.har", "--force"], "is one of this command's inputs"),
    (["check", "a.yaml", "-o", "link.yaml", "--force"], "is one of this command's inputs"),
    (["check", ".", "-o", "b.yaml", "--format", "json"], "is one of this command's inputs"),
    (["check", "a.yaml", "-o", "b.yaml"], "is an existing cassette; the report would replace it"),
    (["demo", "--cassette", "b.yaml"], "is an existing cassette; the demo recording would replace it"),
    (["check", "a.yaml", "-o", "."], "is a folder"),
]


def test_an_output_that_would_destroy_a_file_is_refused_before_any_work(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each: exit 2 with one line naming the output; nothing in the folder changes."""
    before = {path.name: path.read_bytes() for path in project.iterdir() if path.is_file()}
    for arguments, message in REFUSED:
        capsys.readouterr()
        assert main(arguments) == 2, arguments
        assert message in one_error_line(capsys), arguments
        after = {path.name: path.read_bytes() for path in project.iterdir() if path.is_file()}
        assert after == before, arguments
        assert (project / "link.yaml").is_symlink(), arguments
    write_figure(
        "overwrites_refused",
        len(REFUSED),
        "outputs that would replace an input or a cassette, refused, nothing changed",
    )


def test_force_replaces_another_cassette_and_a_report_may_be_replaced(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--force` is the way to replace a cassette that is not an input; a report file is replaced as
    `-o` asks (it is not a cassette)."""
    assert main(["export-har", "a.yaml", "-o", "b.yaml", "--force"]) == 0
    assert (project / "b.yaml").read_text().startswith("{")
    (project / "report.json").write_text("old report\n")
    main(["check", "a.yaml", "-o", "report.json", "--format", "json"])
    assert (project / "report.json").read_text().startswith("{")
    capsys.readouterr()
