"""The CI network guard blocks every way a test can reach another host: each way of opening a
connection or looking a name up, to each kind of target, in the test's process and in a Python process
it starts, before a packet leaves (the guard raises before the system call: no target here ever gets
traffic; 192.0.2.1 and 2001:db8::1 are documentation addresses). Loopback still works."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.system.plugin_suite import put_cassette

# Each way to reach HOST (port 80): a statement that must raise the guard's error inside the test.
WAYS = {
    "socket_connect": "socket.socket(FAMILY).connect((HOST, 80))",
    "socket_connect_ex": "socket.socket(FAMILY).connect_ex((HOST, 80))",
    "raw_socket_connect": "_socket.socket(FAMILY).connect((HOST, 80))",
    "raw_socket_connect_ex": "_socket.socket(FAMILY).connect_ex((HOST, 80))",
    "create_connection": "socket.create_connection((HOST, 80), timeout=20)",
    "udp_sendto": "socket.socket(FAMILY, socket.SOCK_DGRAM).sendto(b'x', (HOST, 53))",
    "raw_udp_sendto": "_socket.socket(FAMILY, socket.SOCK_DGRAM).sendto(b'x', (HOST, 53))",
    "http_client": "http.client.HTTPConnection(HOST, 80, timeout=20).request('GET', '/')",
    "urllib": "urllib.request.urlopen(f'http://{url_host(HOST)}/', timeout=20)",
    "asyncio": "asyncio.run(asyncio.wait_for(asyncio.open_connection(HOST, 80), 20))",
    "aiohttp": "asyncio.run(aiohttp_get(f'http://{url_host(HOST)}/'))",
    "getaddrinfo": "socket.getaddrinfo(HOST, 80)",
    "raw_getaddrinfo": "_socket.getaddrinfo(HOST, 80)",
    "gethostbyname": "socket.gethostbyname(HOST)",
    "gethostbyname_ex": "socket.gethostbyname_ex(HOST)",
    "gethostbyaddr": "socket.gethostbyaddr(HOST)",
    "getnameinfo": "socket.getnameinfo((HOST, 80), 0)",
    "subprocess_python": "in_python('import socket; socket.create_connection((HOST, 80), timeout=20)')",
    "subprocess_raw_socket": "in_python('import _socket; _socket.socket(FAMILY).connect((HOST, 80))')",
    "subprocess_lookup": "in_python('import socket; socket.getaddrinfo(HOST, 80)')",
    "subprocess_grandchild": "in_python('import socket; socket.create_connection((HOST, 80))', depth=2)",
}
TARGETS = {
    "ipv4": ("192.0.2.1", "AF_INET"),
    "ipv6": ("2001:db8::1", "AF_INET6"),
    "name": ("shop.example", "AF_INET"),
}

SUITE = '''
import _socket, asyncio, http.client, socket, subprocess, sys, urllib.request
import pytest

BLOCKED = "commerce-proxy blocked"

def url_host(host):
    return f"[{host}]" if ":" in host else host

async def aiohttp_get(url):
    import aiohttp
    async with aiohttp.ClientSession() as session:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=20)):
            pass

def in_python(code, depth=1):
    """Run `code` in a Python process started by the test (depth 2: by a process the test started)."""
    host, family = TARGET
    code = code.replace("HOST", repr(host)).replace("FAMILY", str(int(getattr(socket, family))))
    if depth == 2:
        code = (
            "import subprocess, sys; done = subprocess.run([sys.executable, '-c', %r], "
            "capture_output=True, text=True, timeout=60); sys.stderr.write(done.stderr); "
            "sys.exit(done.returncode)" % code
        )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and BLOCKED + " a connection to" in done.stderr:
        raise RuntimeError(BLOCKED + " (in the subprocess)")
    print(done.stderr[-2000:])  # not blocked there: the test's pytest.raises fails

CASES = CASES_HERE

@pytest.mark.parametrize("code, host, family", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_blocked(commerce_replay, code, host, family):
    global TARGET
    TARGET = (host, family)
    with pytest.raises(Exception) as raised:
        exec(code, globals(), {"HOST": host, "FAMILY": getattr(socket, family)})
    assert BLOCKED in str(raised.value), repr(raised.value)
    assert not isinstance(raised.value, OSError)  # raised by the guard before the system call

class Remote(socket.socket):
    """A connection pooled before the test: open on loopback, seen as one to another host."""
    def getpeername(self):
        return ("192.0.2.1", 80)

@pytest.fixture(scope="module")
def pooled():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = Remote()
    client.connect(server.getsockname())  # before any guarded test
    connection = http.client.HTTPConnection("192.0.2.1", 80, timeout=20)
    connection.sock = client
    yield connection
    client.close()
    server.close()

@pytest.mark.parametrize("how", ["send", "sendall", "request"])
def test_a_pooled_connection_is_blocked(pooled, commerce_replay, how):
    with pytest.raises(Exception, match=BLOCKED):
        if how == "request":
            pooled.request("GET", "/")
        else:
            getattr(pooled.sock, how)(b"GET / HTTP/1.1\\r\\n\\r\\n")

def test_loopback_still_works(commerce_replay):
    from helpers import get
    assert get(commerce_replay, "/v2/extensions/wishlists/5b0f6a52-3a8e-4f65-9d4c-0e6f1a2b3c4d")[0] == 200
    assert socket.getaddrinfo("localhost", 80) and socket.gethostbyname("127.0.0.1") == "127.0.0.1"
    code = "import socket; print(socket.getaddrinfo('127.0.0.1', 80)[0][4][0])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "127.0.0.1", done.stderr
'''


# A network namespace of the test's own with only loopback up: the inner suite's probes of 192.0.2.1,
# 2001:db8::1 and shop.example cannot leave the machine, even if the guard let one through.
PRIVATE_NETWORK = (
    "unshare",
    "--user",
    "--map-root-user",
    "--net",
    "sh",
    "-c",
    'ip link set lo up && exec "$@"',
    "-",
)


def private_network_works() -> bool:
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run([*PRIVATE_NETWORK, "true"], capture_output=True, check=False, timeout=60)
    return probe.returncode == 0


def cases() -> list[tuple[str, str, str, str]]:
    """Every way to every target: an address literal of each family, and a name."""
    return [
        (f"{way}-{target}", code, host, family)
        for way, code in WAYS.items()
        for target, (host, family) in TARGETS.items()
    ]


def test_the_ci_guard_blocks_every_way_out(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = cases()
    names = [case[0] for case in drawn]
    suite.makepyfile(test_out=SUITE.replace("CASES_HERE", repr(drawn)))
    for name in [*(f"test_blocked[{one}]" for one in names), "test_loopback_still_works"] + [
        f"test_a_pooled_connection_is_blocked[{how}]" for how in ("send", "sendall", "request")
    ]:
        put_cassette(suite, f"test_out/{name}.yaml")
    monkeypatch.setenv("CI", "true")
    arguments = ("-p", "no:cacheprovider", "-q", "-rf")
    if private_network_works():  # a guard that fails sends nothing off this machine: there is no route
        result = suite.run(*PRIVATE_NETWORK, sys.executable, "-m", "pytest", *arguments, timeout=600)
    else:
        result = suite.runpytest_subprocess(*arguments)
    result.assert_outcomes(passed=len(drawn) + 4)
    assert len(drawn) > 50
