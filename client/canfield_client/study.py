"""How strong the bot is: it plays many random deals at each strength.

The deals are ``canfield-race solve --study``'s (same count, draw mode and
seed give the same codes), so the solver's verdicts from a ``solve --study
--out FILE`` run can be laid beside the bot's results: of the deals a
player who saw every card could win, how many the bot wins seeing only
what a person sees.
"""

from __future__ import annotations

import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from canfield import Game
from canfield_cli.commands.solve import study_codes

from .strategy import LEVELS, Strategy, play_out

__all__ = ["play_deals", "load_verdicts", "study_table", "format_study", "study_codes"]


def _play(job: tuple[str, str, int]) -> tuple[bool, int]:
    code, strength, seed = job
    game = Game.deal(code)
    play_out(game, Strategy(strength, random.Random(seed)))
    return game.is_won, game.on_foundations


def play_deals(
    codes: list[str], strengths: list[str], jobs: int = 1
) -> dict[str, list[tuple[bool, int]]]:
    """(won, cards on the foundations) per deal, for each strength."""
    work = [(code, strength, index) for strength in strengths for index, code in enumerate(codes)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(_play, work, chunksize=8))
    return {s: outcomes[i * len(codes) : (i + 1) * len(codes)] for i, s in enumerate(strengths)}


def load_verdicts(path: str | Path) -> dict[str, str]:
    """Deal code -> solver verdict, from ``solve --study --out`` JSON lines."""
    verdicts: dict[str, str] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            verdicts[item["code"]] = item["result"]
    return verdicts


def study_table(
    codes: list[str], results: dict[str, list[tuple[bool, int]]], verdicts: dict[str, str]
) -> dict[str, object]:
    """Wins per strength, and among the deals the solver proved winnable."""
    winnable = [i for i, code in enumerate(codes) if verdicts.get(code) == "winnable"]
    table: dict[str, object] = {"deals": len(codes), "solver_winnable": len(winnable)}
    table["solver_known"] = sum(code in verdicts for code in codes)
    for strength, outcomes in results.items():
        table[strength] = {
            "won": sum(won for won, _ in outcomes),
            "won_of_winnable": sum(outcomes[i][0] for i in winnable),
            "mean_on_foundations": round(sum(n for _, n in outcomes) / len(outcomes), 1),
        }
    return table


def format_study(table: dict[str, object], draw: int) -> str:
    lines = [f"Draw {draw}: {table['deals']} deals"]
    if table["solver_known"]:
        lines[0] += (
            f", solver verdicts for {table['solver_known']} ({table['solver_winnable']} winnable)"
        )
    for strength in LEVELS:
        row = table.get(strength)
        if not isinstance(row, dict):
            continue
        text = f"  {strength:<7} won {row['won']:>4}/{table['deals']}"
        if table["solver_known"]:
            text += f"   of winnable {row['won_of_winnable']:>4}/{table['solver_winnable']}"
        text += f"   mean cards up {row['mean_on_foundations']}"
        lines.append(text)
    return "\n".join(lines)
