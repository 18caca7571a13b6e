"""``canfield-race solve``: decide whether a deal can be won, or study many.

``solve CODE`` prints ``winnable`` and the move list, ``not winnable`` or
``unknown``; ``--json`` prints one object instead. ``solve --study N``
solves N random deals (reproducible with ``--seed``) across ``--jobs``
processes and prints the table ``docs/solver.md`` quotes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

from canfield import CanfieldError, DealCode, Game
from canfield.analysis import has_useful_move, has_useful_move_seen
from canfield.dealcode import SEED_SPACE
from canfield.solver import NOT_WINNABLE, UNKNOWN, WINNABLE, SolveResult, solve

from canfield_cli.stats import percentile, wilson

HELP = "decide whether a deal can be won"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", nargs="?", help="deal code such as CF1-D3-AAAAACL (or CF2-...)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per deal (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    study = parser.add_argument_group("study (instead of CODE)")
    study.add_argument("--study", type=int, metavar="N", help="solve N random deals")
    study.add_argument("--draw", type=int, choices=(1, 3), default=3, help="draw mode")
    study.add_argument("--seed", type=int, default=1, help="seed for the random codes")
    study.add_argument("--jobs", type=int, default=1, help="worker processes")
    study.add_argument("--out", help="also write one JSON line per deal to this file")
    study.add_argument(
        "--summary", metavar="FILE", help="print the table for the lines an --out FILE holds"
    )
    parser.add_argument(
        "--bench-useful",
        type=int,
        metavar="N",
        help="time has_useful_move(_seen) on positions from N randomly played deals",
    )


def run(args: argparse.Namespace) -> int:
    if args.bench_useful is not None:
        print(bench_useful(args.bench_useful, args.seed))
        return 0
    if args.summary:
        return _summary(args.summary)
    if args.study is not None:
        if args.code:
            print("give a CODE or --study N, not both", file=sys.stderr)
            return 2
        if args.study < 1 or args.jobs < 1:
            print("--study and --jobs must be at least 1", file=sys.stderr)
            return 2
        return _study(args)
    if not args.code:
        print("give a deal code, e.g. canfield-race solve CF1-D3-AAAAACL", file=sys.stderr)
        return 2
    try:
        code = DealCode.parse(args.code)
    except CanfieldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = solve(code, timeout_s=args.timeout)
    if args.json:
        print(json.dumps({"code": str(code), **result.to_dict()}))
    else:
        print(result.result)
        if result.moves:
            print(" ".join(result.moves))
        print(
            f"{len(result.moves)} moves, {result.nodes} nodes, {result.seconds:.3f} s",
            file=sys.stderr,
        )
    return 0


def bench_useful(deals: int, seed: int, steps: int = 60) -> str:
    """Time ``has_useful_move`` (every card) and ``has_useful_move_seen`` (the
    player's knowledge, what a board shows) after every move of random play
    (both draw modes): one line each, on the same positions."""
    rng = random.Random(seed)
    checks = (has_useful_move, has_useful_move_seen)
    times: list[list[float]] = [[] for _ in checks]
    stuck = [0 for _ in checks]
    for index in range(deals):
        game = Game.deal(DealCode.from_seed(rng.randrange(SEED_SPACE), 1 + 2 * (index % 2)))
        for _ in range(steps):
            for k, check in enumerate(checks):
                start = time.process_time()
                useful = check(game)
                times[k].append(time.process_time() - start)
                stuck[k] += not useful
            moves = list(game.legal_moves())
            if not moves:
                break
            game.push(rng.choice(moves))
    lines = []
    for check, taken, none in zip(checks, times, stuck, strict=True):
        shares = ", ".join(
            f"{name} {1000 * (percentile(taken, pct) or 0.0):.3f} ms"
            for name, pct in (("median", 50), ("p90", 90), ("p99", 99), ("max", 100))
        )
        lines.append(
            f"{check.__name__} on {len(taken)} positions ({none} with no useful move): {shares}"
        )
    return "\n".join(lines)


def study_codes(count: int, draw: int, seed: int) -> list[str]:
    """``count`` random deal codes, the same ones for the same seed."""
    rng = random.Random(seed)
    return [str(DealCode.from_seed(rng.randrange(SEED_SPACE), draw)) for _ in range(count)]


def _solve_one(job: tuple[str, float]) -> tuple[str, SolveResult]:
    code, timeout = job
    return code, solve(code, timeout_s=timeout)


def _study(args: argparse.Namespace) -> int:
    codes = study_codes(args.study, args.draw, args.seed)
    jobs = [(code, args.timeout) for code in codes]
    results: list[SolveResult] = []
    out: TextIO | None = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    started = time.perf_counter()
    try:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for done, (code, result) in enumerate(pool.map(_solve_one, jobs), start=1):
                results.append(result)
                if out is not None:
                    line = {"code": code, **result.to_dict(), "moves": len(result.moves)}
                    out.write(json.dumps(line) + "\n")
                    out.flush()
                if done % 50 == 0 or done == len(jobs):
                    print(f"{done}/{len(jobs)} deals", file=sys.stderr, flush=True)
    finally:
        if out is not None:
            out.close()
    wall = time.perf_counter() - started
    table = summarise(results)
    if args.json:
        print(json.dumps({"draw": args.draw, "seed": args.seed, **table}))
    else:
        print(format_table(args.draw, table))
        print(
            f"(seed {args.seed}, timeout {args.timeout:g} s, {args.jobs} job(s), wall {wall:.0f} s)"
        )
    return 0


def _summary(path: str) -> int:
    """The table for a study's per-deal lines (all one draw mode)."""
    results: list[SolveResult] = []
    draws: set[int] = set()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            data = json.loads(line)
            draws.add(DealCode.parse(data["code"]).draw)
            results.append(SolveResult(data["result"], [], data["seconds"], data["nodes"]))
    if len(draws) != 1 or not results:
        print(f"{path}: expected lines of one draw mode", file=sys.stderr)
        return 2
    print(format_table(draws.pop(), summarise(results)))
    return 0


def summarise(results: list[SolveResult]) -> dict[str, Any]:
    """The study figures: shares, time percentiles, search speed."""
    count = len(results)
    wins = sum(r.result == WINNABLE for r in results)
    losses = sum(r.result == NOT_WINNABLE for r in results)
    unknown = sum(r.result == UNKNOWN for r in results)
    times = sorted(r.seconds for r in results)
    won = sorted(r.seconds for r in results if r.result == WINNABLE) or [0.0]
    total = sum(times)
    low, high = wilson(wins, count)
    return {
        "deals": count,
        "winnable": wins,
        "not_winnable": losses,
        "unknown": unknown,
        "winnable_pct": 100.0 * wins / count,
        "not_winnable_pct": 100.0 * losses / count,
        "unknown_pct": 100.0 * unknown / count,
        "winnable_ci95": [round(100 * low, 1), round(100 * high, 1)],
        "median_s": percentile(times, 50) or 0.0,
        "p90_s": percentile(times, 90) or 0.0,
        "max_s": times[-1],
        "winnable_median_s": percentile(won, 50) or 0.0,
        "winnable_p90_s": percentile(won, 90) or 0.0,
        "nodes_per_s": sum(r.nodes for r in results) / total if total else 0.0,
    }


def format_table(draw: int, table: dict[str, Any]) -> str:
    """One Markdown table row (with header) for docs/solver.md."""
    low, high = table["winnable_ci95"]
    header = (
        "| Mode | Deals | Winnable (95% CI) | Not winnable | Unknown | Median s | p90 s "
        "| Winnable p90 s | Nodes/s |\n|---|---|---|---|---|---|---|---|---|"
    )
    row = (
        f"| Draw {draw} | {table['deals']} | {table['winnable_pct']:.1f}% "
        f"({low:.1f}-{high:.1f}) | {table['not_winnable_pct']:.1f}% | "
        f"{table['unknown_pct']:.1f}% | {table['median_s']:.4f} | {table['p90_s']:.3f} | "
        f"{table['winnable_p90_s']:.3f} | {table['nodes_per_s']:,.0f} |"
    )
    return f"{header}\n{row}"
