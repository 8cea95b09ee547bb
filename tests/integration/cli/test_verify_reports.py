"""What a scheduled `verify` job shows and exits with, end to end from the command line: live values as
the service sent them, `null` told from `missing` in every format, the exit table of the docs as it
runs, a token endpoint's OAuth refusal, a report file even when the credentials were refused, and
JUnit grouped as text is."""

from __future__ import annotations

import json
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette
from proxy.core.model.exchange import Body
from proxy.store.cassette_reader.loading import load_cassette
from proxy.store.saving import save_cassette
from tests.integration.cli.test_verify_alarms import CREDENTIALS, Sandbox, record
from tests.paths import ROOT

Answer = tuple[int, Any]  # status and JSON document


class Upstream:
    """A live service on 127.0.0.1, reached as `localhost`: GET answers come from `answers` (target ->
    status and document, with `{origin}` in a string put as its own origin), the token request from
    `token`."""

    def __init__(self, answers: dict[str, Answer], token: Answer = (200, {"access_token": "tok-0123456789"})):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self, answer: Answer) -> None:
                body = json.dumps(answer[1]).replace("{origin}", outer.origin).encode()
                self.send_response(answer[0])
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.answer(token)

            def do_GET(self) -> None:
                self.answer(
                    answers.get(self.path, (404, {"errors": [{"status": "404", "title": "Not Found"}]}))
                )

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return self.origin

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cassette = tmp_path_factory.mktemp("reports") / "session.yaml"
    with Sandbox() as upstream:
        record(cassette, upstream)
    return cassette


def copy_with(recorded: Path, folder: Path, change: Callable[[str, Any], Any] | None = None) -> Path:
    """The recorded cassette copied into `folder`, each JSON answer through `change(target, document)`."""
    cassette = load_cassette(recorded).cassette
    exchanges = []
    for exchange in cassette.exchanges:
        body = exchange.response.body
        if change is not None and body.kind == "json":
            new = Body(
                "json", change(exchange.request.target, json.loads(json.dumps(body.value))), body.decoded_from
            )
            exchange = replace(exchange, response=replace(exchange.response, body=new))
        exchanges.append(exchange)
    path = folder / "session.yaml"
    save_cassette(path, Cassette(tuple(exchanges), cassette.upstream, cassette.confirmed_at))
    return path


def answers_of(cassette: Path, moved_to_own_origin: bool = True) -> dict[str, Answer]:
    """The cassette's answers to serve, their links at the serving origin (the same service moved)."""
    document = load_cassette(cassette).cassette
    served = {}
    for exchange in document.exchanges:
        text = json.dumps(exchange.response.body.value)
        if moved_to_own_origin and document.upstream:
            text = text.replace(document.upstream, "{origin}")
        served[exchange.request.target] = (exchange.response.status, json.loads(text))
    return served


