"""The secrets seen so far, and the one scrub every byte about to leave the process goes through.

Redaction by name (`proxy.core.redaction.redact`) finds secret values where the policy names them; each
value found is added to a `SecretBook`. Then everything written (a cassette or journal line, a log line,
an admin or error answer, a report, a cassette at its save) is searched, at the moment it is written,
for each known value in any encoding of the family, by decoding the text rather than listing forms
(`proxy.core.redaction.encodings.secret_spans`), and what is found is replaced by the placeholder. A
secret named once is thus never written again in any form, wherever it echoes, even in what was made
before it was learned (findings, report data, exchanges kept for the HTML page or the cassette).

`KNOWN` is the process's book: values are only ever added to it, under a lock (the servers and a check
worker's thread add to it), and reading it is a snapshot. Pure otherwise: no I/O.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator

from proxy.core.redaction.encodings import secret_spans
from proxy.core.redaction.policy import PLACEHOLDER

# Shorter values are too likely to be ordinary text ("true", "1234") to be replaced everywhere.
MIN_SCRUBBED_LENGTH = 6
LONG_SECRET = 16  # this long, a value is scrubbed even when it is plain words or a plain number
MAX_KNOWN = 256  # a bound: a long session with a new token per request keeps the latest ones
SCRUB_BATCH = 1 << 16  # characters of a document searched at once


def credential_like(value: str) -> bool:
    """Whether a value is scrubbed wherever it echoes: long enough, or not plain words or a plain
    number. An ordinary word (a cookie `pref=default`, a scheme `Bearer`) is redacted where it is named
    and nowhere else: replacing it everywhere would damage unrelated data (`default_page_length`)."""
    if len(value) < MIN_SCRUBBED_LENGTH or value == PLACEHOLDER:
        return False
    if len(value) >= LONG_SECRET:
        return True
    plain = value.replace(" ", "")
    return not (plain.isalpha() or plain.isdigit())


class SecretBook:
    """Every secret value seen so far (added, never removed but past `MAX_KNOWN`), and scrubbing by it."""

    def __init__(self) -> None:
        self._values: dict[str, None] = {}  # ordered: the oldest go first past MAX_KNOWN
        self._lock = threading.Lock()
        self._frozen: frozenset[str] = frozenset()

    def add(self, values: Iterable[str]) -> None:
        """Learn these values (those `credential_like`; the rest are ordinary words)."""
        fresh = [value for value in values if credential_like(value) and value not in self._frozen]
        if not fresh:
            return
        with self._lock:
            for value in fresh:
                self._values[value] = None
            while len(self._values) > MAX_KNOWN:
                del self._values[next(iter(self._values))]
            self._frozen = frozenset(self._values)

    def forget(self) -> None:
        """Know nothing again (a test's fresh start)."""
        with self._lock:
            self._values.clear()
            self._frozen = frozenset()

    @property
    def values(self) -> frozenset[str]:
        return self._frozen

    def scrub(self, text: str, placeholder: str = PLACEHOLDER) -> str:
        """`text` with every known secret, in every encoding of the family, replaced (by `placeholder`,
        spelled as the text's format needs it)."""
        return scrub_text(text, self._frozen, placeholder)

    def scrub_chunks(self, chunks: Iterable[str], placeholder: str = PLACEHOLDER) -> Iterator[str]:
        """A document made piece by piece, scrubbed by the book as it is when each piece is written
        (what was rendered before a secret was learned is searched again). Pieces are joined up to a
        line's end (or, past four batches, the end of a JSON or HTML value) before the search, so a value
        split between two pieces is still found whole, and memory stays bounded."""
        pending: list[str] = []
        size = 0
        for chunk in chunks:
            pending.append(chunk)
            size += len(chunk)
            # a line's end, or (a document without them, as JSON) the end of a whole value: a finding,
            # a record or a tag; never inside a string, so no value is split
            if size >= SCRUB_BATCH and (
                chunk.endswith("\n") or (size >= 4 * SCRUB_BATCH and chunk[-1:] in ",}]>")
            ):
                yield self.scrub("".join(pending), placeholder)
                pending, size = [], 0
        if pending:
            yield self.scrub("".join(pending), placeholder)


KNOWN = SecretBook()


def scrub_text(text: str, values: frozenset[str], placeholder: str = PLACEHOLDER) -> str:
    """`text` with each secret, in any encoding of the family, replaced (where spans overlap, the
    placeholder covers their union); the very same string when nothing is."""
    if not values or not text:
        return text
    spans = secret_spans(text, values)
    return replace_spans(text, spans, placeholder) if spans else text


def replace_spans(text: str, spans: list[tuple[int, int]], placeholder: str = PLACEHOLDER) -> str:
    """The text with each (sorted) span replaced by one placeholder a run of overlapping spans."""
    pieces: list[str] = []
    end = 0
    for start, stop in spans:
        if start < end:  # overlaps the span before: the placeholder grows to cover both
            end = max(end, stop)
            continue
        pieces.extend((text[end:start], placeholder))
        end = stop
    pieces.append(text[end:])
    return "".join(pieces)


class ScrubbingFilter(logging.Filter):
    """Scrubs each log record by the `KNOWN` book before a handler writes it (set on the handlers: a
    logger's own filter would miss records its children pass up)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = KNOWN.scrub(message)
        if scrubbed is not message:
            record.msg, record.args = scrubbed, None
        return True
