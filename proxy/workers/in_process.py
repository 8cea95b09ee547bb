"""The runner with no child: every part is done in the caller's own process (where no process can be
forked), which is what the failure contract gives anyway; the result is the same, only slower."""

from __future__ import annotations

from proxy.workers.base import Child, Work


class InProcess:
    """Starts nothing: the caller does the child's part itself, with the same result."""

    def start(self, work: Work) -> Child | None:
        return None
