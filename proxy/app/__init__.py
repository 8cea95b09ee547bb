"""The use cases, between the core and store below and the adapters above: a check run, a recording
session, an edit, an import, replay set-up. The command line, the pytest plugin and the mitmproxy
addon call these and do no workflow of their own."""
