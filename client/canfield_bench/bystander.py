"""The bystander benchmark: what one room feels while others attack the server.

``canfield-race bench --bystander`` starts its own redis-server and one
server with its default limits, and sets up a bystander room: two players
drawing a card every 100 ms, one of them asking a hint every 2 s (a
practice room), and a probe opening a new connection (and taking a
spectator seat) every second. Then, phase after phase, an attacker
process does one thing while the bystander keeps playing:

* ``churn-1``: 50 clients connecting, joining, leaving in a loop, from one
  address;
* ``churn-50``: the same from 50 addresses;
* ``solver-1``: one practice room of 12 players hammering hints on a deal
  the solver cannot decide;
* ``solver-8``: eight such rooms of two players, from eight addresses.

Each attack is measured against the quiet phase just before it, side by
side in one run: the bystander's ack latency (p50, p99), its probe's
connect-and-join latency, its hints answered with a move, and the
server's CPU. Attackers use other loopback addresses (127.0.1.x ...); the
bystander is this host (127.0.0.1). Everything is bounded in time.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from canfield_cli.stats import percentile
from canfield_client.client import RaceClient, ServerError
from canfield_protocol import Role, RoomSettings

from .bench import cpu_seconds
from .processes import local_servers

__all__ = ["ATTACKS", "run_bystander", "format_bystander"]

#: the solver wins this deal in milliseconds; it does not decide HARD quickly
EASY = "CF1-D3-AAADKOH"
HARD = "CF1-D3-AAAAACL"
#: attack -> (kind, clients or rooms, addresses)
ATTACKS: dict[str, tuple[str, int, int]] = {
    "churn-1": ("churn", 50, 1),
    "churn-50": ("churn", 50, 50),
    "solver-1": ("solver", 1, 1),
    "solver-8": ("solver", 8, 8),
}
#: the server as shipped, except a short countdown and no log in JSON
SERVER_ENV = {"CANFIELD_COUNTDOWN_S": "0.2", "CANFIELD_LOG_JSON": "false"}


@dataclass
class Samples:
    acks_ms: list[float] = field(default_factory=list)
    probes_ms: list[float] = field(default_factory=list)
    probe_failures: int = 0
    hints_asked: int = 0
    hints_answered: int = 0
    errors: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- the attacker


def _address(block: int, index: int) -> str:
    return f"127.0.{block}.{index + 1}"


async def _churn(url: str, room: str, clients: int, addresses: int, until: float) -> dict[str, int]:
    tally = {"attempts": 0, "refused": 0, "joined": 0}

    async def one(n: int) -> None:
        address = _address(1 if addresses == 1 else 2, n % addresses)
        seat = 0
        while time.monotonic() < until:
            tally["attempts"] += 1
            try:
                async with websockets.connect(url, local_addr=(address, 0), open_timeout=5) as ws:
                    seat += 1
                    await ws.send(
                        f'{{"type":"join","room":"{room}","name":"C{n}-{seat}","role":"spectator"}}'
                    )
                    async with asyncio.timeout(5):
                        reply = await ws.recv()
                    if '"joined"' in str(reply):
                        tally["joined"] += 1
                        await ws.send('{"type":"leave"}')
                        async with asyncio.timeout(5):
                            await ws.recv()
            except (OSError, TimeoutError, websockets.WebSocketException):
                tally["refused"] += 1

    await asyncio.gather(*(one(n) for n in range(clients)))
    return tally


async def _solver(url: str, rooms: int, addresses: int, until: float) -> dict[str, int]:
    tally = {"asked": 0, "busy": 0}
    per_room = 12 if rooms == 1 else 2
    players: list[RaceClient] = []
    for r in range(rooms):
        address = _address(3, r % addresses)
        host = await RaceClient(url, local_addr=(address, 0)).connect()
        joined = await host.create("A0", RoomSettings(deal=HARD, practice=True))
        players.append(host)
        for n in range(1, per_room):
            guest = await RaceClient(url, local_addr=(address, 0)).connect()
            await guest.join(joined.room, f"A{n}")
            players.append(guest)
        await host.start(force=True)
    await asyncio.gather(*(p.wait_started(30) for p in players))

    async def hammer(player: RaceClient) -> None:
        while time.monotonic() < until:
            tally["asked"] += 1
            try:
                reply = await player.hint()
            except ServerError:
                await asyncio.sleep(1 / 25)  # at a pace the message limit lets through
                continue
            if reply.busy:
                tally["busy"] += 1
                await asyncio.sleep(1 / 25)

    await asyncio.gather(*(hammer(p) for p in players))
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
    return tally


def _attack(url: str, name: str, churn_room: str, seconds: float, out: Any) -> None:
    """The attacker process: one attack for ``seconds``; its tally into ``out``."""
    kind, count, addresses = ATTACKS[name]
    until = time.monotonic() + seconds

    async def main() -> dict[str, int]:
        if kind == "churn":
            return await _churn(url, churn_room, count, addresses, until)
        return await _solver(url, count, addresses, until)

    out.put(asyncio.run(main()))


# ---------------------------------------------------------------- the bystander


class Bystander:
    def __init__(self, url: str) -> None:
        self.url = url
        self.samples = Samples()
        self.room = ""

    async def seat(self) -> None:
        self.players = [await RaceClient(self.url).connect() for _ in range(2)]
        joined = await self.players[0].create("Ann", RoomSettings(deal=EASY, practice=True))
        self.room = joined.room
        await self.players[1].join(self.room, "Bob")
        await self.players[0].start(force=True)
        await asyncio.gather(*(p.wait_started(30) for p in self.players))

    async def play(self, until: float) -> None:
        await asyncio.gather(
            *(self._draw(p, until) for p in self.players), self._hints(until), self._probe(until)
        )

    async def _draw(self, player: RaceClient, until: float) -> None:
        while time.monotonic() < until:
            began = time.monotonic()
            try:
                await player.move("S")
                self.samples.acks_ms.append((time.monotonic() - began) * 1000)
            except ServerError as exc:
                self.samples.errors.append(exc.code)
            await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - began)))  # a clock

    async def _hints(self, until: float) -> None:
        while time.monotonic() < until:
            self.samples.hints_asked += 1
            try:
                reply = await self.players[0].hint()
                self.samples.hints_answered += reply.move is not None and not reply.busy
            except ServerError as exc:
                self.samples.errors.append(exc.code)
            await asyncio.sleep(2.0)  # a clock: a person asks now and then

    async def _probe(self, until: float) -> None:
        n = 0
        while time.monotonic() < until:
            began = time.monotonic()
            n += 1
            try:
                async with RaceClient(self.url) as probe:
                    await probe.join(self.room, f"Probe {n}", role=Role.SPECTATOR)
                    self.samples.probes_ms.append((time.monotonic() - began) * 1000)
                    await probe.leave()
            except (ServerError, OSError, TimeoutError, websockets.WebSocketException):
                self.samples.probe_failures += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - began)))  # a clock

    def take(self) -> Samples:
        done, self.samples = self.samples, Samples()
        return done


def _row(name: str, samples: Samples, cpu_pct: float | None, tally: dict | None) -> dict:
    return {
        "phase": name,
        "ack_p50_ms": _r(percentile(samples.acks_ms, 50)),
        "ack_p99_ms": _r(percentile(samples.acks_ms, 99)),
        "acks": len(samples.acks_ms),
        "probe_p50_ms": _r(percentile(samples.probes_ms, 50)),
        "probe_p99_ms": _r(percentile(samples.probes_ms, 99)),
        "probe_failures": samples.probe_failures,
        "hints": f"{samples.hints_answered}/{samples.hints_asked}",
        "errors": len(samples.errors),
        "server_cpu_pct": _r(cpu_pct),
        "attack": tally,
    }


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


async def _run(url: str, pid: int, attacks: list[str], seconds: float) -> list[dict]:
    bystander = Bystander(url)
    await bystander.seat()
    host = await RaceClient(url).connect()  # the churned room, held open by its host
    churn_room = (await host.create("Churn host")).room
    ctx = multiprocessing.get_context("spawn")
    rows: list[dict] = []
    for name in attacks:
        for phase in (f"quiet before {name}", name):
            out = ctx.Queue()
            attacker = None
            if phase == name:
                args = (url, name, churn_room, seconds, out)
                attacker = ctx.Process(target=_attack, args=args, daemon=True)
                attacker.start()
                await asyncio.sleep(1.0)  # the attack gets going before we measure
            cpu_before, began = cpu_seconds(pid), time.monotonic()
            await bystander.play(time.monotonic() + seconds)
            cpu_after, took = cpu_seconds(pid), time.monotonic() - began
            cpu = (
                (cpu_after - cpu_before) / took * 100
                if cpu_before is not None and cpu_after is not None
                else None
            )
            tally = None
            if attacker is not None:
                tally = await asyncio.to_thread(out.get, True, seconds + 120)
                await asyncio.to_thread(attacker.join, 30)
            rows.append(_row(phase, bystander.take(), cpu, tally))
    await host.close()
    for player in bystander.players:
        await player.close()
    return rows


def run_bystander(seconds: float = 8.0, attacks: list[str] | None = None) -> dict[str, Any]:
    """Start Redis and a server, run the phases, return the rows and their ratios."""
    chosen = attacks or list(ATTACKS)
    with local_servers(1, SERVER_ENV, prefix="canfield-bystander-") as (_, (server,)):
        assert server.pid is not None
        rows = asyncio.run(_run(server.ws_url, server.pid, chosen, seconds))
    for quiet, attack in zip(rows[::2], rows[1::2], strict=True):
        for key in ("ack_p50_ms", "ack_p99_ms"):
            if quiet[key] and attack[key] is not None:
                attack[key.replace("_ms", "_x")] = round(attack[key] / quiet[key], 2)
    return {"seconds": seconds, "phases": rows}


def format_bystander(out: dict[str, Any]) -> str:
    head = (
        f"{'phase':<24}{'ack p50':>9}{'p99':>9}{'x p50':>7}{'x p99':>7}"
        f"{'probe p50':>11}{'p99':>9}{'hints':>7}{'cpu %':>7}"
    )
    lines = [head]
    for row in out["phases"]:
        lines.append(
            f"{row['phase']:<24}{_f(row['ack_p50_ms']):>9}{_f(row['ack_p99_ms']):>9}"
            f"{_f(row.get('ack_p50_x')):>7}{_f(row.get('ack_p99_x')):>7}"
            f"{_f(row['probe_p50_ms']):>11}{_f(row['probe_p99_ms']):>9}"
            f"{row['hints']:>7}{_f(row['server_cpu_pct']):>7}"
        )
        if row["attack"]:
            lines.append(f"{'':<24}attack: {row['attack']}")
    return "\n".join(lines)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
