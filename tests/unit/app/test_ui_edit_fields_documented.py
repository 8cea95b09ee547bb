"""Every edit field docs/ui.md shows (in the page's delete/edit paragraph and the API's edit route) is
one the edit use case takes: the docs named `resp.status`, which `cassette set` refuses."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from proxy.app.ui_actions import edit_exchange
from proxy.store.shipped import shipped_dir
from tests.paths import ROOT

WALK = shipped_dir("cassettes") / "pagination-walk.yaml"
DOC = (ROOT / "docs" / "ui.md").read_text(encoding="utf-8")
PLACES = [  # where the page names edit fields: the text after each of these, to its closing ")"
    "a field as those commands name it:",
    "(or `unset`) of the field (",
]
NUMBERS = {"status": 201, "duration_ms": 12}
STAND_INS = {"NAME": "X-Note", "PATH": "links.next"}


def documented_fields() -> list[str]:
    found: list[str] = []
    for place in PLACES:
        start = DOC.index(place) + len(place)
        text = DOC[start : DOC.index(")", start)]
        found.extend(re.findall(r"`([^`\s]+)`", text))
    return found


FIELDS = documented_fields()


def test_the_docs_show_fields_in_each_place() -> None:
    assert len(FIELDS) >= 2 * len(PLACES), FIELDS


@pytest.mark.parametrize("shown", FIELDS)
def test_each_edit_field_the_docs_show_is_taken(shown: str, tmp_path: Path) -> None:
    field = shown
    for placeholder, stand_in in STAND_INS.items():
        field = field.replace(placeholder, stand_in)
    walk = tmp_path / "walk.yaml"
    shutil.copyfile(WALK, walk)
    value = NUMBERS.get(field, "/v2/products?page[offset]=10" if field == "resp.json.links.next" else "x")
    edited = edit_exchange(walk, 1, field, value)  # the page with a `links.next`
    assert edited.written == 1 and f"set {field}" in edited.summary
