"""A folder put first on PYTHONPATH while a guarded test runs: its sitecustomize guards every Python
process the test starts. Nothing here is imported by the plugin itself."""
