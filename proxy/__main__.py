"""`python -m proxy` runs the command line, the same as the `commerce-proxy` script."""

from proxy.cli.start import run

if __name__ == "__main__":  # not when a checker process started with `spawn` imports it
    raise SystemExit(run())
