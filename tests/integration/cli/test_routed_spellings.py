"""A request spelled another way than the documentation spells it (a trailing slash, repeated slashes, `/V2`),
as the service's own published examples sometimes are, is checked as the operation the service routes it
to: `check` reports the same findings as for the documented spelling, and no undocumented operation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from proxy.core.cassette.document import Cassette
from proxy.core.interchange.har import cassette_to_har
from proxy.core.model.exchange import Exchange
from proxy.store.saving import save_cassette
from proxy.version import __version__
from tests.integration.corpus.published import CORPUS, ENTRY_ID, FEATURE_ID, HOST
from tests.integration.corpus.test_mutations import answer_with, etag
from tests.paths import ROOT

ACCOUNTS = answer_with("links.prev", f"{HOST}/v2/accounts?page[offset]=0&page[limit]=25")(
    CORPUS["accounts list: current page 0 on the first page"].exchanges[0]
)
FEATURE = answer_with("data.attributes.name", "ab")(
    CORPUS["feature update, access configuration"].exchanges[0]
)
ENTRY = etag('"not-weak"')(CORPUS["custom API entry read with etag_id"].exchanges[0])
FLOW = CORPUS["flow entries list: data only"].exchanges[0]
FEATURE_PATH = f"subscriptions/features/{FEATURE_ID}"
ENTRY_PATH = f"extensions/wishlists/{ENTRY_ID}"
# (exchange, its documented spelling, the true violations it holds, other spellings the service routes alike)
EXAMPLES: dict[str, tuple[Exchange, str, set[str], list[str]]] = {
    "accounts": (
        ACCOUNTS,
        "/v2/accounts",
        {"pagination.page.current", "pagination.links.prev"},
        ["/v2/accounts/", "//v2/accounts", "/V2/accounts/", "/v2//accounts//"],
    ),
    "feature": (
        FEATURE,
        f"/v2/{FEATURE_PATH}",
        {"feature.name.length"},
        [f"/v2/{FEATURE_PATH}/", f"/V2//{FEATURE_PATH}", f"//v2/subscriptions//features/{FEATURE_ID}//"],
    ),
    "entry": (
        ENTRY,
        f"/v2/{ENTRY_PATH}",
        {"entry.etag.weak"},
        [f"/v2/{ENTRY_PATH}/", f"//V2/extensions//wishlists/{ENTRY_ID}"],
    ),
    "flow": (
        FLOW,
        "/v2/flows/brands/entries",
        {"pagination.envelope.meta"},
        ["/v2/flows/brands/entries/", "/V2//flows/brands/entries"],
    ),
}


def commerce_proxy(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`python -m proxy ARGS` in `folder`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "proxy", *arguments],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


def spelled(exchange: Exchange, path: str, query: str | None = None) -> Exchange:
    request = replace(exchange.request, path=path, query=exchange.request.query if query is None else query)
    return replace(exchange, request=request)


def test_every_spelling_is_checked_as_its_documented_operation(tmp_path: Path) -> None:
    names = []
    for name, (exchange, documented, _, others) in EXAMPLES.items():
        for number, path in enumerate([documented, *others]):
            query = "page[limit]=25" if name == "accounts" else None
            save_cassette(tmp_path / f"{name}-{number}.yaml", Cassette((spelled(exchange, path, query),)))
            names.append(f"{name}-{number}.yaml")
    done = commerce_proxy(tmp_path, "check", "--format", "json", *names)
    assert done.returncode == 1, done.stderr
    found: dict[str, list[tuple[int, str, str, str]]] = {name: [] for name in names}
    for finding in json.loads(done.stdout)["findings"]:
        found[finding["cassette"]].append(
            (finding["exchange"], finding["rule"], finding["where"], finding["path"])
        )
    for name, (_, _, violations, others) in EXAMPLES.items():
        expected = sorted(found[f"{name}-0.yaml"])
        assert violations <= {rule for _, rule, _, _ in expected}, name
        for number, path in enumerate(others, start=1):
            assert sorted(found[f"{name}-{number}.yaml"]) == [
                (exchange, rule, where, path) for exchange, rule, where, _ in expected
            ], path


def test_the_published_accounts_request_imported_from_a_har_is_a_list_with_its_violations(
    tmp_path: Path,
) -> None:
    """`GET /v2/accounts/?page[limit]=25`, as published, through `import-har` and `check`; the markdown
    report counts it under `GET /v2/accounts`."""
    har = tmp_path / "accounts.har"
    exchange = spelled(ACCOUNTS, "/v2/accounts/", "page[limit]=25")
    har.write_text(json.dumps(cassette_to_har(Cassette((exchange,), HOST), __version__)))
    imported = commerce_proxy(tmp_path, "import-har", "accounts.har", "-o", "accounts.yaml")
    assert imported.returncode == 0, imported.stderr
    checked = commerce_proxy(tmp_path, "check", "--format", "json", "accounts.yaml")
    findings = json.loads(checked.stdout)["findings"]
    assert {f["path"] for f in findings} == {"/v2/accounts/"}
    rules = {f["rule"] for f in findings}
    assert {"pagination.page.current", "pagination.links.prev"} <= rules, checked.stdout
    assert "coverage.undocumented-endpoint" not in rules
    markdown = commerce_proxy(tmp_path, "check", "--format", "markdown", "accounts.yaml").stdout
    assert "| `GET /v2/accounts` |" in markdown and "`GET /v2/accounts/`" not in markdown, markdown
