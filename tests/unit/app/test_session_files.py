"""What a test session and the smaller commands read, through the use cases and not the store: the
rules and baseline found from a root folder, a cassette as committed beside a killed run's journal, the
demo's output refusal and the `rules` document."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

from proxy.app.command_inputs import RuleChoice, refuse_bad_new_file
from proxy.app.committed import leftover_journal, load_committed
from proxy.app.project_rules import accepted_baseline, project_rules
from proxy.app.rules_listing import RulesRequest, rules_document
from proxy.core.cassette.document import Cassette
from proxy.errors import CommerceProxyError, RuleFileError, UsageError
from proxy.store.journal import journal_path
from proxy.store.rule_files import write_baseline
from proxy.store.saving import save_cassette
from tests.conftest import make_exchange


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, not the working folder: the rules are found from the root named."""
    monkeypatch.chdir(tmp_path.parent)
    return tmp_path


def test_the_config_found_from_the_root_names_the_baseline_accepted(root: Path) -> None:
    (root / "commerce-proxy.yaml").write_text("baseline: accepted.json\n")
    in_force = project_rules(root)
    assert in_force.ruleset.rules
    with pytest.raises(RuleFileError, match=r"accepted\.json: no such baseline file"):
        accepted_baseline(in_force)
    write_baseline(root / "accepted.json", [("rule.id", "GET", "/v2/products", "body")])
    assert accepted_baseline(in_force).keys
    other = root / "other.json"
    write_baseline(other, [])
    assert not accepted_baseline(in_force, other).keys  # the one named beats the config's


def test_without_a_config_nothing_is_accepted(root: Path) -> None:
    assert not accepted_baseline(project_rules(root)).keys


def test_a_killed_runs_journal_is_named_and_left_unread(root: Path) -> None:
    cassette = root / "c.yaml"
    save_cassette(cassette, Cassette((make_exchange(),)))
    assert leftover_journal(cassette) is None
    assert load_committed(cassette, str).notes == ()
    journal = journal_path(cassette)
    journal.write_bytes(b"not a journal line\n")  # unreadable: a reader of it would fail
    assert leftover_journal(cassette) == journal
    loaded = load_committed(cassette, lambda found: f"left: {found.name}")
    assert len(loaded.cassette.exchanges) == 1 and loaded.notes == (f"left: {journal.name}",)
    assert journal.read_bytes() == b"not a journal line\n"


def test_a_live_recordings_journal_is_no_leftover(root: Path) -> None:
    cassette = root / "c.yaml"
    save_cassette(cassette, Cassette())
    journal = journal_path(cassette)
    journal.write_bytes(b"")
    with journal.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert leftover_journal(cassette) is None


@pytest.mark.parametrize("force", [False, True])
def test_the_demo_replaces_an_existing_file_only_with_force(root: Path, force: bool) -> None:
    existing = root / "notes.txt"
    existing.write_text("mine\n")
    if force:
        refuse_bad_new_file(existing, "the demo recording", force)
    else:
        with pytest.raises(UsageError, match="is an existing file; the demo recording would replace it"):
            refuse_bad_new_file(existing, "the demo recording", force)
    refuse_bad_new_file(root / "new" / "demo.yaml", "the demo recording", force)  # folders made later
    assert existing.read_text() == "mine\n"


def test_the_rules_document_names_every_rule_and_refuses_an_unknown_one(root: Path) -> None:
    listed = json.loads(rules_document(RulesRequest(format="json", rules=RuleChoice())))["rules"]
    one = listed[0]["id"]
    assert one in rules_document(RulesRequest(one))
    with pytest.raises(CommerceProxyError, match="rules: no rule 'nope'"):
        rules_document(RulesRequest("nope"))
    with pytest.raises(UsageError, match="--format markdown writes the page of all rules"):
        rules_document(RulesRequest(one, "markdown"))
