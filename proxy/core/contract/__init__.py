"""The service's published contract (OpenAPI specifications and the overlays correcting them): pure,
no I/O; `proxy/store/contract_files.py` reads the files."""
