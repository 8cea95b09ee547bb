"""An edit from the UI writes the number it was given as it was spelled, as `cassette set` does
(class: a value's text lost between the client and the cassette). For a table of spellings (an
exponent in either case, `-0`, trailing zeros, more digits than a double holds, an integer past 64
bits, out of a double's range) and new ones drawn each run, through the real route: `text` (what the
page sends: the value as typed) leaves the cassette byte for byte as `cassette set` leaves a copy of
it; `value` (typed JSON) keeps the spelling too, or is refused with a 400 when no double holds it,
the cassette untouched. Failed before: the route read the body with `json.loads` (`1E2` saved as
`100.0`, `1e400` as null) and the page turned the typed text into a JavaScript number."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from proxy.cli.main import main
from tests.integration.server import test_ui_action_routes as routes

folder = routes.folder  # the same project and server as the action routes' tests
serve = routes.serve

FIELD = "resp.json.links.drawn"
SPELLINGS = [
    "1E2",
    "1e2",
    "-0",
    "-0.0",
    "1.50",
    "1.0000000000000000001",
    "12345678901234567890123",
    "-9223372036854775809",
    "0.1e-400",
    "1e400",
    "-1e400",
    "2.5E-3",
    "0",
    "7",
]


def drawn(rng: random.Random) -> list[str]:
    """New spellings each run: long mantissas, exponents with a sign and leading zeros, big integers."""
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(17, 30)))
    return [
        f"{rng.randint(1, 9)}.{digits}",
        f"{rng.randint(1, 9)}E+0{rng.randint(1, 9)}",
        f"-{rng.randint(1, 9)}e-{rng.randint(300, 500)}",
        f"{rng.randint(1, 9)}{digits}",
        f"{rng.randint(1, 99)}.{'0' * rng.randint(1, 4)}",
    ]


def cassette_set(copy: Path, text: str) -> bytes:
    """What `commerce-proxy cassette set` writes for the same field and text (the oracle)."""
    assert main(["cassette", "set", "--no-check", "--", str(copy), "1", FIELD, text]) == 0
    return copy.read_bytes()


async def test_an_edit_keeps_the_number_as_spelled(serve: routes.Serve, folder: Path) -> None:
    url, _ = await serve()
    cassette = folder / "walk.yaml"
    for text in SPELLINGS + drawn(random.Random()):
        for form in ("text", "value"):
            before = cassette.read_bytes()
            copy = folder / "oracle.yaml"
            shutil.copyfile(cassette, copy)
            expected = cassette_set(copy, text)
            value = json.dumps(text) if form == "text" else text  # "value": the number as JSON
            body = f'{{"field": {json.dumps(FIELD)}, "{form}": {value}}}'.encode()
            status, _, answer = await routes.call(url, "POST", "exchanges/2/edit", body)
            if status == 200:
                assert cassette.read_bytes() == expected, (form, text)  # spelled as `cassette set` does
            else:  # only a number no double holds, given as typed JSON
                assert form == "value" and status == 400, (form, text, answer)
                assert "does not fit" in routes.error_line(400, answer), (text, answer)
                assert cassette.read_bytes() == before, text
