"""Tell honest from not: races played against a real server, then its flags read.

Two classes of racer, each alone in a room of its own racing a typed-in
deal (the deal known in advance stands for the scouting a cheater does):

* **solver**: the shipped solver's winning line (``canfield.solver.solve``),
  played at a human-like pace (log-normal think times around a median), with
  now and then a move tried and undone and a full turn of the stock that
  changes nothing thrown in;
* **honest**: the project's heuristic bot (``strategy.Strategy``) at each
  strength, at the same kind of pace (it gives up when stuck).

After each race the server computes the racer's integrity signals
(``room.integrity``) off the move path; the bench reads every result's
assessment back through ``GET /admin/api/cases`` with an operator token and
counts the flagged ones per class. Loopback only; bounded in races, time and
concurrency.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import secrets
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from canfield import DealCode, Game
from canfield.solver import WINNABLE, solve
from canfield_client.board import game_from_view
from canfield_client.client import RaceClient, ServerError
from canfield_client.strategy import LEVELS, Strategy
from canfield_protocol import RoomSettings

__all__ = [
    "Plan",
    "Outcome",
    "plans",
    "padded_line",
    "play",
    "read_flags",
    "run",
    "judge",
    "summary",
]

#: log-normal sigma of the think times (90th/10th percentile about 4.7)
SIGMA = 0.6
#: the chance, before each move of a solver line, of a move tried and undone ...
UNDO_CHANCE = 0.06
#: ... and of a full turn of the stock that changes nothing
CYCLE_CHANCE = 0.01


@dataclass(frozen=True, slots=True)
class Plan:
    """One race to play: who plays it, at what median pace, on which deal."""

    kind: str  # "solver" or "honest"
    pace_s: float
    code: str
    seed: int
    strength: str | None = None
    line: tuple[str, ...] = ()


@dataclass(slots=True)
class Outcome:
    plan: Plan
    result: str | None = None
    won: bool = False
    error: str | None = None
    case: dict[str, Any] | None = field(default=None)


def padded_line(code: str, line: list[str] | tuple[str, ...], rng: random.Random) -> list[str]:
    """A solver line as a cheater hides it: moves tried and undone (``U``), full
    turns of the stock that change nothing."""
    game, out = Game.deal(code), []
    for text in line:
        if rng.random() < UNDO_CHANCE:
            out += [rng.choice(list(game.legal_moves())).text(), "U"]
        if rng.random() < CYCLE_CHANCE and (game.stock or game.waste):
            taps, start = 0, game.position_key()
            while taps < 80:
                game.push_text("S")
                taps += 1
                if game.position_key() == start:
                    break
            if game.position_key() == start:
                out += ["S"] * taps
            else:
                for _ in range(taps):
                    game.pop()
        game.push_text(text)
        out.append(text)
    return out


#: the longest solver line a bench cheater plays (some found lines run to thousands)
MAX_LINE = 350


def _solved_deal(draw: int, rng: random.Random, timeout_s: float) -> tuple[str, list[str]]:
    while True:
        code = str(DealCode.from_seed(rng.randrange(2**100), draw, 2))
        found = solve(code, timeout_s)
        if found.result == WINNABLE and len(found.moves) <= MAX_LINE:
            return code, list(found.moves)


def plans(races: int, paces: list[float], seed: int = 1, solve_s: float = 3.0) -> list[Plan]:
    """Half the races solver lines (the paces in turn), half honest bots (each
    strength and pace in turn), on solver-winnable deals: the solver's half
    Draw 1 and Draw 3, the bots' three in four Draw 1 (they win those)."""
    rng = random.Random(seed)
    out: list[Plan] = []
    strengths = list(LEVELS)
    for i in range(races):
        # the bots win Draw 1 deals far more often: most honest races are Draw 1
        draw = 3 if (i % 4 == 0 if i % 2 == 0 else i % 8 == 1) else 1
        code, line = _solved_deal(draw, rng, solve_s)
        if i % 2 == 0:
            pace = paces[(i // 2) % len(paces)]
            out.append(Plan("solver", pace, code, rng.randrange(2**31), line=tuple(line)))
        else:
            strength = strengths[(i // 2) % len(strengths)]
            pace = paces[(i // 2 // len(strengths)) % len(paces)]
            out.append(Plan("honest", pace, code, rng.randrange(2**31), strength=strength))
    return out


async def play(ws_url: str, plan: Plan, race_timeout_s: float) -> Outcome:
    """Play one race alone in a new room; the result id the server judges."""
    outcome = Outcome(plan)
    rng = random.Random(plan.seed)

    async def think() -> None:
        await asyncio.sleep(plan.pace_s * math.exp(rng.gauss(0, SIGMA)))

    draw = DealCode.parse(plan.code).draw
    try:
        async with RaceClient(ws_url) as client:
            joined = await client.create(
                f"{plan.kind}-{plan.seed % 1000}",
                RoomSettings(draw=draw, deal=plan.code),  # type: ignore[arg-type]
            )
            await client.start(force=True)
            await client.wait_started(60)
            race = client.state.race if client.state is not None and client.state.race else 1
            outcome.result = f"{joined.room}:{race}:{joined.player_id}"
            async with asyncio.timeout(race_timeout_s):
                if plan.kind == "solver":
                    for action in padded_line(plan.code, plan.line, rng):
                        await think()
                        if action == "U":
                            await client.undo()
                        else:
                            await client.move(action)
                else:
                    await _bot(client, Strategy(plan.strength or "normal", rng), think)
                finished = await client.wait_finished(60)
            outcome.won = any(
                row.id == joined.player_id and row.status == "won" for row in finished.standings
            )
    except (ServerError, OSError, TimeoutError) as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


async def _bot(client: RaceClient, strategy: Strategy, think: Callable[[], Any]) -> None:
    strategy.reset()
    while client.finished is None and client.board is not None and not client.board.won:
        move = strategy.choose(game_from_view(msgspec.to_builtins(client.board)))
        await think()
        if move is None:
            await client.give_up()
            return
        await client.move(move.text())


def read_flags(http_url: str, token: str, results: list[str]) -> dict[str, Any]:
    """The server's assessment of each result (None: not recorded yet)."""
    found: dict[str, Any] = {}
    for start in range(0, len(results), 100):
        batch = results[start : start + 100]
        query = "&".join(f"result={r}" for r in batch)
        request = urllib.request.Request(
            f"{http_url}/admin/api/cases?{query}", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as resp:
            found.update(json.loads(resp.read())["cases"])
    return found


async def _play_all(
    ws_url: str, all_plans: list[Plan], concurrency: int, race_timeout_s: float
) -> list[Outcome]:
    gate = asyncio.Semaphore(concurrency)

    async def one(plan: Plan) -> Outcome:
        async with gate:
            return await play(ws_url, plan, race_timeout_s)

    return list(await asyncio.gather(*(one(p) for p in all_plans)))


def run(
    races: int,
    paces: list[float],
    concurrency: int,
    race_timeout_s: float = 1200.0,
    judge_timeout_s: float = 600.0,
    seed: int = 1,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """``races`` races of both classes (``plans``) against a local server (``judge``)."""
    progress(f"solving {races} deals")
    return judge(plans(races, paces, seed), concurrency, race_timeout_s, judge_timeout_s, progress)


def judge(
    all_plans: list[Plan],
    concurrency: int,
    race_timeout_s: float = 1200.0,
    judge_timeout_s: float = 600.0,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Start a redis-server and a server (an operator token, a solver worker per
    core up to two), play the races, wait for their assessments, count the flags."""
    import os
    import time

    from .processes import local_servers

    token = secrets.token_urlsafe(24)
    env = {
        **os.environ,
        "CANFIELD_ADMIN_TOKEN": token,
        "CANFIELD_SOLVER_WORKERS": str(max(1, min(2, os.cpu_count() or 1))),
        "CANFIELD_POOL_TARGET": "0",
        # every room comes from the bench's one loopback address
        "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
        "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
    }
    with local_servers(1, env, appendfsync="everysec", prefix="canfield-integrity-") as (
        _,
        servers,
    ):
        server = servers[0]
        progress(f"racing {len(all_plans)} races, {concurrency} at once")
        started = time.monotonic()
        outcomes = asyncio.run(_play_all(server.ws_url, all_plans, concurrency, race_timeout_s))
        raced_s = time.monotonic() - started
        wanted = [o.result for o in outcomes if o.result is not None and o.error is None]
        progress(f"waiting for {len(wanted)} assessments")
        deadline = time.monotonic() + judge_timeout_s
        cases: dict[str, Any] = {}
        while True:
            cases = read_flags(server.http_url, token, wanted)
            if all(cases.get(r) is not None for r in wanted) or time.monotonic() > deadline:
                break
            time.sleep(3)
        for o in outcomes:
            o.case = cases.get(o.result) if o.result else None
    out = summary(outcomes, raced_s, time.monotonic() - started)
    out["outcomes"] = [
        {
            "kind": o.plan.kind,
            "pace_s": o.plan.pace_s,
            "strength": o.plan.strength,
            "code": o.plan.code,
            "result": o.result,
            "won": o.won,
            "error": o.error,
            "reasons": o.case.get("reasons") if o.case else None,
            "agreement": o.case["signals"]["solver_agreement"] if o.case else None,
            "checked": o.case["signals"]["checked_moves"] if o.case else None,
            "timed": o.case["signals"].get("timed") if o.case else None,
        }
        for o in outcomes
    ]
    return out


def summary(outcomes: list[Outcome], raced_s: float, total_s: float) -> dict[str, Any]:
    """Flag counts per class and pace (and strength), over races assessed."""
    groups: dict[str, dict[str, int]] = {}

    def count(name: str, o: Outcome) -> None:
        g = groups.setdefault(
            name, {"races": 0, "won": 0, "assessed": 0, "flagged": 0, "errors": 0}
        )
        g["races"] += 1
        g["won"] += o.won
        g["errors"] += o.error is not None
        if o.case is not None:
            g["assessed"] += 1
            g["flagged"] += bool(o.case.get("reasons"))

    for o in outcomes:
        p = o.plan
        count(p.kind, o)
        count(f"{p.kind} pace {p.pace_s:g}s", o)
        if p.strength:
            count(f"honest {p.strength}", o)
            if o.won:
                count("honest (won)", o)
    agreements = {
        kind: sorted(
            o.case["signals"]["solver_agreement"]
            for o in outcomes
            if o.plan.kind == kind and o.case and o.case["signals"]["solver_agreement"] is not None
        )
        for kind in ("solver", "honest")
    }
    return {"groups": groups, "agreement": agreements, "raced_s": raced_s, "total_s": total_s}


def format_summary(out: dict[str, Any]) -> str:
    lines = [f"{'class':<24}{'races':>7}{'won':>6}{'assessed':>10}{'flagged':>9}{'rate':>8}"]
    for name, g in out["groups"].items():
        rate = f"{g['flagged'] / g['assessed']:.0%}" if g["assessed"] else "-"
        lines.append(
            f"{name:<24}{g['races']:>7}{g['won']:>6}{g['assessed']:>10}{g['flagged']:>9}{rate:>8}"
            + (f"  ({g['errors']} errors)" if g["errors"] else "")
        )
    for kind, values in out["agreement"].items():
        if values:
            lines.append(
                f"solver agreement, {kind}: min {values[0]:.2f} median"
                f" {values[len(values) // 2]:.2f} max {values[-1]:.2f} ({len(values)} won lines)"
            )
    lines.append(f"raced in {out['raced_s']:.0f} s, judged by {out['total_s']:.0f} s")
    return "\n".join(lines)
