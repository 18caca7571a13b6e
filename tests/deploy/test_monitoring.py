"""The monitoring profile: ``docker-compose --profile monitoring up`` brings up
Prometheus scraping every replica and Grafana with its datasource and the
Canfield Race dashboard; the alert rules are valid; and every metric a panel
or a rule asks for is one a real server process exports on ``/metrics``.

No Docker engine runs here: ``docker-compose config`` validates the file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from canfield_bench.processes import ServerProcess
from prometheus_client.parser import text_string_to_metric_families

from tests.deploy.helpers import compose_config

REPO = Path(__file__).resolve().parents[2]
MONITORING = REPO / "deploy" / "monitoring"
DASHBOARD = MONITORING / "grafana" / "dashboards" / "canfield-race.json"
ALERTS = MONITORING / "alerts.yml"
PROMTOOL = shutil.which("promtool")
METRIC = re.compile(r"\bcanfield_[a-z_]+\b")
#: the sample names each metric type shows in a scrape
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "info": ("_info",),
    "gauge": ("",),
}


@pytest.fixture(scope="module")
def monitored() -> dict[str, Any]:
    return compose_config("--profile", "monitoring")


def exported(server: ServerProcess) -> set[str]:
    """Every sample name the server's ``/metrics`` declares - labelled families
    with no sample yet (no Redis error so far) included."""
    with urllib.request.urlopen(server.http_url + "/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in SUFFIXES.get(family.type, ("",))
    }


def dashboard_queries() -> dict[str, list[str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return {
        panel["title"]: [target["expr"] for target in panel["targets"]]
        for panel in dashboard["panels"]
    }


def alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """A service's bind mounts: where in the container -> which host path."""
    return {v.split(":")[1]: v.split(":")[0] for v in service["volumes"] if v.startswith("/")}


def test_the_profile_adds_prometheus_and_grafana_wired_to_the_replicas(
    monitored: dict[str, Any],
) -> None:
    services = monitored["services"]
    prometheus, grafana = services["prometheus"], services["grafana"]
    assert prometheus["profiles"] == ["monitoring"] and grafana["profiles"] == ["monitoring"]
    for service in (prometheus, grafana):
        assert "canfield" in service["networks"]
        for port in service["ports"]:  # never on the public interface
            assert str(port).startswith("127.0.0.1:"), port
    bound = mounts(prometheus)
    assert bound["/etc/prometheus/prometheus.yml"] == str(MONITORING / "prometheus.yml")
    assert bound["/etc/prometheus/alerts.yml"] == str(ALERTS)
    # Prometheus finds every replica by the compose service's name, on the server's port
    config = yaml.safe_load((MONITORING / "prometheus.yml").read_text())
    assert "/etc/prometheus/alerts.yml" in config["rule_files"]
    (job,) = config["scrape_configs"]
    (found,) = job["dns_sd_configs"]
    assert found["names"] == ["server"] and "server" in services
    assert found["port"] == 8000 and services["server"]["expose"] == ["8000"]
    # Grafana's datasource is that Prometheus, and the dashboard is provisioned
    datasources = yaml.safe_load(
        (MONITORING / "grafana/provisioning/datasources/prometheus.yml").read_text()
    )["datasources"]
    assert datasources[0]["url"] == "http://prometheus:9090"
    uid = datasources[0]["uid"]
    provider = yaml.safe_load(
        (MONITORING / "grafana/provisioning/dashboards/canfield.yml").read_text()
    )["providers"][0]
    assert mounts(grafana)[provider["options"]["path"]] == str(DASHBOARD.parent)
    panels = json.loads(DASHBOARD.read_text())["panels"]
    assert all(p["datasource"]["uid"] == uid for p in panels)


def test_every_panel_and_rule_names_a_metric_the_server_exports(server: ServerProcess) -> None:
    names = exported(server)
    queries = dashboard_queries()
    for figure in (
        "Moves per second",
        "Move ack latency",
        "Leaderboard latency",
        "Errors",
        "Connections per process",
        "Rooms by phase",
        "Solver queue",
        "Redis memory",
    ):
        assert figure in queries, f"no panel {figure!r}"
    exprs = [(title, e) for title, es in queries.items() for e in es]
    exprs += [(rule["alert"], rule["expr"]) for rule in alert_rules()]
    for where, expr in exprs:
        used = set(METRIC.findall(expr))
        assert used, f"{where}: names no canfield metric: {expr}"
        assert used <= names, f"{where}: not exported: {sorted(used - names)}"


def test_the_alert_rules_are_valid() -> None:
    rules = alert_rules()
    assert {r["alert"] for r in rules} >= {
        "CanfieldSlowAcks",
        "CanfieldRedisErrors",
        "CanfieldRedisMemoryHigh",
        "CanfieldSolverBacklog",
    }
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rule["alert"])
        assert isinstance(rule["expr"], str) and rule["expr"].count("(") == rule["expr"].count(")")
        assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["for"]
        assert rule["labels"]["severity"] in ("warning", "critical")
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
    if PROMTOOL is not None:  # the real check, where Prometheus's own tool is installed
        checked = subprocess.run(
            [PROMTOOL, "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
