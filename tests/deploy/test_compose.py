"""docker-compose.yml is a valid compose file with the scale-out shape.

No Docker engine runs here: Debian's docker-compose parses, interpolates
and validates the file (``docker-compose config``) without one.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from tests.deploy.helpers import REPO, compose_config


@pytest.fixture(scope="module")
def resolved() -> dict[str, Any]:
    return compose_config()


def test_redis_keeps_an_append_only_file_on_a_named_volume(resolved: dict[str, Any]) -> None:
    redis = resolved["services"]["redis"]
    assert redis["image"].startswith("redis:")
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command
    volume = redis["volumes"][0].split(":")[0]
    assert volume in resolved["volumes"]
    assert "healthcheck" in redis


def test_server_runs_replicas_configured_by_environment(resolved: dict[str, Any]) -> None:
    server = resolved["services"]["server"]
    assert server["deploy"]["replicas"] >= 2
    assert server["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    # replicas must not publish a host port each: only the proxy does
    assert "ports" not in server


def test_proxy_fronts_the_replicas_with_the_shipped_config(resolved: dict[str, Any]) -> None:
    proxy = resolved["services"]["proxy"]
    assert proxy["image"].startswith("nginx:")
    mounted = [v for v in proxy["volumes"] if v.endswith(":/etc/nginx/conf.d/default.conf:ro")]
    assert mounted and mounted[0].startswith(str(REPO / "deploy" / "nginx.conf"))
    assert proxy["ports"][0]["target"] == 8080
    assert "healthcheck" in proxy


def test_dockerfile_runs_the_server_unprivileged_with_a_healthcheck() -> None:
    text = (REPO / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert "FROM python:3.11-slim" in lines
    assert "RUN pip install . && rm -rf /src" in lines
    user = [line for line in lines if line.startswith("USER ")]
    assert user and user[-1] != "USER root"
    assert any(line.startswith("HEALTHCHECK") for line in lines)
    assert "/healthz" in text
    assert lines[-1] == 'CMD ["canfield-race", "serve", "--host", "0.0.0.0"]'


def test_replicas_trust_forwarded_addresses_from_the_proxy_alone(resolved: dict[str, Any]) -> None:
    """The proxy has a fixed address on a network of its own, and the replicas take
    X-Forwarded-For from that address only (never "*": a client could pick its own)."""
    server = resolved["services"]["server"]["environment"]
    proxy = resolved["services"]["proxy"]
    assert "FORWARDED_ALLOW_IPS" not in server
    trusted = server["CANFIELD_TRUSTED_PROXIES"]
    address = proxy["networks"]["canfield"]["ipv4_address"]
    assert trusted == address != "*"
    subnet = resolved["networks"]["canfield"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    for name in ("server", "redis"):
        assert "canfield" in resolved["services"][name]["networks"]
    # and the shipped nginx sets the header to the address it saw
    site = (REPO / "deploy" / "nginx.conf").read_text()
    assert site.count("proxy_set_header X-Forwarded-For $remote_addr;") == 2
    assert "$proxy_add_x_forwarded_for" not in site
