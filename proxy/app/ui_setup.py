"""Setting up the UI of a server: its access token, its page's files, and its view of the traffic.

The views are the traffic index's use cases (`proxy.app.traffic_view`), imported when a UI is made,
so a server without one (`--no-ui`, the pytest plugin's) never loads them.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proxy.core.model.access import TOKEN_VARIABLE
from proxy.errors import UsageError

if TYPE_CHECKING:
    from proxy.app.command_inputs import RuleChoice
    from proxy.app.traffic_view import TrafficView
    from proxy.app.ui_action_cases import ActionSetting
    from proxy.core.ui.query import Query
    from proxy.store.rule_files import RulesInForce

TOKEN_TEXT = re.compile(r"[A-Za-z0-9._~-]{16,256}")  # what a cookie, a header and a URL carry as is


def ui_token(environment: Mapping[str, str] | None = None) -> str:
    """The server's access token: `COMMERCE_PROXY_UI_TOKEN` when set (scripts that POST /_proxy/reset
    set it), else a new random one for this start."""
    given = (os.environ if environment is None else environment).get(TOKEN_VARIABLE, "")
    if not given:
        return secrets.token_urlsafe(32)
    if not TOKEN_TEXT.fullmatch(given):
        raise UsageError(
            f"{TOKEN_VARIABLE}: a token is 16 to 256 letters, digits, '-', '_', '.' or '~' "
            f"(it was {len(given)} characters of other kinds)"
        )
    return given


def page_files() -> dict[str, bytes]:
    """The page's files by name (index.html, app.js, ...), from the package's data."""
    from proxy.store.page_files import page_files as read

    return read()


def filter_parser() -> Callable[[Iterable[tuple[str, str]]], Query]:
    """The one reader of a filter's parameters (`parse_query`: a `Query`, or a `QueryError` naming the
    bad parameter)."""
    from proxy.core.ui.query import parse_query

    return parse_query


def offline_ui_view(paths: Sequence[Path], in_force: RulesInForce) -> TrafficView:
    """The view of files (cassettes, folders, journals, HAR), checked with `in_force` as `check` would."""
    from proxy.app.traffic_view import offline_view

    return offline_view(paths, in_force, text_later=True)


def offline_ui_setting(in_force: RulesInForce, rules: RuleChoice) -> ActionSetting:
    """What the offline UI's actions may do: its rules, its redaction, and the specs it was started
    with (the config's `specs:` and `overlays:`, then `--spec` and `--overlay`), read once here (a spec
    that cannot be used is refused before the server starts), which tier a diff of two cassettes as
    `cassette diff` tiers it."""
    from proxy.app.contract_inputs import drift_tiers, project_contract
    from proxy.app.ui_action_cases import ActionSetting

    contract = project_contract(in_force.project, rules.specs, rules.overlays)
    tiering = drift_tiers(contract, in_force)
    return ActionSetting("offline", in_force, policy=in_force.project.redaction, rules=rules, tiering=tiering)
