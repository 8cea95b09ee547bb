"""What the plugin's fixtures import when first used, imported at once in a session that runs pytest
in-process (the `pytester` plugin).

Loading the plugin imports only its options, hooks and fixtures; the servers, rules, contract and
sandbox come with the first fixture that needs them. pytester's in-process runs drop every module
first imported inside a run, and importing such a module again is not always possible: an extension
built with PyO3 (jsonschema_rs, iregexp_check) cannot be initialized twice in one interpreter, and
one in C or Cython (PyYAML's parser) keeps the classes of the copy it was first loaded with. So when
pytester is registered, before any in-process run, everything the fixtures import is imported.
`tests/unit/pytest_plugin/test_eager.py` holds this list to every import inside a function of the
plugin.
"""

from __future__ import annotations

import importlib

LATER = (
    "proxy.app.committed",
    "proxy.app.contract_inputs",
    "proxy.app.project_rules",
    "proxy.cli.serving",
    "proxy.core.replay.book",
    "proxy.core.replay.simulation.answers",
    "proxy.pytest_plugin.servers",
    "proxy.sandbox.app",
    "proxy.server.background",
    "proxy.server.record",
    "proxy.server.replay",
)


def import_later_modules() -> None:
    for name in LATER:
        importlib.import_module(name)
