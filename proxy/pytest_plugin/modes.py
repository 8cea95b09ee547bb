"""Which mode the plugin's recording fixtures run in, from the command line, the ini file and CI.

Under CI the mode is `none`, whatever the command line, `addopts`, `PYTEST_ADDOPTS` or the ini file
ask: a CI run replays. CI is on when the variable CI is set to anything but an explicit "no" (empty,
0, false, no or off, in any case): pytest counts any non-empty CI as CI, and some CI systems set it to
their own name, so an unknown spelling errs on the side that never records. The one way out is an
opt-in of CI's own, the environment variable COMMERCE_PROXY_CI_MODE set on that job (case-insensitive):
`spy` there checks the live service the suite talks to, writing nothing. Outside CI it is not read.
`under_ci` is the one place that decides "this is CI"; everything else asks it.
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


CI_VARIABLE = "CI"
NOT_CI = ("", "0", "false", "no", "off")  # the spellings of CI that say "not CI", compared lower-case


def under_ci(environ: Mapping[str, str]) -> bool:
    """Whether this run is CI's: CI set to anything but an explicit "no" (NOT_CI, any case)."""
    return environ.get(CI_VARIABLE, "").strip().lower() not in NOT_CI


def ci_setting(environ: Mapping[str, str]) -> str:
    """How the environment said CI, for messages (`CI=on`)."""
    return f"{CI_VARIABLE}={environ.get(CI_VARIABLE, '').strip()}"


def effective_mode(asked: str | None, environ: Mapping[str, str]) -> Mode:
    """The mode from what the options asked (`asked`: the command line's, else the ini's) and the
    environment; a bad COMMERCE_PROXY_CI_MODE is a ValueError naming it."""
    if not under_ci(environ):
        return Mode(cast(PluginMode, asked or "once"))
    given = environ.get(CI_MODE_VARIABLE, "").strip()
    opt_in = given.lower()
    if opt_in and opt_in not in CI_MODES:
        raise ValueError(
            f"{CI_MODE_VARIABLE}={given!r}: expected one of {', '.join(CI_MODES)} (a CI run never records)"
        )
    mode: PluginMode = opt_in or "none"
    return Mode(mode, asked if asked not in (None, mode) else None)
