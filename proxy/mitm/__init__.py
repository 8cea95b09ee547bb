"""The mitmproxy adapter: reading flow files and the recording addon. The only code importing mitmproxy.

mitmproxy is the `[mitm]` extra, not a dependency (mitmproxy 11 pins old h11 and Brotli on Python 3.11).
Every way in (`import-mitm`, the addon under `mitmdump -s`) imports this package first, so a missing
mitmproxy is reported here, once, as one line saying how to install it.
"""

from __future__ import annotations

from proxy.errors import CommerceProxyError

# What pip resolves: mitmproxy itself, as pinned by the extra (pyproject.toml), never a registry name of
# commerce-proxy, which is installed from a clone or a git URL (a name on PyPI would be someone else's).
REQUIREMENT = "mitmproxy>=11.0,<12"
INSTALL = (
    f"pip install '{REQUIREMENT}' (or install commerce-proxy with its [mitm] extra from where you installed "
    "it, a clone or a git URL)"
)


class MissingExtra(CommerceProxyError):
    """mitmproxy, needed by `import-mitm` and the mitmproxy addon, cannot be imported."""


try:
    import mitmproxy  # noqa: F401  (only to know it is there; flows.py and addon.py use it)
except ImportError as error:
    missing = "mitmproxy is not installed" if error.name == "mitmproxy" else f"mitmproxy cannot load: {error}"
    raise MissingExtra(f"{missing}; import-mitm and the mitmproxy addon need it: {INSTALL}") from None
