"""The command line builds only the parser of the command it names: the map from each command word to
the module that adds it must name every command the full parser has, and a parser built for one word
must parse that command's lines exactly as the full parser does."""

from __future__ import annotations

import argparse
import subprocess
import sys

from proxy.cli.help import EXAMPLES, commands
from proxy.cli.main import COMMANDS, build_parser


def top_words(parser: argparse.ArgumentParser) -> list[str]:
    return [name for name, _ in commands(parser) if name and " " not in name]


def test_the_map_names_every_command_of_the_full_parser_in_its_order() -> None:
    assert top_words(build_parser()) == list(COMMANDS)


def test_a_parser_for_one_word_has_that_command_and_its_module_siblings_only() -> None:
    for word, module in COMMANDS.items():
        siblings = [other for other, its in COMMANDS.items() if its == module]
        assert top_words(build_parser(word)) == siblings, word


def test_each_example_parses_alike_with_its_own_parser_and_the_full_one() -> None:
    import shlex

    for name, example in EXAMPLES.items():
        words = shlex.split(example)[1:]
        alone, full = build_parser(words[0]).parse_args(words), build_parser().parse_args(words)
        assert vars(alone) == vars(full), name


def test_a_command_line_imports_no_other_command_module() -> None:
    # In a fresh interpreter: which of proxy/cli/'s command modules `check --help` loads.
    modules = sorted(set(COMMANDS.values()))
    probe = (
        "import sys\n"
        "from proxy.cli.main import main\n"
        "try:\n    main(['check', '--help'])\nexcept SystemExit:\n    pass\n"
        f"print([m for m in {modules!r} if 'proxy.cli.' + m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "['check']"
