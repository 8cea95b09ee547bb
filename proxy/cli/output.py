"""The one way out of the command line: every line a command prints goes through here.

- `say`: a line for a person, built from words and values (a file name, a path, a header): shown with
  `visible`, so a value can neither add a line nor send a terminal escape or a bidi override;
- `write_document`: a report already in its format (JSON, Markdown, YAML, JUnit), each value escaped by
  its format's own function in `proxy.core.reports.escaping` (`visible` on the whole would change it).

`tests/integration/cli/test_output_lines.py` keeps every command to these two: no `print` and no write to
a stream anywhere else in `proxy/cli`.
"""

from __future__ import annotations

import sys

from proxy.core.reports.escaping import visible


def say(line: str, *, err: bool = False, flush: bool = False) -> None:
    """One line on stdout (stderr with `err`), every character it holds printable."""
    stream = sys.stderr if err else sys.stdout
    stream.write(visible(line) + "\n")
    if flush or err:
        stream.flush()


def write_document(text: str) -> None:
    """A document on stdout as it is: its format's escaping has already been applied to each value."""
    sys.stdout.write(text)
