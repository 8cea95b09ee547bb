"""Where known secrets stand in a text, in any encoding of the family: the search decodes rather than
enumerates. Each text is read through up to `DEPTH` decoding steps (`proxy.core.redaction.decoding`:
every escape of the family, character by character, and base64 runs at every offset), and each secret
is searched, as written or as its UTF-8 bytes, its base64 or its hex, in every view; what is found is
given as spans of the original text. So a secret percent-encoded in mixed case, written partly as HTML
entities, base64 broken into lines, or three encodings deep is still found.

Pure.
"""

from __future__ import annotations

import base64
import functools
import re

import ahocorasick

from proxy.core.model.content_coding import decoded
from proxy.core.redaction.decoding import View, base64_run_view, base64_runs, decoded_views, wide_views
from proxy.errors import BodyTooLarge

DEPTH = 3  # decoding steps (an escape layer or a base64 run) searched through, in any order
# A base64 run's bytes are searched deeper only when some of them read as text (an encoded secret is
# printable; a word that happens to be base64, or an image, decodes to bytes that mostly are not).
TEXT_STRETCH = re.compile(r"[ -~\0\r\n\t]{12}")
# With a non-ASCII secret known, its UTF-8 bytes count as text too.
WIDE_TEXT_STRETCH = re.compile(r"[ -~\0\r\n\t\x80-\xff]{12}")
MIN_FORM = 6  # a needle this short would match ordinary text by chance (a short secret's base64 middle)
# A secret this long is searched upper- and lower-cased as well (an upstream that echoes a token in
# capitals, a log that lowers it); a shorter one (a cookie's `en`) would match ordinary words so.
CASED_FROM = 8
# A secret this long (in bytes) is also searched as its core in decoded base64 cut short; the core of
# a shorter one (3 bytes of 9) would be found in ordinary decoded text.
CUT_FROM = 10

Plan = tuple[tuple[str, ...], tuple[str, ...], int, str, tuple[str, ...], tuple[str, ...], bool]


