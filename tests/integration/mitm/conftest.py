"""The addon's `load` puts its prefixing filter on every handler of the root logger, as it should in
mitmproxy; in a test run those include pytest's own, which live on to later tests in the same worker
(whose log records would then gain the prefix). Each test here leaves the handlers as it found them."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def handlers_left_as_found() -> Iterator[None]:
    before = {id(handler): list(handler.filters) for handler in logging.getLogger().handlers}
    yield
    for handler in logging.getLogger().handlers:
        handler.filters = [one for one in handler.filters if type(one).__name__ != "OursPrefixed"] + [
            one for one in before.get(id(handler), []) if type(one).__name__ == "OursPrefixed"
        ]
