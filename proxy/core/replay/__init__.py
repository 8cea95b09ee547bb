"""Replay: which recording answers a request, the replay book, simulation, faults and usage."""
