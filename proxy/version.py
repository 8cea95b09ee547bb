"""The package version, in a module of its own so anything may import it without importing more."""

__version__ = "0.1.0"
