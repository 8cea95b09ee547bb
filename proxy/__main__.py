"""`python -m proxy` runs the command line, the same as the `commerce-proxy` script."""

from proxy.cli import main

raise SystemExit(main())
