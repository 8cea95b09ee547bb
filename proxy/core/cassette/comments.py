"""Where a person wrote a comment in a cassette: rewriting a cassette drops comments, so commands that
rewrite one ask before losing them."""

from __future__ import annotations

import bisect

import yaml

from proxy.core.cassette.document import HEADER_COMMENT, with_current_header
from proxy.core.cassette.safe_yaml import SafeLoader


def comment_line(text: str) -> int | None:
    """The 1-based line of the first comment a person wrote (the format's header line aside), or None.

    Rewriting a cassette drops comments, so commands that rewrite one ask before losing them.
    """
    text = with_current_header(text)
    start = len(HEADER_COMMENT) if text.startswith(HEADER_COMMENT) else 0
    if "#" not in text[start:]:
        return None
    try:
        spans = [
            (token.start_mark.index, token.end_mark.index)
            for token in yaml.scan(text, Loader=SafeLoader)
            if isinstance(token, yaml.ScalarToken)
        ]
    except yaml.YAMLError:
        return None  # not YAML at all: loading it reports the real problem
    spans.sort()
    starts = [first for first, _ in spans]
    position = text.find("#", start)
    while position >= 0:
        before = bisect.bisect_right(starts, position) - 1
        if before < 0 or not spans[before][0] <= position < spans[before][1]:
            return text.count("\n", 0, position) + 1
        position = text.find("#", position + 1)
    return None
