"""Which mode the plugin's recording fixtures run in, from the command line, the ini file and CI.

Under CI (CI=true, 1 or yes) the mode is `none`, whatever the command line, `addopts`,
`PYTEST_ADDOPTS` or the ini file ask: a CI run replays. The one way out is an opt-in of CI's own, the
environment variable COMMERCE_PROXY_CI_MODE set on that job: `spy` there checks the live service the
suite talks to, writing nothing. Outside CI the variable is not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast, get_args

PluginMode = Literal["once", "new_episodes", "all", "none", "spy"]
PLUGIN_MODES: tuple[PluginMode, ...] = get_args(PluginMode)
CI_MODE_VARIABLE = "COMMERCE_PROXY_CI_MODE"
CI_MODES: tuple[PluginMode, ...] = ("none", "spy")  # what a CI job may opt into: never a recording


@dataclass(frozen=True, slots=True)
class Mode:
    """The mode the fixtures run in, and the one asked for when CI overruled it (for the header)."""

    mode: PluginMode
    overruled: str | None = None
    opted_in: bool = False  # CI's own variable chose it


def under_ci(environ: Mapping[str, str]) -> bool:
    """Whether this run is CI's (CI=true, 1 or yes)."""
    return environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def effective_mode(asked: str | None, environ: Mapping[str, str]) -> Mode:
    """The mode from what the options asked (`asked`: the command line's, else the ini's) and the
    environment; a bad COMMERCE_PROXY_CI_MODE is a ValueError naming it."""
    if not under_ci(environ):
        return Mode(cast(PluginMode, asked or "once"))
    opt_in = environ.get(CI_MODE_VARIABLE, "").strip()
    if opt_in and opt_in not in CI_MODES:
        raise ValueError(
            f"{CI_MODE_VARIABLE}={opt_in!r}: expected one of {', '.join(CI_MODES)} (a CI run never records)"
        )
    mode: PluginMode = opt_in or "none"
    return Mode(mode, asked if asked not in (None, mode) else None, bool(opt_in))
