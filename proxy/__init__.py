"""commerce-proxy: a record-and-replay testing proxy that knows the commerce API's documented rules.

The public Python API, for checking traffic from your own code:

    import proxy

    cassette = proxy.load_cassette("cassettes/session.yaml")
    for finding in proxy.check_exchanges(cassette.exchanges):
        print(finding.severity, finding.rule, finding.message)

The names in `__all__` are the API; every other module of the package is internal and may change.
They are imported on first use, so `import proxy` (and the command line's start) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from proxy.version import __version__

if TYPE_CHECKING:
    from proxy.app.python_api import body, check_exchanges, load_cassette, load_rules, save_cassette
    from proxy.core.cassette.document import Cassette
    from proxy.core.model.exchange import Body, Exchange, Request, Response
    from proxy.core.rules.findings import Finding, Severity
    from proxy.errors import CommerceProxyError
    from proxy.store.rule_files import RulesInForce

_HOMES = {
    "load_cassette": "proxy.app.python_api",
    "save_cassette": "proxy.app.python_api",
    "load_rules": "proxy.app.python_api",
    "check_exchanges": "proxy.app.python_api",
    "body": "proxy.app.python_api",
    "Cassette": "proxy.core.cassette.document",
    "Exchange": "proxy.core.model.exchange",
    "Request": "proxy.core.model.exchange",
    "Response": "proxy.core.model.exchange",
    "Body": "proxy.core.model.exchange",
    "Finding": "proxy.core.rules.findings",
    "Severity": "proxy.core.rules.findings",
    "RulesInForce": "proxy.store.rule_files",
    "CommerceProxyError": "proxy.errors",
}

__all__ = [
    "Body",
    "Cassette",
    "CommerceProxyError",
    "Exchange",
    "Finding",
    "Request",
    "Response",
    "RulesInForce",
    "Severity",
    "__version__",
    "body",
    "check_exchanges",
    "load_cassette",
    "load_rules",
    "save_cassette",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'proxy' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