def verify(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["verify", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -------------------------------------------------- live values are what the service sent (item 1)


def last_page_pointing_on(target: str, document: Any) -> Any:
    if target == "/v2/brands":
        document["links"]["next"] = document["links"]["current"] + "&page[offset]=12"
    return document


def test_a_live_link_is_shown_as_the_service_sent_it_in_drift_and_findings(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded_from = load_cassette(recorded).cassette.upstream
    assert recorded_from and "127.0.0.1" in recorded_from
    live = answers_of(copy_with(recorded, tmp_path, last_page_pointing_on))
    with Upstream(live) as upstream:
        code, out, _ = verify(capsys, str(recorded), "--upstream", upstream, *CREDENTIALS)
        _, document, _ = verify(
            capsys, str(recorded), "--upstream", upstream, *CREDENTIALS, "--format", "json"
        )
    assert f"json.links.next: null -> '{upstream}/v2/brands" in out, out
    assert f"found '{upstream}/v2/brands" in out, out  # the finding, judged on what was sent
    assert recorded_from not in out, out
    report = json.loads(document)
    (next_link,) = [item for item in report["drift"] if item["where"] == "json.links.next"]
    assert next_link["recorded"] is None and next_link["live"].startswith(upstream)
    assert any(upstream in finding["message"] for finding in report["findings"]), report["findings"]
    assert recorded_from not in document
    assert code == 0  # a link that was null now set: data drift


def test_update_still_writes_a_live_link_at_the_cassette_origin(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded_from = load_cassette(recorded).cassette.upstream
    cassette = copy_with(recorded, tmp_path)
    live = answers_of(copy_with(recorded, tmp_path / "..", last_page_pointing_on))
    with Upstream(live) as upstream:
        code, _, _ = verify(capsys, str(cassette), "--upstream", upstream, *CREDENTIALS, "--update")
    text = cassette.read_text()
    assert code == 0 and upstream not in text and f"{recorded_from}/v2/brands?page" in text


# ------------------------------------------------ null is not missing, in every format (item 2)

KINDS: dict[str, Any] = {"absent": ..., "null": None, '""': "", "0": 0, "false": False, "[]": [], "{}": {}}
SPELLED = {
    "absent": "missing",
    "null": "null",
    '""': "''",
    "0": "0",
    "false": "false",
    "[]": "[]",
    "{}": "{}",
}
PAIRS = [(a, b) for a in KINDS for b in KINDS if a != b]


def key(a: str, b: str) -> str:
    names = {"absent": "absent", "null": "null", '""': "empty", "0": "zero", "false": "false", "[]": "list"}
    return f"{names.get(a, 'object')}_to_{names.get(b, 'object')}"


def probe(side: int) -> dict[str, Any]:
    return {key(a, b): KINDS[(a, b)[side]] for a, b in PAIRS if KINDS[(a, b)[side]] is not ...}


@pytest.fixture(scope="module")
def kinds_reports(recorded: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """verify's report in each format, of a brands answer whose `probe` changed each value kind into
    each other."""
    folder = tmp_path_factory.mktemp("kinds")

    def with_probe(side: int) -> Callable[[str, Any], Any]:
        def change(target: str, document: Any) -> Any:
            if target == "/v2/brands":
                document["probe"] = probe(side)
            return document

        return change

    cassette = copy_with(recorded, folder, with_probe(0))
    (folder / "live").mkdir()
    live = answers_of(copy_with(recorded, folder / "live", with_probe(1)))
    reports = {}
    with Upstream(live) as upstream:
        for form in ("text", "markdown", "junit", "json"):
            arguments = [str(cassette), "--upstream", upstream, *CREDENTIALS, "--strict", "--format", form]
            code = main(["verify", *arguments, "-o", str(folder / f"report.{form}")])
            assert code == 1
            reports[form] = (folder / f"report.{form}").read_text()
    return reports


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_each_value_kind_is_shown_as_itself_and_only_an_absent_one_as_missing(
    kinds_reports: dict[str, str], a: str, b: str
) -> None:
    where = f"json.probe.{key(a, b)}"
    old, new = SPELLED[a], SPELLED[b]
    assert re.search(
        rf"\n  \w+ +{re.escape(where)}: {re.escape(old)} -> {re.escape(new)}\n", kinds_reports["text"]
    )
    assert f"`{where}` | `{old}` | `{new}` |" in kinds_reports["markdown"]
    junit = "\n".join(
        (node.text or "")
        for node in ET.fromstring(kinds_reports["junit"]).iter()
        if node.tag in ("failure", "system-out")
    )
    assert re.search(rf"(^|\n)\w+ +{re.escape(where)}: {re.escape(old)} -> {re.escape(new)}(\n|$)", junit), (
        junit
    )
    (item,) = [item for item in json.loads(kinds_reports["json"])["drift"] if item["where"] == where]
    for side, kind in (("recorded", a), ("live", b)):
        assert (side in item) == (kind != "absent"), item
        if kind != "absent":
            assert item[side] == KINDS[kind]


# ------------------------------------------- the docs' exit table is what verify exits with (item 3)

DOCS = ROOT / "docs" / "keeping-cassettes-true.md"


def exit_table() -> dict[str, tuple[int, int]]:
    """The docs' exit table: what the run found -> (exit status, exit status with --strict)."""
    text = DOCS.read_text()
    start = text.index("| what the run found | exit status | with `--strict` |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = (int(cells[1]), int(cells[2]))
    return rows


SCENARIOS: dict[str, tuple[str, Callable[[str, Any], Any] | None, Answer | None]] = {
    # row of the table: (how the live service answers, a change to the recording, the token answer)
    "nothing drifted": ("same", None, None),
    "additive drift only (a new field)": ("new-field", None, None),
    "data drift (another value), nothing breaking": ("new-data", None, None),
    "breaking drift": ("rename-field", None, None),
    "error findings on the live answers, no drift": ("same", last_page_pointing_on, None),
    "the credentials were refused": ("same", None, (401, {"error": "invalid_client"})),
    "the service could not be reached, or the input is unusable": ("unreachable", None, None),
}


def test_the_docs_exit_table_names_every_case_the_test_runs() -> None:
    assert set(exit_table()) == set(SCENARIOS)


@pytest.mark.parametrize("row", list(SCENARIOS))
def test_verify_exits_as_the_docs_exit_table_says(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str
) -> None:
    expected = exit_table()[row]
    service, change, token = SCENARIOS[row]
    cassette = copy_with(recorded, tmp_path, change)
    for strict, want in ((False, expected[0]), (True, expected[1])):
        more = ["--strict"] if strict else []
        if service == "unreachable":
            code, _, _ = verify(
                capsys, str(cassette), "--upstream", "http://127.0.0.1:9", *CREDENTIALS, *more
            )
        elif service == "same":
            args = {"token": token} if token else {}
            with Upstream(answers_of(cassette), **args) as upstream:
                code, out, _ = verify(capsys, str(cassette), "--upstream", upstream, *CREDENTIALS, *more)
            if change is not None:
                assert "\nerror pagination.links.next " in out and "0 breaking, 0 additive, 0 data" in out
        else:
            with Sandbox((service,)) as upstream:
                code, _, _ = verify(capsys, str(cassette), "--upstream", upstream, *CREDENTIALS, *more)
        assert code == want, (row, strict)


def test_verify_help_gives_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for said in ("exit status: 0", "1 on breaking drift", "data drift too with --strict", "2 ", "findings"):
        assert said in text, text


# ------------------------------------------------- the token endpoint's OAuth refusal (item 4)


@pytest.mark.parametrize(
    ("status", "document", "refused", "named"),
    [
        (400, {"error": "invalid_client"}, True, "400 invalid_client"),
        (400, {"error": "invalid_grant", "error_description": "expired"}, True, "400 invalid_grant"),
        (400, {"error": "unauthorized_client"}, True, "400 unauthorized_client"),
        (401, {"error": "invalid_client"}, True, "401 invalid_client"),
        (403, {"errors": [{"status": "403", "title": "Forbidden"}]}, True, "403 Forbidden"),
        (400, {"error": "unsupported_grant_type"}, False, "400 (error 'unsupported_grant_type')"),
        (400, {"error": "invalid_request"}, False, "400 (error 'invalid_request')"),
        (400, {"errors": [{"status": "400", "title": "Bad Request"}]}, False, "400 (error 'Bad Request')"),
        (500, "oops", False, "answered 500 without an access_token"),
    ],
)
def test_a_token_endpoint_refusal_says_refused_and_how_to_give_another_other_answers_name_their_error(
    recorded: Path, capsys: pytest.CaptureFixture[str], status: int, document: Any, refused: bool, named: str
) -> None:
    with Upstream(answers_of(recorded), token=(status, document)) as upstream:
        code, out, err = verify(capsys, str(recorded), "--upstream", upstream, *CREDENTIALS)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert named in err, err
    assert (
        "refused the client credentials" in err and "--client-id" in err and "--token" in err
    ) == refused, err


# --------------------------------------- with -o, a refused run still writes its report (item 5)


@pytest.mark.parametrize("form", ["text", "json", "junit", "markdown"])
@pytest.mark.parametrize("where", ["token 400 invalid_grant", "token 401", "every request 401"])
def test_a_refused_run_with_o_writes_a_report_saying_so_and_exits_2(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str, where: str
) -> None:
    answers = answers_of(recorded)
    token: Answer = (200, {"access_token": "tok-0123456789"})
    if where == "token 400 invalid_grant":
        token = (400, {"error": "invalid_grant"})
    elif where == "token 401":
        token = (401, {"errors": [{"status": "401", "title": "Unauthorized"}]})
    else:
        answers = {target: (401, {"errors": [{"title": "Unauthorized"}]}) for target in answers}
    report = tmp_path / f"report.{form}"
    with Upstream(answers, token=token) as upstream:
        code, out, err = verify(
            capsys, str(recorded), "--upstream", upstream, *CREDENTIALS, "--format", form, "-o", str(report)
        )
    assert code == 2 and out == "" and "refused" in err
    text = report.read_text()
    assert "refused" in text and "--client-id" in text and "tok-0123456789" not in text
    if form == "json":
        document = json.loads(text)
        assert document["drift"] == [] and document["refused"] and document["exchanges"] == 0
    if form == "junit":
        suite = ET.fromstring(text).find("testsuite")
        assert suite is not None and suite.get("errors") == "1" and suite.find("testcase/error") is not None
    assert "breaking" not in text.replace('"breaking": 0', "")


# ---------------------------------------------------- JUnit grouped as text and Markdown are (item 6)


def test_junit_groups_the_same_difference_in_every_record(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Sandbox(("rename-field",)) as upstream:
        _, out, _ = verify(capsys, str(recorded), "--upstream", upstream, *CREDENTIALS, "--format", "junit")
    cases = {case.get("name"): case for case in ET.fromstring(out).iter("testcase")}
    brands = cases["#1 GET /v2/brands"]
    failure, rest = brands.find("failure"), brands.find("system-out")
    assert failure is not None and rest is not None
    assert re.search(r"breaking +json\.data\[\*\]\.name missing \(12x\)", failure.text or ""), failure.text
    assert re.search(r"additive +json\.data\[\*\]\.title added \(12x\)", rest.text or ""), rest.text
    assert len((failure.text or "").splitlines()) <= 3 and len((rest.text or "").splitlines()) <= 3
