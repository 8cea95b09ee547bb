"""Every report: of a check run (text, JSON, JUnit, Markdown and the HTML page), of `verify` and of
`cassette diff`; each value through its format's escaping (`escaping.py`)."""
