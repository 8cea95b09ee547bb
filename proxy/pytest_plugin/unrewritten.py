"""Takes our package off pytest's list of modules whose asserts it rewrites; imported first by the plugin.

pytest rewrites the asserts of every module of a plugin's distribution as it is imported (meant for
plugins whose helpers assert on a test's behalf). None of ours does, and the rewriting is a parse and a
compile of each module, cached only where pytest may write bytecode: under PYTHONDONTWRITEBYTECODE (set
in many CI images) or with a read-only site-packages, every run that records or replays paid about a
second for it. Off the list, our modules load from their ordinary bytecode. pytest has no public way to
do this: if its import hook changes shape, nothing is taken off and everything works as before.
"""

from __future__ import annotations

import sys

PACKAGE = __name__.partition(".")[0]


def take_off_rewriting() -> None:
    """Take our package off the marked names of pytest's assertion-rewriting hook, if one has it."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set) and PACKAGE in marked:
            marked.discard(PACKAGE)
            cache = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(cache, dict):
                cache.clear()


take_off_rewriting()
