"""The core says what is wrong with a setting in its own words (the Python API's names); each adapter
says it with its own spelling of the setting: the command line's flags, the pytest plugin's options."""

from __future__ import annotations

import pytest

from proxy.cli.options import FLAGS
from proxy.core.interchange.imports import Imported, assemble
from proxy.core.model.hosts import HostPolicy
from proxy.core.replay.faults import Fault, Latency
from proxy.core.replay.matching import MatchPolicy
from proxy.errors import SettingError
from proxy.pytest_plugin.cassettes import OPTION_SPELLINGS
from tests.conftest import make_exchange, make_request

BAD_SETTINGS = (
    ("latency", lambda: Latency.parse("soon"), "latency: expected recorded, none or milliseconds"),
    ("fault", lambda: Fault.parse("404:10%"), "fault '404:10%': kind must be one of"),
    ("fault", lambda: Fault.parse("503:150%"), "fault '503:150%': share must be between 0 and 1"),
    ("match_on", lambda: MatchPolicy.parse("method,paht"), "match_on: unknown field 'paht'"),
    ("match_on", lambda: MatchPolicy.parse("header:"), "match_on: 'header:' names no header"),
    ("match_ignore_json", lambda: MatchPolicy.parse(None, (), ["data..id"]), "match_ignore_json: 'data..id'"),
)


@pytest.mark.parametrize(("setting", "parse", "said"), BAD_SETTINGS)
def test_the_core_names_a_bad_setting_in_its_own_words_and_an_adapter_in_its_own(
    setting: str, parse: object, said: str
) -> None:
    with pytest.raises(SettingError) as raised:
        parse()  # type: ignore[operator]
    error = raised.value
    assert error.setting == setting and str(error).startswith(said) and "--" not in str(error)
    flagged = str(error.named(FLAGS))
    assert flagged == str(error).replace(setting, FLAGS[setting], 1) and flagged.startswith(FLAGS[setting])
    spelled = str(error.named(OPTION_SPELLINGS))  # the plugin spells only match_on otherwise
    assert spelled.startswith(OPTION_SPELLINGS.get(setting, setting))


def test_an_import_of_many_origins_asks_for_the_origin_setting() -> None:
    exchange = make_exchange(make_request("GET", "/v2/a"))
    items = [Imported("https://a.example", exchange), Imported("https://b.example", exchange)]
    with pytest.raises(SettingError) as raised:
        assemble(items, "f.har")
    assert raised.value.setting == "origin" and "--" not in str(raised.value)
    assert str(raised.value.named(FLAGS)).startswith("--origin: f.har has exchanges with 2 origins")


def test_a_host_refusal_names_a_way_to_allow_another_only_when_its_server_has_one() -> None:
    """A server the pytest plugin starts has no --allow-host: its refusals do not offer one."""
    foreign = (("Host", "evil.example"), ("Origin", "https://evil.example"))
    for policy, offered in (
        (HostPolicy(), None),
        (HostPolicy.of((), allowing="--allow-host NAME"), "--allow-host"),
    ):
        host = policy.refusal(foreign[:1], None)
        page = policy.page_refusal(foreign[1:], None)
        assert host is not None and page is not None
        for detail in (host.detail, page.detail):
            assert ("--" in detail) == (offered is not None)
            assert offered is None or offered in detail
