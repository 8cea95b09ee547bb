"""One documented violation at a time, planted in the feature, entry and list traffic of the unseen
corpus, is caught by its own rule, once: the mutation adds exactly the findings of that one fact to the
base's classified ones. Some plant the fact in an exchange whose earlier state only another operation's
answer shows (a feature's GET, an entry's PUT answer or list): every rule learns from every answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from proxy.core.model.exchange import Body, Exchange
from proxy.core.rules.engine import Checker
from proxy.store.rule_files import load_rules
from proxy.store.shipped import shipped_dir
from tests.integration.corpus import unseen_fe as fe
from tests.integration.corpus.unseen_corpus import CORPUS
from tests.integration.corpus.unseen_rb2 import MOLTIN
from tests.unit.core.exchanges import JSON_TYPE, REMOVE, changed

RULES = load_rules(shipped_dir("rules"))
Finding = tuple[int, str, str]
Session = list[Exchange]
Mutation = Callable[[Session], Session]


def at(number: int, *changes: tuple[str, Any]) -> Mutation:
    """The session with places of one exchange's answer body changed."""

    def mutate(session: Session) -> Session:
        exchange = session[number]
        body = exchange.response.body.value
        for place, value in changes:
            body = changed(body, place, value)
        response = replace(exchange.response, body=Body("json", body))
        return [*session[:number], replace(exchange, response=response), *session[number + 1 :]]

    return mutate


def swap(number: int, new: Callable[[Exchange], Exchange]) -> Mutation:
    def mutate(session: Session) -> Session:
        return [*session[:number], new(session[number]), *session[number + 1 :]]

    return mutate


def status(code: int) -> Callable[[Exchange], Exchange]:
    return lambda exchange: replace(exchange, response=replace(exchange.response, status=code))


def response_headers(headers: tuple[tuple[str, str], ...]) -> Callable[[Exchange], Exchange]:
    return lambda exchange: replace(exchange, response=replace(exchange.response, headers=headers))


def request_headers(headers: tuple[tuple[str, str], ...]) -> Callable[[Exchange], Exchange]:
    return lambda exchange: replace(exchange, request=replace(exchange.request, headers=headers))


def records_swapped(number: int) -> Mutation:
    def mutate(session: Session) -> Session:
        data = list(session[number].response.body.value["data"])
        data[0], data[1] = data[1], data[0]
        return at(number, ("data", data))(session)

    return mutate


def classified(name: str) -> tuple[Session, list[Finding]]:
    example = CORPUS[name]
    return list(example.exchanges), [(n, rule, where) for n, rule, where, _ in example.findings]


def cleaned(name: str, *changes: tuple[str, Any]) -> tuple[Session, list[Finding]]:
    """A one-exchange recorded page with its own violations put right: the base has no finding."""
    session, _ = classified(name)
    return at(0, *changes)(session), []


