"""A run's standard streams made usable when a caller closed one (the store's `standard_streams_open`,
named here for the command line's first step)."""

from proxy.store.standard_streams import standard_streams_open

__all__ = ["standard_streams_open"]
