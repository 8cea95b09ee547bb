"""The servers: the recording proxy and the replay server on our HTTP/1.1 wire server (`wire.py`, asyncio
and httptools), the pooled upstream client, and how they are served."""
