"""Edits people make to cassettes, and the selection grammar that picks exchanges."""
