"""The `commerce-proxy` command line: `main.py` builds the parser from one module per command and
turns errors into one line; `options.py` holds the options several commands share."""