@functools.lru_cache(maxsize=4096)
def needles(secret: str) -> frozenset[str]:
    """What a secret is searched as in each decoded view: as written, its UTF-8 bytes read one
    character a byte, its base64 at each alignment (the middle that does not depend on the bytes
    around it; both alphabets) and its hex."""
    raw = secret.encode("utf-8")
    found = {secret, raw.decode("latin-1"), raw.hex(), raw.hex().upper()}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        middle = encoded[4 if shift else 0 : (shift + len(raw)) // 3 * 4]
        found.update((middle, middle.replace("+", "-").replace("/", "_")))
    return frozenset(form for form in found if len(form) >= min(MIN_FORM, len(secret)))


@functools.lru_cache(maxsize=64)  # a session sees the same few secrets on every exchange
def search_plan(values: frozenset[str]) -> Plan:
    """(every needle longest first; the secrets holding a space, written with `+` for it too; the
    shortest base64 run that may hold a secret; the quotes secrets hold; each secret's core, searched
    in decoded base64; the secrets lower-cased, searched in each view lower-cased: in any mix of cases
    as text; whether every needle is ASCII and 3 characters or more, so a base64 run whose bytes are
    one in three non-ASCII cannot hold one: `decoding.base64_runs`). Each secret is searched as written,
    upper-cased and lower-cased, and one holding a space with `+` for it, each in every form (a form's
    base64 cut short is not decoded whole, so the `+` spelling needs base64 needles of its own)."""
    # lowered; one holding a space also with its `+` as a space, as `+` for a space is searched below
    folded = tuple(
        sorted(
            {
                form
                for value in values
                if len(value) >= CASED_FROM
                for form in (value.lower(), value.lower().replace("+", " "))
            },
            key=len,
            reverse=True,
        )
    )
    values = frozenset(
        plussed
        for value in values
        for cased in ((value, value.upper(), value.lower()) if len(value) >= CASED_FROM else (value,))
        for plussed in {cased, cased.replace(" ", "+")}
    )
    every = sorted({form for value in values for form in needles(value)}, key=len, reverse=True)
    spaced = sorted(
        {
            form.replace("+", " ")
            for value in values
            if " " in value
            for form in (value, value.encode("utf-8").decode("latin-1"))
        },
        key=len,
        reverse=True,
    )
    shortest = (min((len(value.encode("utf-8")) for value in values), default=MIN_FORM) - 6) * 4 // 3
    quotes = "".join(quote for quote in "\"'" if any(quote in value for value in values))
    # base64 cut short (a run that starts or ends inside the secret's first or last quanta) holds all
    # but its first bytes or two and last bytes or four: its core is searched in decoded base64
    # (as bytes one a character, and as characters: a decoding of the run, an entity's `&#233;`, gives
    # a non-ASCII character whole)
    cut = sorted(
        {
            core
            for value in values
            if len(value.encode("utf-8")) >= CUT_FROM
            for core in (value.encode("utf-8")[2:-4].decode("latin-1"), value[2:-4])
            if len(core) >= 4
        },
        key=len,
        reverse=True,
    )
    plain = all(len(form) >= 3 and form.isascii() for form in (*every, *cut))
    return tuple(every), tuple(spaced), max(shortest, 8), quotes, tuple(cut), folded, plain


def secret_spans(text: str, values: frozenset[str]) -> list[tuple[int, int]]:
    """The spans of `text` that hold a known secret in any encoding of the family, sorted."""
    if not values or not text:
        return []
    plan = search_plan(values)
    spans: list[tuple[int, int]] = []
    _search(View(text), plan, DEPTH, spans)
    return sorted(set(spans))


def contains_secret(text: str, values: frozenset[str]) -> bool:
    return bool(secret_spans(text, values))


def _search(
    view: View | None, plan: Plan, depth: int, spans: list[tuple[int, int]], in_run: bool = False
) -> None:
    """`in_run`: the view is a base64 run's bytes or a decoding of them, where a secret's form may be
    cut short at either end (the cut core is searched there, through every later decoding too)."""
    every, spaced, shortest, quotes, cut, folded, plain = plan
    while view is not None:
        text = view.text
        _find(view, text, every, spans)
        if folded:  # in any mix of cases (`abCdEf...`, a title-cased echo): the same places, lowered
            lowered = text.lower()
            if len(lowered) == len(text):  # no character became two (`İ`): positions are the text's
                _find(view, lowered, folded, spans)
                if spaced and "+" in lowered:
                    _find(view, lowered.replace("+", " "), folded, spans)
        if in_run:
            _find(view, text, cut, spans)
        if spaced and "+" in text:  # `+` for a space, mixed with other spellings of it
            _find(view, text.replace("+", " "), spaced, spans)
        if depth <= 0:
            return
        depth -= 1
        inflated = _inflated(view)
        if inflated is not None:
            _search(inflated, plan, depth, spans, in_run)
        for wide in wide_views(view):
            _search(wide, plan, depth, spans, in_run)
        for run in base64_runs(view, shortest, ascii_needles=plain):
            if (TEXT_STRETCH if plain else WIDE_TEXT_STRETCH).search(run[0]):
                _search(base64_run_view(view, run), plan, depth, spans, in_run=True)
            elif _holds(run[0], every + cut):  # a view only for a run that holds one (most are words)
                _find(base64_run_view(view, run), run[0], every + cut, spans)
        decoded = decoded_views(view, quotes)
        for other in decoded[1:]:  # another reading of the same layer
            _search(other, plan, depth, spans, in_run)
        view = decoded[0] if decoded else None


FEW_NEEDLES = 8  # up to this many, str.find each; past it one Aho-Corasick pass finds them all at once


def _find(view: View, text: str, needles: tuple[str, ...], spans: list[tuple[int, int]]) -> None:
    """Every occurrence of every needle in `text`, as spans of the view's original. The cost of one pass
    does not grow with the number of secrets known (a session that signs in per test learns hundreds)."""
    if len(needles) <= FEW_NEEDLES:
        for needle in needles:
            start = text.find(needle)
            while start >= 0:
                spans.append(view.original(start, start + len(needle)))
                start = text.find(needle, start + 1)
        return
    for end, length in _automaton(needles).iter(text):
        spans.append(view.original(end + 1 - length, end + 1))


def _holds(text: str, needles: tuple[str, ...]) -> bool:
    """Whether any needle is in `text` (as `_find` would find it), without mapping where."""
    if len(needles) <= FEW_NEEDLES:
        return any(needle in text for needle in needles)
    return next(_automaton(needles).iter(text), None) is not None


@functools.lru_cache(maxsize=64)  # the plan's needle tuples, the same on every exchange of a session
def _automaton(needles: tuple[str, ...]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for needle in needles:
        automaton.add_word(needle, len(needle))
    automaton.make_automaton()
    return automaton


GZIP_MAGIC = "\x1f\x8b\x08"
MAX_INFLATED = 16 * 1024 * 1024  # a gzip payload larger once inflated is not searched inside


def _inflated(view: View) -> View | None:
    """A gzip payload (a `.gz` file as content, not a coding) inflated, as a view mapped to the whole
    payload; None when the view is not one, or it does not inflate whole within the bound."""
    text = view.text
    if not text.startswith(GZIP_MAGIC) or max(text[:64]) > "\xff":
        return None
    try:
        data = decoded(text.encode("latin-1"), "gzip", MAX_INFLATED)
    except (BodyTooLarge, UnicodeEncodeError):
        return None
    if data is None:
        return None
    return View(data.decode("latin-1"), view, [0], [(0, len(text), False)])
