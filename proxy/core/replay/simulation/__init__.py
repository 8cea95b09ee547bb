"""Answering what was not recorded, from what the recordings know (`replay --simulate`)."""
