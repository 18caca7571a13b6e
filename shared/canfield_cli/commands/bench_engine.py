"""``canfield-race bench-engine``: how fast the rules engine plays.

Random legal playouts on many deals. At every position of a playout the
command times one full legal-move generation and, for each legal move,
one apply + undo (what a solver does at every node); then it plays one
of those moves at random and goes on. Dealing is timed on its own.
Rates use the process's CPU time, so they mean "on one core" even when
other work shares the machine. Timing lives here, not in the engine,
which stays free of I/O and clocks.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import asdict, dataclass

from canfield import DealCode, Game
from canfield.dealcode import SEED_SPACE

#: A playout stops after this many moves (draws included) or at a win.
PLAYOUT_MOVES = 300


@dataclass
class Figures:
    """What the benchmark measured; the rates are per second of engine time."""

    apply_undo_per_s: float
    legal_gen_per_s: float
    deals_per_s: float
    apply_undo: int
    legal_gens: int
    deals: int
    playouts: int
    wins: int
    seconds: float


HELP = "measure the rules engine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to play (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed for the random playouts")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _playout(game: Game, rng: random.Random, clock: list[float], counts: list[int]) -> None:
    """One random playout; adds engine time to ``clock`` and work to ``counts``."""
    now = time.process_time
    for _ in range(PLAYOUT_MOVES):
        start = now()
        moves = list(game.legal_moves())
        middle = now()
        for move in moves:
            game.push(move)
            game.pop()
        end = now()
        clock[0] += middle - start
        clock[1] += end - middle
        counts[0] += 1
        counts[1] += len(moves)
        if not moves or game.is_won:
            return
        game.push(rng.choice(moves))


def measure(seconds: float, seed: int = 1) -> Figures:
    """Play random playouts for about ``seconds`` and return the figures."""
    rng = random.Random(seed)
    clock = [0.0, 0.0]  # legal generation, apply + undo
    counts = [0, 0]  # legal generations, apply + undo pairs
    playouts = wins = 0
    stop = time.perf_counter() + seconds * 0.8
    while time.perf_counter() < stop:
        code = DealCode.from_seed(rng.randrange(SEED_SPACE), rng.choice((1, 3)))
        game = Game.deal(code)
        _playout(game, rng, clock, counts)
        playouts += 1
        wins += game.is_won
    deals = 0
    deal_time = 0.0
    stop = time.perf_counter() + seconds * 0.2
    while time.perf_counter() < stop:
        codes = [DealCode.from_seed(rng.randrange(SEED_SPACE)) for _ in range(200)]
        start = time.process_time()
        for code in codes:
            Game.deal(code)
        deal_time += time.process_time() - start
        deals += len(codes)
    return Figures(
        apply_undo_per_s=round(counts[1] / clock[1]) if clock[1] else 0.0,
        legal_gen_per_s=round(counts[0] / clock[0]) if clock[0] else 0.0,
        deals_per_s=round(deals / deal_time) if deal_time else 0.0,
        apply_undo=counts[1],
        legal_gens=counts[0],
        deals=deals,
        playouts=playouts,
        wins=wins,
        seconds=seconds,
    )


def run(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise SystemExit("canfield-race bench-engine: --seconds must be positive")
    figures = measure(args.seconds, args.seed)
    if args.json:
        print(json.dumps(asdict(figures)))
        return 0
    print(f"apply+undo per second:        {figures.apply_undo_per_s:>12,.0f}")
    print(f"legal-move generations per s: {figures.legal_gen_per_s:>12,.0f}")
    print(f"deals per second:             {figures.deals_per_s:>12,.0f}")
    print(
        f"({figures.playouts} random playouts, {figures.wins} won, "
        f"{figures.apply_undo:,} apply+undo, {figures.legal_gens:,} generations, "
        f"{figures.deals:,} deals in about {figures.seconds:g} s)"
    )
    return 0
