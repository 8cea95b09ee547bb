"""Cassette edits in the pure core: merge order, split names, field edits, ETag repair, comments."""

from __future__ import annotations

import pytest

from proxy.core.cassette.comments import comment_line
from proxy.core.cassette.document import HEADER_COMMENT, Cassette
from proxy.core.editing.edits import (
    EditError,
    fix_etags,
    merge_cassettes,
    set_field,
    split_cassette,
    unset_field,
)
from proxy.core.model.exchange import Body, Exchange, Request, Response
from tests.unit.core.exchanges import exchange


def timed(path: str, at: str | None, answer: object = None) -> Exchange:
    return Exchange(Request("GET", path), Response(200, (), Body("json", answer or {"p": path})), at)


def test_merge_keeps_untimed_exchanges_after_their_predecessor() -> None:
    """An exchange with no recorded_at sorts with the one before it in its own cassette."""
    first = Cassette(
        (timed("/a", "2026-01-01T00:00:01Z"), timed("/b", None), timed("/c", "2026-01-01T00:00:05Z"))
    )
    second = Cassette((timed("/x", "2026-01-01T00:00:03Z"), timed("/a", "2026-01-01T00:00:09Z")))
    merged, dropped = merge_cassettes([("one", first), ("two", second)])
    assert [item.request.path for item in merged.exchanges] == ["/a", "/b", "/x", "/c"]
    assert dropped == 1


def test_merge_keeps_each_cassettes_own_order_whatever_its_times() -> None:
    """A re-recording keeps unchanged entries with their old times, so a cassette's times need not
    rise: merging must not reorder its exchanges (replay answers a repeated request in that order)."""
    rerecorded = Cassette(
        (
            timed("/a", "2026-11-24T00:00:00Z"),  # changed, so recorded anew
            timed("/list", "2026-01-01T00:00:00Z", {"v": 1}),  # unchanged, kept with its old time
            timed("/list", "2026-11-24T00:00:02Z", {"v": 2}),
        )
    )
    other = Cassette((timed("/x", "2026-06-01T00:00:00Z"), timed("/y", "2026-11-24T00:00:01Z")))
    merged, _ = merge_cassettes([("one", rerecorded), ("two", other)])
    assert [(item.request.path, item.recorded_at) for item in merged.exchanges] == [
        ("/x", "2026-06-01T00:00:00Z"),
        ("/a", "2026-11-24T00:00:00Z"),
        ("/list", "2026-01-01T00:00:00Z"),
        ("/y", "2026-11-24T00:00:01Z"),
        ("/list", "2026-11-24T00:00:02Z"),
    ]


def test_split_by_path_gives_distinct_readable_names() -> None:
    """Paths become file names; two paths with the same slug do not share a file."""
    cassette = Cassette((timed("/v2/a-b", None), timed("/v2/a/b", None), timed("/", None)))
    assert sorted(split_cassette(cassette, "path")) == ["root", "v2-a-b", "v2-a-b-2"]


def test_field_edits_refuse_what_they_cannot_do() -> None:
    """Unknown fields, a JSON edit of a non-JSON body and a bad path are EditErrors."""
    item = exchange("GET", "/v2/products", body={"data": [{"id": "p1"}]})
    assert set_field(item, "resp.json.data.0.id", "p2").response.body.value == {"data": [{"id": "p2"}]}
    assert unset_field(item, "resp.json.data.0").response.body.value == {"data": []}
    with pytest.raises(EditError, match="the request body is not JSON"):
        set_field(item, "req.json.a", 1)
    with pytest.raises(EditError, match="'5' is not an item of the list"):
        set_field(item, "resp.json.data.5", 1)
    with pytest.raises(EditError, match="unknown field"):
        set_field(item, "response.status", 1)
    assert item.response.body.value == {"data": [{"id": "p1"}]}, "edits never change their input"


def test_fix_etags_only_touches_entry_answers_that_carry_or_owe_an_etag() -> None:
    """GET answers get W/"etag_id"; a PUT answer without an ETag is not given one."""
    body = {"data": {"id": "e1", "meta": {"etag_id": "abc"}}}
    wrong = exchange("GET", "/v2/extensions/w/e1", body=body, response_headers=(("ETag", 'W/"zzz"'),))
    missing = exchange("GET", "/v2/extensions/w/e1", body=body)
    put = exchange("PUT", "/v2/extensions/w/e1", body=body)
    fixed, indexes = fix_etags(Cassette((wrong, missing, put)))
    assert indexes == [0, 1]
    assert [dict(item.response.headers).get("ETag") for item in fixed.exchanges] == [
        'W/"abc"',
        'W/"abc"',
        None,
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (HEADER_COMMENT + "a: 1\n", None),
        (HEADER_COMMENT + "a: 'x # y'\nb: |\n  t # n\nc: d#e\n", None),
        (HEADER_COMMENT + "a: 1\nb: 2  # why\n", 3),
        (HEADER_COMMENT + "# a note\na: 1\n", 2),
    ],
)
def test_comment_line_finds_hand_written_comments_only(text: str, line: int | None) -> None:
    """'#' inside quoted, plain or block values is not a comment; the format's header line is not one."""
    assert comment_line(text) == line
