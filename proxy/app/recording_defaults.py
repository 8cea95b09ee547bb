"""The defaults of every recording, however it is started (`record`, `spy`, the plugin, the addon): in
a module of their own, so the command line can show them without importing what records."""

from __future__ import annotations

from typing import Literal

RecordMode = Literal["once", "new_episodes", "all", "none"]
RECORD_MODES: tuple[RecordMode, ...] = ("once", "new_episodes", "all", "none")
DEFAULT_MODE: RecordMode = "once"
UPSTREAM_TIMEOUT = 30.0  # seconds for the upstream's whole answer; then the client gets a 504
MAX_BODY_BYTES = 50 * 1024 * 1024  # a larger upstream answer is a 502 and is not recorded
TOKEN_VARIABLE = "COMMERCE_PROXY_TOKEN"  # where `verify` finds a live bearer token when none is given
