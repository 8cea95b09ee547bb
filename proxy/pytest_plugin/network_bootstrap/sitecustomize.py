"""Run by `site` at the start of every Python process a guarded test starts (this folder is first on
PYTHONPATH): it turns on the test's network guard (`network_core.py`, loaded from beside this folder,
standard library only), then runs the sitecustomize this one hides, if there is one."""

from __future__ import annotations

import importlib.util
import os
import sys


def _guard() -> None:
    core = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "network_core.py")
    spec = importlib.util.spec_from_file_location("commerce_proxy_network_core", core)
    if spec is None or spec.loader is None:
        raise ImportError(f"commerce-proxy: no network guard at {core}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    module.activate_from_environment()


def _chain() -> None:
    """Import the sitecustomize this folder hides (the environment's own), as `site` would have."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.get("sitecustomize")
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    sys.modules.pop("sitecustomize", None)
    try:
        importlib.import_module("sitecustomize")  # the next one on the path
    except ImportError:
        if ours is not None:
            sys.modules["sitecustomize"] = ours


_guard()
_chain()
