"""``canfield-race bench``: load-test a server and print the figures."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "load-test a server and print figures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=200, help="racing players (default 200)")
    parser.add_argument("--rooms", type=int, default=20, help="rooms they race in (default 20)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time (default 10)")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured lead-in seconds")
    parser.add_argument(
        "--rate", type=float, default=None, help="target total moves/s (default: closed loop)"
    )
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="URL",
        help="ws://host:port/ws of a running server (repeat for several; default: start one)",
    )
    parser.add_argument(
        "--server-pid", action="append", type=int, default=[], help="pid of a --server, for RSS"
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes to start (sharing one Redis)"
    )
    parser.add_argument("--workers", type=int, default=2, help="load generator processes")
    parser.add_argument(
        "--idle", type=int, default=0, metavar="N", help="connect N idle players; report RSS"
    )
    parser.add_argument(
        "--daily",
        type=int,
        default=0,
        metavar="N",
        help="daily mode: N players each play today's daily race once over --seconds"
        " and read the standing; report standing latency and cost per result",
    )
    parser.add_argument(
        "--bystander",
        action="store_true",
        help="bystander mode: a room playing while others churn connections (one address,"
        " 50) and hammer the solver (one room, eight); its latency against the quiet"
        " phase before each attack (--seconds per phase)",
    )
    parser.add_argument(
        "--attack",
        action="append",
        default=[],
        help="with --bystander: only this attack (churn-1, churn-50, solver-1, solver-8)",
    )
    parser.add_argument(
        "--distance",
        action="store_true",
        help="distance mode: one solver line played through a real Chromium page (the"
        " web client) behind a delaying proxy, at 0 ms and at --rtt-ms extra round trip;"
        " prints both times and the aim (needs Playwright and Chromium)",
    )
    parser.add_argument(
        "--rtt-ms", type=float, default=200.0, help="with --distance: the far run's round trip"
    )
    parser.add_argument("--deal", default=None, help="with --distance: the deal to race")
    parser.add_argument(
        "--redis-url",
        default=None,
        help="with --server: the Redis it uses, to run the baseline against it too",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline phase")
    parser.add_argument(
        "--appendfsync",
        choices=["always", "everysec", "no"],
        default="always",
        help="Redis AOF fsync policy of the Redis the bench starts (default: always)",
    )
    parser.add_argument(
        "--contend",
        action="store_true",
        help="other work on the box: one process spinning on a CPU through both phases"
        " (ours and the baseline's)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="PATH",
        help="sample the server process with py-spy during its phase: a flame graph"
        " at PATH.svg, the collapsed stacks at PATH.txt, the top frames printed",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..bench import BenchConfig, StderrProgress, format_table, run_bench

    if args.bystander:
        return _bystander(args)
    if args.distance:
        return _distance(args)

    cfg = BenchConfig(
        players=args.players,
        rooms=args.rooms,
        seconds=args.seconds,
        warmup_s=args.warmup,
        rate=args.rate,
        servers=args.server,
        server_pids=args.server_pid,
        processes=args.processes,
        workers=args.workers,
        baseline=not args.no_baseline,
        idle=args.idle,
        appendfsync=args.appendfsync,
        redis_url=args.redis_url,
        daily=args.daily,
        contend=args.contend,
        profile=args.profile,
    )
    if cfg.players < 1 or cfg.rooms < 1 or cfg.rooms > cfg.players or cfg.seconds <= 0:
        print("canfield-race bench: need players >= rooms >= 1 and seconds > 0", file=sys.stderr)
        return 2
    progress = StderrProgress()
    out = run_bench(cfg, progress=progress)
    progress.done()
    print(json.dumps(out) if args.json else format_table(out))
    return 0 if out.get("errors") == 0 else 1


def _distance(args: argparse.Namespace) -> int:
    from ..distance import DEAL, report, run_distance

    line, runs = run_distance((0.0, args.rtt_ms), args.deal or DEAL)
    print(report(line, runs))
    return 0


def _bystander(args: argparse.Namespace) -> int:
    from ..bystander import ATTACKS, format_bystander, run_bystander

    unknown = [a for a in args.attack if a not in ATTACKS]
    if unknown or args.seconds <= 0:
        print(f"canfield-race bench: attacks are {', '.join(ATTACKS)}", file=sys.stderr)
        return 2
    out = run_bystander(args.seconds, args.attack or None)
    print(json.dumps(out) if args.json else format_bystander(out))
    return 0
