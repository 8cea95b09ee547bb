"""`cassette=NAME` resolves to the cassette that has NAME in the closest form (the path as opened, the
file name, less its last suffix, less every suffix), and is ambiguous only when two have it in that
same form. Drawn sets of file names in folders with suffix chains. Failed before: `a` was ambiguous
between `d1/a.yaml` and `d2/a.yaml.yaml` (the second's suffixes stripped twice ranked as the first's)."""

from __future__ import annotations

import random

import pytest

from proxy.core.ui.query import QueryError, cassette_named

BASES = ["a", "b", "a.b", "checkout", "a.yaml"]
SUFFIXES = ["", ".yaml", ".yaml.yaml", ".yml", ".v2.yaml", ".yaml.journal", ".har"]


def forms(name: str) -> list[str]:
    """The spellings of `name`, closest first, written from the docs' words (not the code's)."""
    file_name = name.split("/")[-1]
    parts = file_name.split(".")
    if file_name.startswith("."):
        parts = ["." + parts[1], *parts[2:]] if len(parts) > 1 else parts
    less_last = ".".join(parts[:-1]) if len(parts) > 1 else file_name
    return [name, file_name, less_last, parts[0]]


def expected(given: str, names: list[str]) -> str | list[str] | None:
    """The one cassette at the closest form that has `given`; the list when several share it."""
    for rank in range(4):
        same = [name for name in names if forms(name)[rank] == given]
        if same:
            return same[0] if len(same) == 1 else same
    return None


def test_each_name_resolves_to_the_cassette_with_it_in_the_closest_form() -> None:
    rng = random.Random()
    checked = ambiguous = 0
    for _ in range(2_000):
        size = rng.randint(2, 5)
        names = sorted(
            {f"d{rng.randint(1, 3)}/{rng.choice(BASES)}{rng.choice(SUFFIXES)}" for _ in range(size)}
        )
        givens = {form for name in names for form in forms(name)} | {"zzz", "d1", "a.y"}
        for given in givens:
            wanted = expected(given, names)
            if isinstance(wanted, str):
                assert cassette_named(given, names) == wanted, (given, names)
            else:
                with pytest.raises(QueryError) as refused:
                    cassette_named(given, names)
                message = str(refused.value)
                assert repr(given) in message and "\n" not in message
                if wanted is not None:
                    assert all(repr(name) in message for name in wanted), (given, names, message)
                    ambiguous += 1
            checked += 1
    assert checked > 10_000 and ambiguous > 100


def test_the_reported_layout() -> None:
    names = ["d1/a.yaml", "d2/a.yaml.yaml"]
    assert cassette_named("a", names) == "d1/a.yaml"
    assert cassette_named("a.yaml", names) == "d1/a.yaml"
    assert cassette_named("a.yaml.yaml", names) == "d2/a.yaml.yaml"
