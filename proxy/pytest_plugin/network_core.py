"""The network guard itself, standard library only: it runs in the test's process and, loaded by
`network_bootstrap/sitecustomize.py` through PYTHONPATH, in every Python process the test starts.

One audit hook (PEP 578) sees every socket operation the interpreter's `_socket` module makes, however
the socket was made (`socket.socket`, `_socket.socket`, asyncio, any library): a connect, a datagram
sent to an address, a name look-up. A host that is not this machine raises `NetworkBlocked` there,
before the system call, so not a packet leaves. Two gaps of the events are closed by wrapping the
methods while the guard is on: `connect` and `sendto` resolve a host name before their event (so the
name is judged first, on `socket.socket` and on `_socket.socket`, which is replaced by a checking
subclass), and a connection opened before the guard (a pool) makes no event when reused, so sending
on a socket connected to another host is refused.
"""

from __future__ import annotations

import _socket
import ipaddress
import json
import os
import socket
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ENVIRONMENT = "COMMERCE_PROXY_NETWORK_GUARD"  # JSON {"test": ..., "allowed": [...]}: guard this process
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
INTERNET = (socket.AF_INET, socket.AF_INET6)
LOOKUPS = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"}
SENDS = {  # the methods a connection opened before the guard sends through
    socket.socket: ("send", "sendall", "sendmsg", "sendfile"),
    ssl.SSLSocket: ("send", "sendall", "sendfile", "write"),
}
ADDRESSED = ("connect", "connect_ex", "sendto")  # resolve a name before their audit event
RAW_SOCKET = _socket.socket


class NetworkBlocked(RuntimeError):
    """Not an OSError on purpose: a client's retry loop must not swallow it and wait."""


@dataclass(slots=True)
class Guard:
    """What the running test may reach besides this machine, and the sockets whose connect it checked."""

    test: str
    allowed: frozenset[str]
    checked: set[int] = field(default_factory=set)  # file descriptors connected under the guard
    originals: list[tuple[Any, str, Any]] = field(default_factory=list)  # (owner, name, its own value)

    def wrap(self, owner: Any, name: str, wrapper: Callable[[Any], Any]) -> None:
        self.originals.append((owner, name, owner.__dict__.get(name)))
        setattr(owner, name, wrapper(getattr(owner, name)))

    def check(self, sock: Any, address: Any) -> None:
        """Refuse an internet address (a name or a literal) of another host, before it is resolved."""
        internet = getattr(sock, "family", None) in INTERNET and isinstance(address, tuple) and address
        if internet and not is_local(address[0], self.allowed):
            raise self.refuse(address[0])

    def refuse(self, host: object, how: str = "") -> NetworkBlocked:
        return NetworkBlocked(
            f"commerce-proxy blocked a connection to {host} in {self.test}{how}: replaying, a test reaches "
            "only this machine (--commerce-allow-host HOST lets one through)"
        )


_active: Guard | None = None
_hooked = False


def is_local(host: object, allowed: frozenset[str] = frozenset()) -> bool:
    """Loopback (127.0.0.0/8, ::1), localhost, this machine's own name, no host at all (a passive
    look-up), or a host the user allowed."""
    if host is None:
        return True
    name = (host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)).strip("[]").lower()
    if name in ("", *LOCAL_NAMES) or name in allowed or name == _own_name():
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _own_name() -> str:
    global _OWN_NAME
    if _OWN_NAME is None:
        _OWN_NAME = socket.gethostname().lower()
    return _OWN_NAME


_OWN_NAME: str | None = None


def activate(test: str, allowed: frozenset[str]) -> None:
    """Guard this process (every thread) until `deactivate`."""
    global _active, _hooked
    _own_name()  # known before the guard: its look-up is no event to judge
    guard = Guard(test, frozenset(host.lower() for host in allowed))
    if not _hooked:
        sys.addaudithook(_audit)  # for the life of the process: it does nothing while no guard is on
        _hooked = True
    for cls, names in SENDS.items():
        for name in names:
            guard.wrap(cls, name, _checked_send)
    for name in ADDRESSED:
        guard.wrap(socket.socket, name, _checked_address)
    guard.wrap(_socket, "socket", lambda _: CheckedRawSocket)
    _active = guard


def deactivate() -> None:
    global _active
    guard, _active = _active, None
    if guard is not None:
        for owner, name, own in reversed(guard.originals):
            if own is None:
                delattr(owner, name)  # inherited again
            else:
                setattr(owner, name, own)


def activate_from_environment() -> None:
    """In a process a guarded test started: the test's guard, for the whole process."""
    text = os.environ.get(ENVIRONMENT)
    if not text:
        return
    try:
        given = json.loads(text)
        test, allowed = str(given["test"]), frozenset(str(host) for host in given["allowed"])
    except (ValueError, KeyError, TypeError):
        test, allowed = "a guarded test", frozenset()  # unreadable: guard anyway, allowing nothing
    activate(test, allowed)


def environment_value(test: str, allowed: frozenset[str]) -> str:
    return json.dumps({"test": test, "allowed": sorted(allowed)})


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    guard = _active
    if guard is None or not event.startswith("socket."):
        return
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        guard.check(arguments[0], arguments[1])
        if event == "socket.connect":
            guard.checked.add(arguments[0].fileno())
    elif event in LOOKUPS:
        host = arguments[0]
        if event == "socket.gethostbyaddr" and isinstance(host, tuple):
            host = host[0]
        if not is_local(host, guard.allowed):
            raise guard.refuse(host, " (a name look-up)")
    elif (
        event == "socket.getnameinfo"
        and isinstance(arguments[0], tuple)
        and not is_local(arguments[0][0], guard.allowed)
    ):
        raise guard.refuse(arguments[0][0], " (a name look-up)")


def _checked_send(original: Callable[..., Any]) -> Callable[..., Any]:
    def send(self: socket.socket, *arguments: Any, **keywords: Any) -> Any:
        guard = _active
        if guard is not None and self.family in INTERNET and self.fileno() not in guard.checked:
            try:
                peer = self.getpeername()[0]
            except OSError:  # not connected: the system call says so itself
                peer = None
            if peer is not None and not is_local(peer, guard.allowed):
                raise guard.refuse(peer, " (sending on a connection opened before the test)")
        return original(self, *arguments, **keywords)

    return send


def _checked_address(original: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Any, *arguments: Any) -> Any:
        guard = _active
        if guard is not None and arguments:
            guard.check(self, arguments[-1])  # connect(address), sendto(data[, flags], address)
        return original(self, *arguments)

    return method


class _RawSocketType(type):
    """`isinstance(x, _socket.socket)` stays true of every socket while the checking class stands in."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, RAW_SOCKET)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, RAW_SOCKET)


class CheckedRawSocket(RAW_SOCKET, metaclass=_RawSocketType):
    """What `_socket.socket` makes while the guard is on: its addresses judged before any look-up."""

    connect = _checked_address(RAW_SOCKET.connect)
    connect_ex = _checked_address(RAW_SOCKET.connect_ex)
    sendto = _checked_address(RAW_SOCKET.sendto)
