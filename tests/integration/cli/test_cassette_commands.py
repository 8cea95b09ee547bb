"""`commerce-proxy cassette ...` on real cassette files, including hand-broken ones."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from proxy.cli.main import main
from proxy.core.cassette.document import Cassette, cassette_to_document, dump_cassette
from proxy.core.model.exchange import Body, Exchange, Request, Response
from proxy.store.cassette_reader.loading import read_cassette_file
from proxy.store.saving import save_cassette
from proxy.store.shipped import shipped_dir
from tests.integration.cli.test_cli import one_error_line

DEMO = shipped_dir("cassettes") / "demo-session.yaml"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped demo cassette in a folder with no project config."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "demo.yaml"
    shutil.copyfile(DEMO, path)
    return path


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str]:
    code = main(["cassette", *arguments])
    return code, capsys.readouterr().out


def exchanges(path: Path) -> tuple[Exchange, ...]:
    return read_cassette_file(path).exchanges


def findings_per_exchange(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[int, int]:
    main(["check", "--format", "json", str(path)])
    report = json.loads(capsys.readouterr().out)
    counts: dict[int, int] = {}
    for finding in report["findings"]:
        counts[finding["exchange"]] = counts.get(finding["exchange"], 0) + 1
    return counts


def test_list_shows_every_exchange_with_the_findings_check_reports(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """list has one row per exchange; its findings counts are those of `check`."""
    code, out = run(capsys, "list", str(demo), "--format", "json")
    assert code == 0
    rows = json.loads(out)["exchanges"]
    recorded = exchanges(demo)
    assert [(row["method"], row["path"], row["status"]) for row in rows] == [
        (item.request.method, item.request.path, item.response.status) for item in recorded
    ]
    expected = findings_per_exchange(demo, capsys)
    assert expected, "the demo cassette has findings to count"
    assert {row["index"]: row["findings"] for row in rows if row["findings"]} == expected
    code, out = run(capsys, "list", str(demo))
    lines = out.splitlines()
    assert lines[0].split() == ["INDEX", "METHOD", "STATUS", "ERRORS", "WARNINGS", "INFO", "PATH"]
    assert len(lines) == len(recorded) + 1
    assert lines[3].split()[:3] == ["2", "PUT", "200"]


def test_show_prints_one_exchange_and_its_findings(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """show INDEX prints the exchange as stored, with each finding and its documentation section."""
    code, out = run(capsys, "show", str(demo), "5")
    assert code == 0
    shown = yaml.safe_load(out)
    assert shown["index"] == 5
    assert shown["response"]["status"] == exchanges(demo)[5].response.status
    assert "# 2 finding(s)" in out and "documentation: " in out
    code, out = run(capsys, "show", str(demo), "-1", "--format", "json")
    document = json.loads(out)
    assert document["index"] == len(exchanges(demo)) - 1
    assert isinstance(document["findings"], list)


def test_grep_selects_with_the_shared_grammar(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """grep lists what an expression selects, exits 1 when nothing matches and 2 on a bad expression."""
    code, out = run(capsys, "grep", str(demo), "method=PUT status>=400", "--format", "json")
    assert code == 0
    rows = json.loads(out)["exchanges"]
    assert rows and all(row["method"] == "PUT" and row["status"] >= 400 for row in rows)
    assert len(rows) == sum(
        1 for item in exchanges(demo) if item.request.method == "PUT" and item.response.status >= 400
    )
    code, out = run(capsys, "grep", str(demo), 'body~"premium_support" and not path~extensions')
    assert code == 0 and "/v2/subscriptions/features/" in out and "extensions" not in out
    code, out = run(capsys, "grep", str(demo), "status=599")
    assert code == 1 and out == ""
    assert main(["cassette", "grep", str(demo), "method=PUT stauts>=400"]) == 2
    assert "EXPR 'method=PUT stauts>=400': column 12, 'stauts': unknown field" in one_error_line(capsys)


def test_grep_over_a_folder_names_each_cassette(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """grep on a folder searches every cassette in it and says which one each row is from."""
    shutil.copyfile(shipped_dir("cassettes") / "pagination-walk.yaml", demo.parent / "walk.yaml")
    code, out = run(capsys, "grep", str(demo.parent), "status=200 and method=GET")
    assert code == 0
    assert "demo.yaml" in out and "walk.yaml" in out


def test_delete_removes_exactly_the_named_exchanges(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """delete 1 13 -1 leaves every other exchange unchanged and in order."""
    before = exchanges(demo)
    code, out = run(capsys, "delete", str(demo), "1", "13", "-1")
    assert code == 0, out
    assert exchanges(demo) == tuple(
        item for index, item in enumerate(before) if index not in {1, 13, len(before) - 1}
    )
    assert "deleted 3 exchange(s)" in out and "0 new finding(s)" in out and "4 finding(s) gone" in out


def test_deleting_history_that_later_answers_rely_on_is_caught(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Removing a feature update makes the next answer contradict history: shown as new errors, exit 1."""
    code, out = run(capsys, "delete", str(demo), "3")
    assert code == 1
    assert "new error feature.update." in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["delete", "{path}", "99"], "index 99: the cassette has 18 exchange(s), 0 to 17"),
        (["delete", "{path}", "two"], "index 'two': expected a whole number"),
        (["set", "{path}", "0", "resp.nothing", "1"], "resp.nothing: unknown field"),
        (["set", "{path}", "0", "status", "999"], "status: expected a final HTTP status 200-599"),
        (["set", "{path}", "0", "resp.header.X-A", "a\r\nSet-Cookie: x=1"], "cannot hold CR, LF or NUL"),
        (["set", "{path}", "0", "reason", "OK\r\n\r\nHTTP/1.1 200 OK"], "a reason phrase cannot hold CR"),
        (["set", "{path}", "0", "path", "/v2 HTTP/1.1"], "a path cannot hold ' '"),
        (["set", "{path}", "2", "resp.json.data.nope.deeper", "1"], "no object or list at 'nope'"),
        (["unset", "{path}", "0", "req.header.X-Absent"], "the request has no X-Absent header"),
        (
            ["keep", "{path}", "--where", "status>>1"],
            "--where 'status>>1': column 8, '>1': status > needs a number",
        ),
        (["rehost", "{path}", "--to", "ftp://x"], "--to 'ftp://x': expected an http:// or https:// URL"),
        (
            ["merge", "{path}", "-o", "{other}"],
            "is an existing cassette; the merged cassette would replace it",
        ),
    ],
)
def test_unusable_edits_are_one_line_and_change_nothing(
    demo: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    """A refused edit exits 2 with one line and leaves the file byte for byte as it was."""
    other = demo.parent / "other.yaml"
    other.write_text("keep me\n")
    original = demo.read_bytes()
    filled = [item.format(path=demo, other=other) for item in arguments]
    assert main(["cassette", *filled]) == 2
    assert message in one_error_line(capsys)
    assert demo.read_bytes() == original
    assert other.read_text() == "keep me\n"
    assert sorted(item.name for item in demo.parent.iterdir()) == ["demo.yaml", "other.yaml"]


def test_a_hand_broken_cassette_is_refused_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cassette with a YAML error is named with its line by each command, and left untouched."""
    monkeypatch.chdir(tmp_path)
    broken = tmp_path / "broken.yaml"
    text = DEMO.read_text().replace("    status: 401", "    status: [401", 1)
    broken.write_text(text)
    for arguments in (
        ["list"],
        ["show", "0"],
        ["grep", "status=200"],
        ["delete", "0"],
        ["keep", "--where", "status=200"],
        ["set", "0", "status", "201"],
        ["redact"],
        ["fix-etag"],
        ["fmt"],
    ):
        where = [arguments[0], str(broken), *arguments[1:]]
        assert main(["cassette", *where]) == 2, arguments
        line = one_error_line(capsys)
        assert f"{broken}:" in line and "not valid YAML" in line, line
    assert broken.read_text() == text


def test_keep_where_keeps_only_the_selection(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """keep --where EXPR keeps the selected exchanges in their order; findings can select too."""
    before = exchanges(demo)
    code, _ = run(capsys, "keep", str(demo), "--where", "method=GET or findings>0")
    assert code == 0
    assert 0 < len(exchanges(demo)) < len(before)
    assert all(item in before for item in exchanges(demo))
    assert [before.index(item) for item in exchanges(demo)] == sorted(
        before.index(item) for item in exchanges(demo)
    )


def test_merge_orders_by_time_and_drops_only_exact_repeats(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Merging two interleaved halves restores the recording; a repeat is dropped, a new answer kept."""
    read = read_cassette_file(demo)
    # Times that rise through the session (a re-recorded cassette's need not: see test_edits.py).
    rising = (
        replace(item, recorded_at=f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z")
        for n, item in enumerate(read.exchanges)
    )
    recorded = Cassette(tuple(rising), read.upstream)
    odd = Cassette(recorded.exchanges[1::2], recorded.upstream)
    even = Cassette(recorded.exchanges[0::2] + recorded.exchanges[1:2], recorded.upstream)
    changed = recorded.exchanges[2]
    again = Exchange(
        changed.request,
        Response(changed.response.status, changed.response.headers, Body("json", {"data": "other"})),
        "2026-06-01T00:00:00Z",  # later than all of them, and not in the future
    )
    save_cassette(demo.parent / "odd.yaml", Cassette((*odd.exchanges, again), recorded.upstream))
    save_cassette(demo.parent / "even.yaml", even)
    out_path = demo.parent / "merged.yaml"
    code, out = run(
        capsys, "merge", str(demo.parent / "even.yaml"), str(demo.parent / "odd.yaml"), "-o", str(out_path)
    )
    assert code == 0, out
    assert exchanges(out_path) == (*recorded.exchanges, again)
    assert "1 exact repeat(s) dropped" in out


def test_merge_refuses_two_origins(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cassettes recorded from different services are not mixed silently."""
    elsewhere = demo.parent / "elsewhere.yaml"
    save_cassette(elsewhere, Cassette(exchanges(demo)[:1], "https://shop.example"))
    assert main(["cassette", "merge", str(demo), str(elsewhere), "-o", str(demo.parent / "m.yaml")]) == 2
    assert "rehost one first" in one_error_line(capsys)


@pytest.mark.parametrize("by", ["status", "path"])
def test_split_partitions_the_cassette(demo: Path, capsys: pytest.CaptureFixture[str], by: str) -> None:
    """split writes one cassette per group; together they hold every exchange once, in order."""
    out_dir = demo.parent / "parts"
    code, _ = run(capsys, "split", str(demo), "--by", by, "-o", str(out_dir))
    assert code == 0
    parts = {path.stem: exchanges(path) for path in out_dir.glob("*.yaml")}
    recorded = exchanges(demo)
    assert sum(len(part) for part in parts.values()) == len(recorded)
    for part in parts.values():
        key = {(item.response.status if by == "status" else item.request.path) for item in part}
        assert len(key) == 1
        assert [recorded.index(item) for item in part] == sorted(recorded.index(item) for item in part)
    if by == "status":
        assert {"200", "400", "401"} <= set(parts)
    assert main(["cassette", "split", str(demo), "--by", by, "-o", str(out_dir)]) == 2
    assert "pass --force" in one_error_line(capsys)


SECRETS = (
    "tok-SECRET-123456",
    "cookie-SECRET-98765",
    "form-SECRET-55555",
    "alice@example.com",
    "key-SECRET-777",
)


def secret_cassette(path: Path) -> None:
    """A cassette written as an old tool might have: secrets in headers, query, form and JSON."""
    login = Exchange(
        Request(
            "POST",
            "/oauth/access_token",
            "api_key=key-SECRET-777",
            (
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Cookie", "session=cookie-SECRET-98765"),
            ),
            Body("text", "grant_type=client_credentials&client_secret=form-SECRET-55555"),
        ),
        Response(
            200, (("Content-Type", "application/json"),), Body("json", {"access_token": "tok-SECRET-123456"})
        ),
    )
    customer = Exchange(
        Request("GET", "/v2/customers/1", "", (("Authorization", "Bearer tok-SECRET-123456"),)),
        Response(
            200,
            (("Content-Type", "application/json"),),
            Body(
                "json", {"data": {"attributes": {"email": "alice@example.com", "echo": "tok-SECRET-123456"}}}
            ),
        ),
    )
    path.write_text(dump_cassette(Cassette((login, customer), "http://127.0.0.1:9000")))


def test_redact_leaves_no_secret_byte_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defaults cover Authorization, cookies, API keys and token fields; --json-path adds personal data."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "old.yaml"
    secret_cassette(path)
    assert all(secret.encode() in path.read_bytes() for secret in SECRETS)
    code, out = run(capsys, "redact", str(path), "--json-path", "data.attributes.email")
    assert code == 0, out
    raw = path.read_bytes()
    assert not [secret for secret in SECRETS if secret.encode() in raw]
    assert b"Bearer <redacted>" in raw and b"session=<redacted>" in raw
    assert len(exchanges(path)) == 2
    again = path.read_bytes()
    run(capsys, "redact", str(path), "--json-path", "data.attributes.email")
    assert path.read_bytes() == again, "the placeholder is stable"


def test_redaction_settings_in_pyproject_apply_to_cassette_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """[tool.commerce-proxy.redact] in pyproject.toml is applied by every command that writes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.commerce-proxy.redact]\njson_paths = ["data.attributes.email"]\nheaders = ["X-Shop"]\n'
    )
    path = tmp_path / "old.yaml"
    secret_cassette(path)
    code, _ = run(capsys, "set", str(path), "1", "req.header.X-Shop", "shop-SECRET-4242")
    assert code == 0
    raw = path.read_bytes()
    assert b"alice@example.com" not in raw and b"shop-SECRET-4242" not in raw
    assert b"tok-SECRET-123456" not in raw
    (tmp_path / "pyproject.toml").write_text('[tool.commerce-proxy.redact]\nheaderz = ["X"]\n')
    assert main(["cassette", "list", str(path)]) == 2
    assert "redact: unknown setting(s) headerz" in one_error_line(capsys)


def test_set_that_breaks_the_etag_agreement_is_caught_and_fix_etag_repairs_it(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edit that breaks ETag = W/"etag_id" is shown as a new error (exit 1); fix-etag repairs it."""
    code, out = run(capsys, "set", str(demo), "6", "resp.header.ETag", 'W/"edited"')
    assert code == 1
    assert "new error entry.etag.matches-etag-id: #6" in out
    assert ("ETag", 'W/"edited"') in exchanges(demo)[6].response.headers
    code, out = run(capsys, "fix-etag", str(demo))
    assert code == 0
    assert "on 1 exchange(s) (#6)" in out and "1 finding(s) gone" in out
    etag_id = exchanges(demo)[6].response.body.value["data"]["meta"]["etag_id"]  # type: ignore[index,call-overload]
    assert ("ETag", f'W/"{etag_id}"') in exchanges(demo)[6].response.headers


def test_set_and_unset_edit_body_fields_and_headers(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """set parses JSON values (--string keeps text); unset removes; the rest of the file is unchanged."""
    before = exchanges(demo)
    code, out = run(capsys, "set", str(demo), "0", "resp.json.expires_in", "7200")
    assert code == 0, out
    assert exchanges(demo)[0].response.body.value["expires_in"] == 7200  # type: ignore[index,call-overload]
    run(capsys, "set", str(demo), "0", "resp.json.expires_in", "7200", "--string")
    assert exchanges(demo)[0].response.body.value["expires_in"] == "7200"  # type: ignore[index,call-overload]
    run(capsys, "unset", str(demo), "1", "resp.header.Date")
    assert all(name != "Date" for name, _ in exchanges(demo)[1].response.headers)
    assert exchanges(demo)[2:] == before[2:]
    code, out = run(capsys, "set", str(demo), "3", "status", "201", "--dry-run")
    assert out.startswith("would: ") and exchanges(demo)[3] == before[3]


def test_rehost_moves_the_upstream_and_every_link(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rehost rewrites the upstream and absolute links at the old origin; replayable as before."""
    walk = demo.parent / "walk.yaml"
    shutil.copyfile(shipped_dir("cassettes") / "pagination-walk.yaml", walk)
    old = read_cassette_file(walk).upstream
    assert old and old.encode() in walk.read_bytes()
    code, out = run(capsys, "rehost", str(walk), "--to", "https://shop.example/commerce")
    assert code == 0, out
    raw = walk.read_bytes()
    assert old.encode() not in raw
    assert b"https://shop.example/commerce/v2/" in raw
    assert read_cassette_file(walk).upstream == "https://shop.example/commerce"


def test_fmt_normalises_is_idempotent_and_check_reports(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fmt --check lists a hand-laid-out format 1 file (exit 1); fmt makes it the normal format 2 layout."""
    document = cassette_to_document(read_cassette_file(demo))
    document["cassette_format"] = 1  # format 1: JSON bodies as YAML structure, here in flow style
    demo.write_text(yaml.safe_dump(document, default_flow_style=True, width=60, sort_keys=False))
    code, out = run(capsys, "fmt", "--check", str(demo.parent))
    assert code == 1 and f"{demo}: not in the normal layout" in out
    code, _ = run(capsys, "fmt", str(demo))
    assert code == 0
    normal = demo.read_bytes()
    assert normal == DEMO.read_bytes()
    code, out = run(capsys, "fmt", str(demo))
    assert code == 0 and out == "" and demo.read_bytes() == normal
    assert run(capsys, "fmt", "--check", str(demo)) == (0, "")


def test_rewrites_refuse_to_drop_hand_written_comments(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cassette with a comment is not rewritten unless --drop-comments says so; '#' in values is no comment."""
    text = DEMO.read_text().replace("    status: 401", "    status: 401   # the token expired on purpose", 1)
    demo.write_text(text)
    line = text[: text.index("# the token")].count("\n") + 1
    assert main(["cassette", "delete", str(demo), "0"]) == 2
    assert f"{demo}:{line}: has a hand-written comment" in one_error_line(capsys)
    assert demo.read_text() == text
    code, _ = run(capsys, "delete", str(demo), "0", "--drop-comments")
    assert code == 0 and "# the token" not in demo.read_text()
    run(capsys, "set", str(demo), "0", "resp.json.errors.0.detail", "a # b")
    assert run(capsys, "delete", str(demo), "0")[0] in (0, 1)


def test_edits_leave_no_temporary_files(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every write goes through a temporary file and a rename; nothing is left beside the cassette."""
    run(capsys, "delete", str(demo), "0")
    run(capsys, "fmt", str(demo))
    run(capsys, "fix-etag", str(demo))
    assert [item.name for item in demo.parent.iterdir()] == ["demo.yaml"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["cassette", "set", "c.yaml"], "the following arguments are required: INDEX, FIELD, VALUE"),
        (["cassette", "frob"], "invalid choice: 'frob'"),
        (["cassette", "split", "c.yaml", "--by", "colour", "-o", "d"], "invalid choice: 'colour'"),
    ],
)
def test_command_line_mistakes_are_one_line_too(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    """A missing or unknown argument is one line naming it and where help is, and exit 2."""
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert message in line and "--help" in line


def test_the_shipped_cassettes_are_in_the_normal_layout(capsys: pytest.CaptureFixture[str]) -> None:
    """fmt --check passes on cassettes/, as a pre-commit hook would run it."""
    assert main(["cassette", "fmt", "--check", str(shipped_dir("cassettes"))]) == 0