CATEGORY_PAGE = f"{MOLTIN}/v2/categories?page[limit]={{}}&page[offset]={{}}"
FILES_PAGE = f"{MOLTIN}/v2/files?page[offset]={{}}&page[limit]=10&filter="
BASES: dict[str, tuple[Session, list[Finding]]] = {
    "feature": classified("EPC feature: created, read, its description updated, listed"),
    "null": classified("EPC feature update: description removed by null"),
    "entry": classified("DEV wishlist entry: created, read, updated with If-Match, read again"),
    "inventory": classified("DEV location inventory entry: PUT with If-Match, then read"),
    "listed": classified("DEV wishlist entries listed, then one read"),
    "read": (
        [fe.read(fe.WISHLIST, fe.wishlist(0, fe.FIRST_TAG), fe.FIRST_TAG)],
        [],
    ),
    "categories": cleaned(
        "RB categories, page[limit]=10: results.total is the page size", ("meta.results.total", 28)
    ),
    "rest": cleaned(
        "RB categories, page[offset]=10 alone: the rest, its total the records left",
        ("meta.results.total", 28),
        ("links.prev", CATEGORY_PAGE.format(100, 0)),
        ("links.next", None),
    ),
    "by name": cleaned("RB collections, sort=name", ("links.prev", None), ("links.next", None)),
    "by -name": cleaned("RB categories, sort=-name", ("links.prev", None), ("links.next", None)),
    "files": classified("RB files, page 2 of 83 by tens"),
}
LATER = "2024-11-06T13:25:02.118Z"
OTHER_ID = "0b7e1f3a-5c2d-4e6f-8a9b-1c2d3e4f5a6b"
TAG = fe.FIRST_TAG
NO_TOKEN = [
    (2, "auth.bearer.accepted-without", "headers.Authorization"),
    (2, "auth.bearer.missing", "headers.Authorization"),
]
MUTATIONS: list[tuple[str, str, Mutation, list[Finding]]] = [
    ("feature", "PUT answer changes the tag it did not send (the GET showed it)", at(2, ("data.attributes.configuration.tag", "gold")), [(2, "feature.update.others-kept", "data.attributes.configuration.tag")]),
    ("feature", "PUT answer changes the name it did not send (the GET showed it)", at(2, ("data.attributes.name", "Premium")), [(2, "feature.update.others-kept", "data.attributes.name")]),
    ("feature", "PUT answer drops the external_ref the POST answer showed", lambda s: at(0, ("data.attributes.external_ref", "crm-7"))(at(1, ("data.attributes.external_ref", "crm-7"))(s)), [(2, "feature.update.others-kept", "data.attributes.external_ref")]),
    ("feature", "empty PUT moves updated_at (the GET showed it)", swap(2, lambda _: fe.put({}, {"data": fe.feature(LATER)})), [(2, "feature.update.empty-unchanged", "data.meta.timestamps.updated_at")]),
    ("feature", "PUT answer keeps the old description", at(2, ("data.attributes.description", "Premium Access")), [(2, "feature.update.sent-applied", "data.attributes.description")]),
    ("feature", "PUT answered 201", swap(2, status(201)), [(2, "feature.update.status", "status")]),
    ("feature", "PUT answer owner tenant", at(2, ("data.meta.owner", "tenant")), [(2, "feature.meta.owner", "data.meta.owner")]),
    ("feature", "PUT answer updated_at without fractional seconds", at(2, ("data.meta.timestamps.updated_at", "2024-11-06T13:25:02Z")), [(2, "feature.timestamps.format", "data.meta.timestamps.updated_at")]),
    ("feature", "PUT answer updated before created", at(2, ("data.meta.timestamps.updated_at", "2024-11-05T13:25:02.118Z")), [(2, "feature.timestamps.order", "data.meta.timestamps.updated_at")]),
    ("feature", "PUT answer type feature", at(2, ("data.type", "feature")), [(2, "feature.type", "data.type")]),
    ("feature", "PUT answer names another feature", at(2, ("data.id", OTHER_ID)), [(2, "feature.id.matches-path", "data.id")]),
    ("feature", "PUT accepted without a token", swap(2, request_headers(JSON_TYPE)), NO_TOKEN),
    ("null", "null description sent, description kept", at(0, ("data.attributes.description", "Premium Access")), [(0, "feature.update.null-removes", "data.attributes.description")]),
    ("read", "entry read whose ETag does not match etag_id", at(0, ("data.meta.etag_id", fe.SECOND_TAG)), [(0, "entry.etag.matches-etag-id", "headers.ETag")]),
    ("read", "entry read without an ETag", swap(0, response_headers(JSON_TYPE)), [(0, "entry.etag.present", "headers.ETag")]),
    ("read", "entry read with a strong ETag", swap(0, response_headers((*JSON_TYPE, ("ETag", f'"{TAG}"')))), [(0, "entry.etag.weak", "headers.ETag")]),
    # the PUT answer (exchange 2) showed another version: the first read's ETag coming back on other
    # content is an ETag naming two versions (identifies-version), once
    ("entry", "entry changed, its ETag and etag_id kept (after a read)", lambda s: swap(3, response_headers((*JSON_TYPE, ("ETag", f'W/"{TAG}"'))))(at(3, ("data.meta.etag_id", TAG))(s)), [(3, "entry.etag.identifies-version", "headers.ETag")]),
    ("inventory", "read differs from the PUT answer under the same ETag", at(1, ("data.amount", 2)), [(1, "entry.etag.changes-with-entry", "headers.ETag")]),
    ("listed", "read differs from the listed entry under the same ETag", at(1, ("data.items_count", 5)), [(1, "entry.etag.changes-with-entry", "headers.ETag")]),
    ("categories", "one wrong page count", at(0, ("meta.page.total", 4)), [(0, "pagination.page.total", "meta.page.total")]),
    ("categories", "last link to offset 30", at(0, ("links.last", CATEGORY_PAGE.format(10, 30))), [(0, "pagination.links.targets", "links.last")]),
    ("categories", "current page 2 on offset 0", at(0, ("meta.page.current", 2)), [(0, "pagination.page.current", "meta.page.current")]),
    ("rest", "offset 0 answered for page[offset]=10", at(0, ("meta.page.offset", 0)), [(0, "pagination.page.offset-requested", "meta.page.offset")]),
    ("rest", "lower_bound 29 on the short last page of 28", at(0, ("meta.results.total_method", "lower_bound"), ("meta.results.total", 29), ("meta.results.all", REMOVE)), [(0, "pagination.results.total-method-consistent", "meta.results.total")]),
    ("rest", "a next link after the end", at(0, ("links.next", CATEGORY_PAGE.format(100, 110))), [(0, "pagination.links.next", "links.next")]),
    ("by name", "two collections out of name order", records_swapped(0), [(0, "pagination.sort.honoured", "data[1]")]),
    ("by -name", "two categories out of reverse name order", records_swapped(0), [(0, "pagination.sort.honoured", "data[1]")]),
    ("files", "next link to offset 30", at(0, ("links.next", FILES_PAGE.format(30))), [(0, "pagination.links.targets", "links.next")]),
    ("files", "limit 20 answered for page[limit]=10", at(0, ("meta.page.limit", 20)), [(0, "pagination.page.limit-requested", "meta.page.limit")]),
    ("files", "prev link missing on page 2", at(0, ("links.prev", None)), [(0, "pagination.links.prev", "links.prev")]),
]  # fmt: skip


def findings(session: Session) -> list[Finding]:
    return sorted((f.exchange, f.rule, f.where) for f in Checker(RULES).check_all(session))


def test_the_bases_give_their_classified_findings() -> None:
    assert {name: findings(session) for name, (session, _) in BASES.items()} == {
        name: sorted(expected) for name, (_, expected) in BASES.items()
    }


@pytest.mark.parametrize(
    ("base", "what", "mutate", "added"),
    MUTATIONS,
    ids=[f"{added[0][1]}: {what}" for _, what, _, added in MUTATIONS],
)
def test_a_planted_violation_is_caught_once_by_its_rule(
    base: str, what: str, mutate: Mutation, added: list[Finding]
) -> None:
    session, expected = BASES[base]
    assert findings(mutate(session)) == sorted(expected + added), what


def test_there_are_thirty_mutations_on_feature_entry_and_list_traffic() -> None:
    assert len(MUTATIONS) >= 30
    assert {base for base, *_ in MUTATIONS} >= {"feature", "entry", "inventory", "listed", "categories"}
