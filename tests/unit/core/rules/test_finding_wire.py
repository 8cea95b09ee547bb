"""A finding crosses a process boundary and comes back whole: the live checker's child answers with
`to_values` (its fields in order), read back by `from_values`, which refuses any other shape; a JSON
report's finding is read by `from_json`, which reads every field and ignores what the report derives
(`docs`, `citation`) or may add later, so a richer report never breaks the reader."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from proxy.core.rules.findings import SEVERITIES, Finding
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir

RULES = sorted(rule.id for rule in load_rules(shipped_dir("rules")).rules)
text = st.text(max_size=40)

findings = st.builds(
    Finding,
    exchange=st.integers(min_value=0, max_value=10**6),
    method=st.sampled_from(["GET", "PUT", "POST", "DELETE", "PATCH"]),
    path=text,
    target=text,
    rule=st.sampled_from(RULES),
    severity=st.sampled_from(SEVERITIES),
    section=text,
    message=text,
    where=text,
    expected=text,
    found=text,
    cassette=st.none() | text,
)


@given(findings, st.dictionaries(st.text(min_size=1, max_size=12), text, max_size=3))
def test_a_finding_read_back_from_its_json_is_the_same(finding: Finding, extra: dict[str, str]) -> None:
    document = orjson.loads(orjson.dumps(finding.to_json()))
    for key, value in extra.items():  # keys a later report may add
        document.setdefault(key, value)
    assert Finding.from_json(document) == finding


@given(findings)
def test_a_finding_read_back_from_its_values_is_the_same(finding: Finding) -> None:
    assert Finding.from_values(orjson.loads(orjson.dumps(finding.to_values()))) == finding


@given(findings, st.integers(min_value=-3, max_value=3).filter(bool))
def test_values_of_another_length_or_shape_are_refused(finding: Finding, change: int) -> None:
    values = finding.to_values()
    wrong = values[:change] if change < 0 else values + ["more"] * change
    for shape in (wrong, tuple(values), finding.to_json()):
        with pytest.raises(ValueError):
            Finding.from_values(shape)  # type: ignore[arg-type]
