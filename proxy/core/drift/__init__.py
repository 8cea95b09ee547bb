"""Drift: how two answers to the same request differ, by meaning, sorted into tiers that say whether it
matters for this API (breaking, additive, data, volatile). Shared by `verify`, `cassette diff` and
re-recording."""
