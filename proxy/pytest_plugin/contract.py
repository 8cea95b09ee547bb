"""The plugin's published specs: `--commerce-spec PATH` and `--commerce-overlay PATH` (repeatable), and
`commerce_specs` and `commerce_overlays` in the ini file (one path a line, relative to the rootdir),
added after the project config's `specs:` and `overlays:`. Every fixture's checker judges its traffic
against them too, read once a run through `proxy.app.contract_inputs.project_contract`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def add_contract_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--commerce-spec",
        metavar="PATH",
        action="append",
        default=[],
        help="a published OpenAPI spec (or a folder of them) each test's traffic is judged against too "
        "(repeatable; added to the ini's commerce_specs and the project config's specs:)",
    )
    group.addoption(
        "--commerce-overlay",
        metavar="PATH",
        action="append",
        default=[],
        help="corrections on top of the specs: a merge file or an OpenAPI Overlay 1.0 document, or a "
        "folder of them (repeatable; after the ini's commerce_overlays and the config's overlays:)",
    )
    parser.addini(
        "commerce_specs", "default --commerce-spec: one path a line, relative to the rootdir", "linelist"
    )
    parser.addini(
        "commerce_overlays",
        "default --commerce-overlay: one path a line, relative to the rootdir",
        "linelist",
    )


def contract_paths(config: pytest.Config) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The specs and overlays the ini file and the command line name: the ini's relative to the
    rootdir, the command line's to the folder pytest was started in."""
    started = config.invocation_params.dir

    def paths(ini: str, option: str) -> tuple[Path, ...]:
        written = [config.rootpath / line for line in config.getini(ini) or ()]
        return (*written, *(started / given for given in config.getoption(option)))

    return paths("commerce_specs", "commerce_spec"), paths("commerce_overlays", "commerce_overlay")
