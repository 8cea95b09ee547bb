"""Every command takes a file name after `--`, whatever it starts with, and `cassette diff --git`
takes every path git hands it (a leading `-`, spaces, a newline), never stopping git's diff."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from proxy.cli.cassette_diff import git_driver_argv
from proxy.cli.main import build_parser, main
from proxy.store.shipped import shipped_dir

NAMES = (
    "-x.yaml",
    "--x.yaml",
    "-",
    "--",
    "-h",
    "--help",
    "--version",
    "--git",
    "-o",
    "- a b.yaml",
    "-\n\x1b.yaml",
)
OPTION_VALUES = {
    "--upstream": "http://127.0.0.1:9",
    "--cassette": "c.yaml",
    "-o": "out",
    "--where": "method=GET",
}
DEMO = shipped_dir("cassettes") / "demo-session.yaml"


def commands() -> Iterator[tuple[list[str], argparse.ArgumentParser]]:
    """Every command's words and parser, found in the parser itself (a new command is covered too)."""

    def walk(
        parser: argparse.ArgumentParser, words: list[str]
    ) -> Iterator[tuple[list[str], argparse.ArgumentParser]]:
        subcommands = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
        if not subcommands:
            yield words, parser
        for action in subcommands:
            for name, child in action.choices.items():
                yield from walk(child, [*words, name])

    yield from walk(build_parser(), [])


FILE_COMMANDS = [
    (words, parser)
    for words, parser in commands()
    if any(not action.option_strings and action.type is Path for action in parser._actions)
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("words", "parser"), FILE_COMMANDS, ids=[" ".join(words) for words, _ in FILE_COMMANDS]
)
def test_every_command_takes_any_file_name_after_a_double_dash(
    words: list[str], parser: argparse.ArgumentParser, name: str
) -> None:
    options: list[str] = []
    for action in parser._actions:
        if action.option_strings and action.required:
            flag = action.option_strings[0]
            value = OPTION_VALUES.get(flag) or str(next(iter(action.choices or ["x"])))
            options += [flag, value]
    positionals = [action for action in parser._actions if not action.option_strings]
    values = [name if action.type is Path else "0" for action in positionals]
    arguments = build_parser().parse_args([*words, *options, "--", *values])
    for action in positionals:
        if action.type is Path:
            got = getattr(arguments, action.dest)
            assert (got[0] if isinstance(got, list) else got) == Path(name)


def test_check_list_and_diff_read_a_cassette_whose_name_starts_with_a_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("-x.yaml", "--help.yaml"):
        shutil.copyfile(DEMO, tmp_path / name)
    assert main(["check", "-q", "--format", "json", "--", "-x.yaml", "--help.yaml"]) == 0
    assert '"path": "-x.yaml"' in capsys.readouterr().out
    assert main(["cassette", "list", "--", "--help.yaml"]) == 0
    assert main(["cassette", "diff", "--", "-x.yaml", "--help.yaml"]) == 0
    assert "-x.yaml -> --help.yaml: 0 breaking" in capsys.readouterr().out


def test_an_error_naming_a_hostile_file_is_one_printable_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "list", "--", "-\n\x1b[31mforged.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.rstrip("\n").isprintable() and "\\n\\x1b[31mforged.yaml" in err


def test_git_driver_arguments_get_a_double_dash_before_git_s_own() -> None:
    seven = ["-a.yaml", "/tmp/x", "0" * 40, "100644", "-a.yaml", "1" * 40, "100644"]
    for given in (seven, [*seven, "-b.yaml", "similarity index 90%"], ["--"], ["--help"]):
        argv = git_driver_argv(["cassette", "diff", "--git", *given])
        assert build_parser().parse_args(argv).paths == [Path(item) for item in given]
    written = ["cassette", "diff", "--git", "--", *seven]
    assert git_driver_argv(written) == written


def test_git_diff_shows_every_file_whatever_its_name(tmp_path: Path) -> None:
    """A leading `-`, spaces, a newline, a cassette that no longer parses, a rename: git goes on to
    the last file every time."""
    if shutil.which("git") is None:
        pytest.fail("git is needed: the CI machine has it")
    repo = tmp_path / "repo"
    repo.mkdir()
    names = ["-first.yaml", "--help.yaml", "a b.yaml", "new\nline.yaml", "-broken.yaml", "z-last.yaml"]
    for name in names:
        shutil.copyfile(DEMO, repo / name)
    command = f"{Path(sys.executable).parent / 'commerce-proxy'} cassette diff --git"
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}

    def git(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *arguments], cwd=repo, env=environment, capture_output=True, text=True, check=True
        )

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    git("config", "diff.commerce-cassette.command", command)
    (repo / ".gitattributes").write_text("*.yaml diff=commerce-cassette\n")
    git("add", ".")
    git("commit", "-qm", "recorded")
    for name in names:
        text = (repo / name).read_text()
        (repo / name).write_text(
            text.replace("My Wishlist", "Renamed") if name != "-broken.yaml" else "exchanges: [\n"
        )
    done = git("diff")
    for name in names:
        shown = name.replace("\n", "\\n")
        assert f"a/{shown} -> b/{shown}" in done.stdout, (name, done.stdout, done.stderr)
    assert "a/-broken.yaml -> b/-broken.yaml: not compared: " in done.stdout
    assert "external diff died" not in done.stderr
    git("checkout", "--", ".")
    git("mv", "--", "-first.yaml", "-moved.yaml")
    done = git("diff", "--cached", "-M")
    assert "a/-first.yaml -> b/-moved.yaml: 0 breaking" in done.stdout, done.stdout


# A cassette's path holds only printable characters (the loader refuses the rest: see the domain tests);
# its bodies hold any text and its header values any byte (obs-text): separators, bidi controls, C1.
@pytest.mark.parametrize("hostile", ["\u202eevil\u2028x", "a\u2029b\u200f", "\ufeff\u2066c\x85\x9b[31m"])
def test_cassette_list_and_show_print_one_line_per_exchange_whatever_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: str
) -> None:
    from proxy.core.cassette.document import Cassette
    from proxy.store.saving import save_cassette
    from tests.conftest import json_body, make_exchange, make_request

    header = hostile.encode("utf-8").decode("latin-1")  # a UTF-8 header value, one character a byte
    request = make_request("GET", path="/v2/brands", headers=(("X-Note", header),))
    answer = make_exchange(request, status=500, body=json_body({"name": hostile}))
    save_cassette(tmp_path / "c.yaml", Cassette((answer, make_exchange())))
    assert main(["cassette", "list", str(tmp_path / "c.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.isprintable() for line in lines)
    assert main(["cassette", "show", str(tmp_path / "c.yaml"), "0", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["response"]["json"]["name"] == hostile
    main(["cassette", "show", str(tmp_path / "c.yaml"), "0"])
    out = capsys.readouterr().out.splitlines()
    assert out and all(line.isprintable() for line in out), [line for line in out if not line.isprintable()]
