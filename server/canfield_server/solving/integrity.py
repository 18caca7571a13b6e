"""A finished racer's integrity signals, the solver's part worked out off the
move path (``room.integrity`` holds the computation, this its questions).

``LineSignals.assess`` is called once per finished racer after the race's
results are written (``room.assess``), so nothing waits on it. A lost line
asks the solver nothing (the flag rule reads won lines only); a won one asks
for solver-winning lines along its net line (``room.integrity.Agreement``),
each question one job at the solver workers in the race owner's turn
(``DealPool.decide``: the room, or ``daily:<date>``), so a room with many
racers, or a server busy with them, gets its signals later and never at
another room's expense. The cost per racer is bounded: at most
``integrity_calls`` questions, ``integrity_call_s`` of solver time each and
``integrity_seconds`` in all; a turn that does not come within
``integrity_wait_s`` ends the questions (the agreement is then over the moves
checked so far, or None). At most ``integrity_max_lines`` lines are worked on
at once per process; past it a line's agreement is not asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from canfield.errors import CanfieldError
from canfield.solver import UNKNOWN, SolveResult
from canfield_protocol import ProtocolError

from canfield_server.ops.config import Settings
from canfield_server.room.integrity import Agreement, Signals, net_line, signals
from canfield_server.room.stamps import split_log
from canfield_server.solving.deal_pool import DealPool
from canfield_server.solving.scheduler import Busy

__all__ = ["LineSignals"]

log = logging.getLogger(__name__)


class LineSignals:
    """The signals of finished racers' lines, the solver asked in fair turns."""

    def __init__(self, pool: DealPool, settings: Settings) -> None:
        self.pool = pool
        self.call_s = settings.integrity_call_s
        self.calls = settings.integrity_calls
        self.seconds = settings.integrity_seconds
        self.wait_s = settings.integrity_wait_s
        self.max_lines = settings.integrity_max_lines
        self.working = 0
        #: solver questions this process asked (the tests count them)
        self.solver_calls = 0

    async def assess(
        self, owner: str, deal: str, log_entries: Sequence[str], par: int | None
    ) -> Signals | None:
        """One racer's signals from its stored log (receipt times in it or not);
        None when the log does not replay on the deal (nothing to judge)."""
        moves, times = split_log(log_entries)
        try:
            line = net_line(deal, moves)
        except (CanfieldError, ValueError) as exc:
            log.warning("signals of a line on %s not computed: %s", deal, exc)
            return None
        agreement = None
        if line.won and self.working < self.max_lines:
            agreement = Agreement(deal, line, self.calls, self.seconds)
            self.working += 1
            try:
                await self._ask(owner, deal, agreement)
            finally:
                self.working -= 1
        return signals(deal, moves, times, par, agreement, line)

    async def _ask(self, owner: str, deal: str, agreement: Agreement) -> None:
        while not agreement.done:
            question = agreement.question()
            try:
                answer = await self.pool.decide(owner, deal, question, self.call_s, self.wait_s)
            except Busy:
                log.info("signals of a line on %s: the solver stayed busy", deal)
                return
            except TimeoutError:  # a job that overran its limit on a loaded machine
                answer = SolveResult(UNKNOWN, seconds=self.call_s)
            except ProtocolError:  # the workers restarted: what was checked stands
                return
            self.solver_calls += 1
            agreement.answer(answer)
