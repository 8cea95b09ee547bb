"""The pure core: exchange model, cassette format, matching, replay state, redaction and links.

Nothing in here does I/O: no aiohttp, no asyncio, no files, no clock (tests/test_layering.py checks).
"""
