"""commerce-proxy: a record-and-replay testing proxy that knows the commerce API's documented rules."""

__version__ = "0.1.0"
