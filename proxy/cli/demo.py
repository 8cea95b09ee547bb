"""`demo`: the whole loop on shipped defaults with no real service: record from the sandbox, replay."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from proxy.cli.serving import announce


def add_to(commands: Any, common: argparse.ArgumentParser) -> None:
    demo = commands.add_parser(
        "demo", parents=[common], help="record a scripted session from the sandbox and replay it"
    )
    demo.add_argument(
        "--cassette",
        metavar="PATH",
        type=Path,
        help="where to keep the recording (default: a temporary folder, removed when the demo ends)",
    )
    demo.add_argument("--force", action="store_true", help="replace PATH if it exists")
    demo.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """`demo`: run the scripted session; exit 0 when every step did what it should."""
    from proxy.app.command_inputs import refuse_bad_new_file
    from proxy.demo import run_demo

    if arguments.cassette is not None:  # the demo reads no config or rules of the project
        refuse_bad_new_file(arguments.cassette, "the demo recording", arguments.force)
    return run_demo(arguments.cassette, announce)
