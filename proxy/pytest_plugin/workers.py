"""pytest-xdist: whether a module's tests may be spread over several workers, which a module-scoped
recording must not be (each worker would write its own part of one cassette)."""

from __future__ import annotations

from typing import Any

import pytest

DIST_KEY = "commerce_proxy_dist"


def spread_over_workers(config: pytest.Config) -> bool:
    """Whether pytest-xdist may send this module's tests to several workers."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is not None and workerinput.get(DIST_KEY) not in ("loadfile", "loadscope")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: tell each worker how tests are spread (a worker's own --dist always reads "no")."""
    node.workerinput[DIST_KEY] = node.config.getoption("dist")
