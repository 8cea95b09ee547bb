"""`record`'s and `spy`'s typed request made into a recording's settings by the use case alone: the
adapter parses, the use case reads the rules and config and joins their tables (no CLI, no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.app.command_inputs import ExtraRedaction, RuleChoice
from proxy.app.record_setup import ForwardRequest, forwarding_settings
from proxy.app.recording import DEFAULT_MODE, MAX_BODY_BYTES, UPSTREAM_TIMEOUT
from proxy.core.replay.matching import MatchPolicy


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder whose config adds to redaction and matching."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "commerce-proxy.yaml").write_text(
        "redact:\n  headers: [X-Shop-Secret]\nmatch:\n  ignore_json: [data.meta.request_id]\n"
    )
    return tmp_path


def test_spy_request_gets_the_defaults_and_the_config_tables(project: Path) -> None:
    settings = forwarding_settings(ForwardRequest("http://user:pw@127.0.0.1:9/api/"))
    assert settings.cassette is None
    assert settings.upstream == "http://127.0.0.1:9/api"  # credentials sent, never written
    assert settings.upstream_authorization is not None
    assert (settings.mode, settings.upstream_timeout, settings.max_body_bytes) == (
        DEFAULT_MODE,
        UPSTREAM_TIMEOUT,
        MAX_BODY_BYTES,
    )
    assert "x-shop-secret" in {name.lower() for name in settings.redaction.headers}
    assert settings.match == MatchPolicy().joined(MatchPolicy.parse(None, [], ["data.meta.request_id"]))
    assert settings.rules is not None and settings.rule_source is not None
    assert settings.rule_source.config is None or settings.rule_source.config.is_absolute()


def test_record_request_joins_its_own_options_to_the_config(project: Path) -> None:
    asked = ForwardRequest(
        "http://127.0.0.1:9",
        cassette=project / "shop.yaml",
        mode="new_episodes",
        fresh=True,
        check=False,
        match=MatchPolicy.parse("method,path", ["_ts"], []),
        redact=ExtraRedaction(headers=("X-Mine",)),
        upstream_timeout=2.5,
        max_body_bytes=10,
        rules=RuleChoice(config=Path("commerce-proxy.yaml")),
    )
    settings = forwarding_settings(asked)
    assert (settings.cassette, settings.mode, settings.fresh) == (project / "shop.yaml", "new_episodes", True)
    assert (settings.upstream_timeout, settings.max_body_bytes) == (2.5, 10)
    assert settings.rules is None and settings.rule_source is None  # check=False: no live checking
    assert settings.match == MatchPolicy.parse("method,path", ["_ts"], ["data.meta.request_id"])
    headers = {name.lower() for name in settings.redaction.headers}
    assert {"x-mine", "x-shop-secret"} <= headers
