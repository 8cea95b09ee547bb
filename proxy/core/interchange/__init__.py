"""Interchange with other tools: HAR in and out, and exchanges imported into one cassette."""
