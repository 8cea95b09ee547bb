"""Reports of a check run: text, JSON, JUnit, Markdown and the HTML page."""
