"""A private folder for one run in the temporary folder, gone however the run ends (the store's
scratch_folder, named here for the adapters: the demo, scripts)."""

from proxy.store.scratch_folders import scratch_folder

__all__ = ["scratch_folder"]
