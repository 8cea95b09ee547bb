"""The aiohttp adapters: the recording proxy, the replay server, and how both are served."""
