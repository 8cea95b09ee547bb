"""The UI page's files as answers, encoded once: only a name the package ships is served, with the type
its extension says, so no path a client writes reaches any other file."""

from __future__ import annotations

from collections.abc import Mapping

from proxy.core.model.bodies import error_document
from proxy.server.admin import UI_HEADERS
from proxy.server.wire import Outgoing, json_answer

CONTENT_TYPES = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
    "ico": "image/x-icon",
    "woff2": "font/woff2",
    "txt": "text/plain; charset=utf-8",
}
PAGE = "index.html"


class Assets:
    """The page's files by name (`lib/x.js` for a file in a sub-folder), each answer built once."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.answers = {name: _answer(name, body) for name, body in files.items()}

    def answer(self, name: str) -> Outgoing:
        """The file `name`, or a 404 when the package ships no such file."""
        found = self.answers.get(name)
        if found is not None:
            return found
        detail = (
            f"the page has no file {name[:80]!r}" if name != PAGE else "the page's files are not installed"
        )
        return json_answer(404, error_document(404, "Not Found", detail), UI_HEADERS)


def _answer(name: str, body: bytes) -> Outgoing:
    kind = CONTENT_TYPES.get(name.rpartition(".")[2].lower(), "application/octet-stream")
    return Outgoing(200, (("Content-Type", kind), *UI_HEADERS.items()), body)
