"""The pure core, one sub-package per concern: the exchange model (`model`), the cassette format
(`cassette`), redaction (`redaction`), the rules and their checks (`rules`), replay (`replay`), editing
(`editing`), interchange with other tools (`interchange`) and reports (`reports`).

Nothing in here does I/O: no aiohttp, no asyncio, no files, no clock (tests/unit/test_layering.py checks).
"""
