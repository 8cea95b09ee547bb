"""Every line the command line prints is printable, whatever the file names and traffic it names hold:
every command, in each of its modes (--dry-run, a real edit, -o, each report format, an error), run on
files whose names hold a line end, a terminal escape, a bidi override..., prints exactly as many lines
as it does for plain names, and no control or format character. And no module of `proxy/cli` but
`proxy/cli/output.py` prints or writes to a stream (so a new command cannot forget `visible`)."""

from __future__ import annotations

import ast
import io
import json
import shutil
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from proxy.cli.main import main
from proxy.cli.progress import Progress
from proxy.core.reports.yaml_text import yaml_text
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

DEMO = shipped_dir("cassettes") / "demo-session.yaml"
# What a file name may hold that would break or hide a line on a terminal (NUL and `/` it cannot hold).
CHARACTERS = (
    "\n",
    "\r",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\x08",
    "\x7f",
    "\x85",
    "\x9b31m",
    "\u200b",
    "\u200f",
    "\u202e",
    "\u2028",
    "\u2029",
    "\u2066",
    "\ufeff",
    "\U000e0001",
)
# Each of those a line ending or a reordering on its own, and all of them in one name.
HOSTILE = ("\n", "\r", "\x1b[31m", "\x85", "\u202e", "\u2028", "\n# FORGED ".join(CHARACTERS))
PLAIN = "_"
# Each command in each mode; A, B: cassettes, BROKEN: one that does not parse, LAYOUT: one off the
# normal layout, HAR: a HAR file, OUT: an output file; MISSING: a file that is not there.
RUNS = {
    "check": ["check", "--", "A"],
    "check -q": ["check", "-q", "--", "A", "B"],
    "check json": ["check", "--format", "json", "--", "A"],
    "check markdown": ["check", "--format", "markdown", "--", "A", "BROKEN"],
    "check junit": ["check", "--format", "junit", "--", "A"],
    "check -o": ["check", "-o", "OUT", "--", "A"],
    "check html -o": ["check", "--format", "html", "-o", "OUT", "--", "A"],
    "check --write-baseline": ["check", "--write-baseline", "OUT", "--", "A"],
    "check broken": ["check", "--", "BROKEN"],
    "check missing": ["check", "--", "MISSING"],
    "list": ["cassette", "list", "--", "A"],
    "list json": ["cassette", "list", "--format", "json", "--", "A"],
    "list --stale": ["cassette", "list", "--stale", "--", "A"],
    "list broken": ["cassette", "list", "--", "BROKEN"],
    "grep": ["cassette", "grep", "--", "A", "status=201"],
    "show": ["cassette", "show", "--", "A", "0"],
    "show json": ["cassette", "show", "--format", "json", "--", "A", "0"],
    "show out of range": ["cassette", "show", "--", "A", "99"],
    "fmt --check": ["cassette", "fmt", "--check", "--", "LAYOUT", "A"],
    "fmt": ["cassette", "fmt", "--", "LAYOUT"],
    "fmt broken": ["cassette", "fmt", "--", "BROKEN"],
    "merge -o": ["cassette", "merge", "-o", "OUT", "--", "A", "B"],
    "split -o": ["cassette", "split", "--by", "status", "-o", "OUT", "--", "A"],
    "diff": ["cassette", "diff", "--", "A", "B"],
    "diff markdown": ["cassette", "diff", "--format", "markdown", "--", "A", "BROKEN"],
    "diff json": ["cassette", "diff", "--format", "json", "--", "A", "B"],
    "export-har -o": ["export-har", "-o", "OUT", "--", "A"],
    "export-har broken": ["export-har", "-o", "OUT", "--", "BROKEN"],
    "import-har -o": ["import-har", "-o", "OUT", "--", "HAR"],
    "import-mitm broken": ["import-mitm", "-o", "OUT", "--", "BROKEN"],
    "verify broken": ["verify", "--upstream", "http://127.0.0.1:9", "-o", "OUT", "--", "BROKEN"],
}
for _mode in ("--dry-run", None):
    for _name, _words in {
        "set": ["set", "--", "A", "0", "status", "404"],
        "unset": ["unset", "--", "A", "0", "header.Date"],
        "delete": ["delete", "--", "A", "0"],
        "keep": ["keep", "--where", "index=0", "--", "A"],
        "redact": ["redact", "--header", "X-Trace", "--", "A"],
        "rehost": ["rehost", "--to", "http://127.0.0.1:1", "--", "A"],
        "fix-etag": ["fix-etag", "--", "A"],
        "set broken": ["set", "--", "BROKEN", "0", "status", "404"],
    }.items():
        RUNS[f"{_name} {_mode or 'real'}"] = ["cassette", _words[0], *([_mode] if _mode else []), *_words[1:]]

HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _files(folder: Path, mark: str) -> dict[str, str]:
    """The files of one run, their names holding `mark`; made in `folder`."""
    names = {
        word: f"{'' if word == 'OUT' else '-'}{word.lower()}{mark}x.{'har' if word == 'HAR' else 'out' if word == 'OUT' else 'yaml'}"
        for word in ("A", "B", "BROKEN", "LAYOUT", "HAR", "OUT", "MISSING")
    }
    for word in ("A", "B"):
        shutil.copyfile(DEMO, folder / names[word])
    (folder / names["BROKEN"]).write_text("cassette_format: 2\nexchanges:\n- status: [\n")
    (folder / names["LAYOUT"]).write_text(yaml.safe_dump(yaml.safe_load(DEMO.read_text()), width=40))
    har = folder / "made.har"
    assert main(["export-har", "-q", "-o", str(har), "--", str(DEMO)]) == 0
    har.rename(folder / names["HAR"])
    return names


