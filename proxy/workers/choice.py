"""The one place that chooses how helpers run: a forked child where the system can fork, else in this
process (`InProcess`)."""

from __future__ import annotations

import os

from proxy.workers.base import Runner
from proxy.workers.forked import Forked
from proxy.workers.in_process import InProcess


def runner() -> Runner:
    """The runner every helper starts its child with."""
    return Forked if hasattr(os, "fork") else InProcess()