def _run(
    folder: Path,
    mark: str,
    words: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str, str]:
    folder.mkdir()
    monkeypatch.chdir(folder)
    names = _files(folder, mark)
    capsys.readouterr()
    code = main([names.get(word, word) for word in words])
    out, err = capsys.readouterr()
    return code, out, err


_PLAIN: dict[str, tuple[int, str, str]] = {}  # each run with plain names, once


def _hidden(text: str) -> list[str]:
    return sorted(
        {repr(char) for char in text if char not in "\n\t" and unicodedata.category(char) in HIDDEN}
    )


@pytest.mark.parametrize("mark", HOSTILE, ids=[ascii(mark) for mark in HOSTILE])
@pytest.mark.parametrize("run", RUNS)
def test_every_command_prints_only_printable_lines_whatever_a_file_name_holds(
    run: str, mark: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if run not in _PLAIN:
        _PLAIN[run] = _run(tmp_path / "plain", PLAIN, RUNS[run], capsys, monkeypatch)
    plain = _PLAIN[run]
    hostile = _run(tmp_path / "hostile", mark, RUNS[run], capsys, monkeypatch)
    for stream, (expected, got) in zip(
        ("stdout", "stderr"), zip(plain[1:], hostile[1:], strict=True), strict=True
    ):
        assert not _hidden(got), (stream, _hidden(got), got)
        assert got.count("\n") == expected.count("\n"), (stream, expected, got)
    assert hostile[0] == plain[0], (plain, hostile)


def test_the_table_covers_every_command_that_takes_a_file() -> None:
    from tests.integration.cli.test_file_names import FILE_COMMANDS

    covered = {" ".join(words[:2] if words[0] == "cassette" else words[:1]) for words in RUNS.values()}
    wanted = {" ".join(words) for words, _ in FILE_COMMANDS}
    # the servers name their files only in log lines and errors (VisibleFormatter)
    assert wanted - covered <= {"record", "replay", "spy", "sandbox", "rules", "demo", "ui"}, wanted - covered


def _calls(tree: ast.AST) -> Iterator[ast.Call]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def test_only_the_output_module_prints() -> None:
    """`print` and a stream's `write` only in proxy/cli/output.py (and the progress line, drawn on a
    terminal with its own escapes around a `visible` name)."""
    found = []
    for path in sorted((ROOT / "proxy" / "cli").glob("*.py")):
        if path.name in ("output.py", "progress.py"):
            continue
        for call in _calls(ast.parse(path.read_text())):
            function = call.func
            if (isinstance(function, ast.Name) and function.id == "print") or (
                isinstance(function, ast.Attribute) and function.attr in ("write", "writelines")
            ):
                found.append(f"{path.name}:{call.lineno}")
    assert not found, found


@pytest.mark.parametrize("mark", CHARACTERS, ids=[ascii(mark) for mark in CHARACTERS])
def test_the_progress_line_shows_a_file_name_printable(mark: str) -> None:
    progress = Progress(1, io.StringIO(), wanted=False)
    progress.reading(0, Path(f"a{mark}.yaml"))
    assert not _hidden(progress.line(200))


@pytest.mark.parametrize("mark", CHARACTERS, ids=[ascii(mark) for mark in CHARACTERS])
def test_show_yaml_escapes_what_is_hidden_and_loads_back_the_same(mark: str) -> None:
    document = {"path": f"/v2/{mark}x", mark: [f"é{mark}", "line\n" * 10 + mark], "plain": "café\n" * 12}
    text = yaml_text(document)
    assert not _hidden(text), text
    assert yaml.safe_load(text) == document
    assert "café" in text  # printable text stays as it is


def test_json_text_escapes_what_is_hidden_and_loads_back_the_same() -> None:
    from proxy.core.reports.escaping import json_text

    value = {mark: [mark, f"é{mark}\U0001f600"] for mark in CHARACTERS}
    for indent in (None, 2):
        text = json_text(value, indent=indent)
        assert not _hidden(text) and json.loads(text) == value and "é" in text


@pytest.mark.parametrize("words", [["cassette", "show"], ["cassette", "list"], ["check"]])
def test_what_a_cassette_holds_is_printed_printable(
    words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body and a header value with every format character and separator (the loader keeps a path to
    printable characters; a header value holds any byte, a body any text): `cassette show`'s YAML escapes
    them and loads back the same."""
    from proxy.core.cassette.document import Cassette
    from proxy.store.saving import save_cassette
    from tests.conftest import json_body, make_exchange, make_request

    marks = "".join(mark for mark in CHARACTERS if mark.isprintable() is False and mark.isascii() is False)
    header = f"a{marks}b".encode().decode("latin-1")  # a UTF-8 value, one character a byte
    request = make_request("GET", path="/v2/brands", headers=(("x-note", header),))
    exchange = make_exchange(request, status=500, body=json_body({"note": marks}))
    save_cassette(tmp_path / "c.yaml", Cassette((exchange,)))
    main([*words, "--", str(tmp_path / "c.yaml"), *(["0"] if words[-1] == "show" else [])])
    out, err = capsys.readouterr()
    assert not _hidden(out + err), out + err
    if words[-1] == "show":
        shown = yaml.safe_load(out)
        assert json.loads(shown["response"]["json"])["note"] == marks, shown
