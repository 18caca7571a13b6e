"""Where the win slipped away: each racer's line of a finished race, reviewed.

``GET /replay/<id>/review`` asks for the reviews of a replay's racers. A
replay exists only once its race is over for everyone (a daily one once
its day is over: ``Hub.replay`` says 403 before), so nothing here can
reveal a hidden card during a race: a review is asked for through its
replay, never through a room.

A review (``canfield.review.LineReview``) is a few bounded solver
questions, about log2(moves) of them. Each question is one job at the
solver workers in the turn of the race's owner (``DealPool.decide``: the
room, or ``daily:<date>`` for a day's daily race), so a room with many
racers or a busy server gets its reviews later, never at another room's
expense. A question whose turn does not come in time asks again, at most
``review_tries`` times; then the review is dropped, and the next request
starts it again.

A review that finds a slip asks one more job the same way: its lesson
(``canfield.lesson.teach``: a short winning line from before the slip,
within ``review_line_s``, and what the slip gave up, in cards the page
puts into words). When that turn does not come the slip stands untaught.

The work starts with the first request for it (the results page asks as
soon as it shows), so a race nobody looks at costs nothing. Each verdict
is kept in Redis per (deal, line) as long as replays are
(``keys.review``): a replay opened by many people, or the same line in
another race, costs one review. A claim with expiry
(``keys.review_claim``) keeps two processes from reviewing the same line;
it carries the progress, so any process can say how far the review is,
and a process that dies lets its claim lapse for another to take over.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Sequence
from typing import Any

import msgspec
from canfield.review import LineError, LineReview, Verdict
from canfield.solver import UNKNOWN, SolveResult
from canfield_protocol import (
    DailyReplay,
    LineVerdict,
    Outcome,
    ProtocolError,
    RacerReview,
    ReplayReview,
    ReviewState,
    RoomReplay,
    encode,
)
from redis.exceptions import RedisError

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.room.stamps import unstamp
from canfield_server.solving.deal_pool import WALL_PER_CPU, DealPool
from canfield_server.solving.scheduler import Busy
from canfield_server.storage import keys

__all__ = ["LineReviews", "line_hash", "outcome", "questions_at_most", "wire_verdict"]

log = logging.getLogger(__name__)

#: what a client is told to wait before asking again while a review is pending
RETRY_MS = 1000
#: slack on a claim past one question's wait and run (a worker's start included)
_CLAIM_SLACK_S = 25.0
#: the pause before asking again after the workers restarted
_RESTART_PAUSE_S = 1.0

_verdict_decoder = msgspec.json.Decoder(LineVerdict)
_replay_decoder = msgspec.json.Decoder(RoomReplay | DailyReplay)


def line_hash(moves: Sequence[str]) -> str:
    """The cache's name for a line: its actions, hashed (128 bits)."""
    return hashlib.sha256("\n".join(moves).encode()).hexdigest()[:32]


def outcome(verdict: Verdict) -> Outcome:
    """The verdict in the one word a page puts into a sentence."""
    if verdict.won:
        return Outcome.WON
    if not verdict.decided:
        return Outcome.UNDECIDED
    if verdict.winnable_at_start is False:
        return Outcome.UNWINNABLE
    if verdict.slip is not None:
        return Outcome.SLIP
    return Outcome.WINNABLE


def wire_verdict(verdict: Verdict) -> LineVerdict:
    return LineVerdict(outcome=outcome(verdict), **verdict.to_dict())


def questions_at_most(review: LineReview) -> int:
    """The most questions a review of this line asks: the start, the end, then
    a bisection over the moves that stood, and the undecided positions it steps
    round (none for a won line)."""
    if review.done and review.calls == 0:
        return 0
    stood = len(review.stood)
    return 1 if stood == 0 else 2 + (stood - 1).bit_length() + LineReview.MAX_UNDECIDED


class _Run:
    """One line under review in this process."""

    __slots__ = ("review", "task")

    def __init__(self, review: LineReview) -> None:
        self.review = review
        self.task: asyncio.Task[None] | None = None


class LineReviews:
    """The reviews of finished races' lines: cached, claimed, run in fair turns."""

    def __init__(
        self, redis: Any, pool: DealPool, settings: Settings, *, clock: Clock = SYSTEM
    ) -> None:
        self.redis = redis
        self.pool = pool
        #: the pause before asking again after the workers restarted
        self.clock = clock
        self.call_s = settings.review_call_s
        self.line_s = settings.review_line_s
        self.wait_s = settings.review_wait_s
        self.tries = settings.review_tries
        self.max_lines = settings.review_max_lines
        self.ttl_s = settings.history_retention_days * 86_400
        #: a claim outlives one question's wait and run; each answer renews it
        run_s = max(self.call_s, self.line_s) * WALL_PER_CPU  # the job's wall-clock guard
        self.claim_s = int(self.wait_s + run_s + _CLAIM_SLACK_S) + 1
        self.me = os.urandom(6).hex()
        #: line key -> its review under way here
        self.running: dict[str, _Run] = {}
        #: solver questions this process asked, and slips it taught (the tests count them)
        self.solver_calls = 0
        self.lessons = 0

    async def of_replay(
        self, status: int, body: bytes | dict[str, str]
    ) -> tuple[int, ReplayReview | dict[str, str]]:
        """The reviews of what ``Hub.replay`` found: its refusal (unknown id, a day
        not over) as it was, having started nothing; else every racer's review."""
        if status != 200 or not isinstance(body, bytes):
            return status, body if isinstance(body, dict) else {"error": "no replay"}
        return 200, await self.review(_replay_decoder.decode(body))

    async def review(self, replay: RoomReplay | DailyReplay) -> ReplayReview:
        """Every racer's review of a finished race: the verdicts kept, the rest
        pending (and started here unless another process is on them)."""
        owner = replay.room if isinstance(replay, RoomReplay) else f"daily:{replay.date}"
        # a line is the racer's actions alone: their receipt times never change a verdict
        texts = [[unstamp(m).text for m in p.moves_list] for p in replay.players]
        lines = [
            (p.id, moves, line_hash(moves)) for p, moves in zip(replay.players, texts, strict=True)
        ]
        names = [keys.review(replay.deal, line) for _, _, line in lines]
        kept = await self.redis.mget(names) if names else []
        racers = []
        for (racer, moves, line), raw in zip(lines, kept, strict=True):
            if raw is not None:
                verdict = _verdict_decoder.decode(raw)
                racers.append(RacerReview(id=racer, state=ReviewState.DONE, verdict=verdict))
            else:
                racers.append(await self._pending(racer, owner, replay.deal, moves, line))
        pending = any(r.state == ReviewState.PENDING for r in racers)
        return ReplayReview(
            id=replay.id, deal=replay.deal, racers=racers, retry_ms=RETRY_MS if pending else None
        )

    async def _pending(
        self, racer: str, owner: str, deal: str, moves: list[str], line: str
    ) -> RacerReview:
        """A line with no verdict kept: its progress here or elsewhere, its review
        started here when nobody is on it."""
        run = self.running.get(line)
        if run is not None:
            return _progress(racer, run.review)
        try:
            review = LineReview(deal, moves)
        except (LineError, ValueError) as exc:
            log.warning("line of %s on %s not reviewed: %s", racer, deal, exc)
            return RacerReview(id=racer, state=ReviewState.FAILED)
        if review.done:  # a won line: no question to ask
            verdict = wire_verdict(review.verdict())
            await self.redis.set(keys.review(deal, line), encode(verdict), ex=self.ttl_s)
            return RacerReview(id=racer, state=ReviewState.DONE, verdict=verdict)
        claim = keys.review_claim(deal, line)
        if len(self.running) >= self.max_lines:
            return await self._elsewhere(racer, claim, review)
        if not await self.redis.set(claim, self._claim(review), nx=True, ex=self.claim_s):
            return await self._elsewhere(racer, claim, review)
        run = self.running[line] = _Run(review)
        run.task = asyncio.ensure_future(self._run(run, owner, deal, line))
        return _progress(racer, review)

    async def _elsewhere(self, racer: str, claim: str, review: LineReview) -> RacerReview:
        """Pending, with the progress the claim's holder last wrote (if any)."""
        raw = await self.redis.get(claim)
        answered, at_most = 0, questions_at_most(review)
        with contextlib.suppress(ValueError, TypeError, KeyError):
            held = json.loads(raw) if raw else {}
            answered, at_most = int(held["n"]), int(held["of"])
        return RacerReview(
            id=racer, state=ReviewState.PENDING, answered=answered, questions=at_most
        )

    def _claim(self, review: LineReview) -> str:
        return json.dumps({"by": self.me, "n": review.calls, "of": questions_at_most(review)})

    async def _run(self, run: _Run, owner: str, deal: str, line: str) -> None:
        """Ask the review's questions one job at a time; keep its verdict."""
        review, claim = run.review, keys.review_claim(deal, line)
        try:
            while not review.done:
                question = review.question()
                answer = await self._ask(owner, question.code, question.moves, claim, review)
                if answer is None:
                    log.warning("review of a line of %s dropped: the solver stayed busy", deal)
                    return
                review.answer(answer)
                await self.redis.set(claim, self._claim(review), xx=True, ex=self.claim_s)
            verdict = wire_verdict(await self._taught(owner, review, claim))
            await self.redis.set(keys.review(deal, line), encode(verdict), ex=self.ttl_s)
        except (RedisError, OSError) as exc:
            log.warning("review of a line of %s stopped: %s", deal, exc)
        except Exception:  # noqa: BLE001 - a review is never worth the server
            log.exception("review of a line of %s failed", deal)
        finally:
            self.running.pop(line, None)
            with contextlib.suppress(RedisError, OSError):
                held = await self.redis.get(claim)
                if held and json.loads(held).get("by") == self.me:
                    await self.redis.delete(claim)

    async def _taught(self, owner: str, review: LineReview, claim: str) -> Verdict:
        """The review's verdict, with a slip taught (a short line, and why) in one
        more bounded job in ``owner``'s turn; untaught when that turn does not
        come (``tries`` times) or the job overruns: the slip still stands."""
        verdict, before = review.verdict(), review.before_slip()
        if before is None:
            return verdict
        for _ in range(self.tries):
            try:
                taught = await self.pool.teach(owner, verdict, before, self.line_s, self.wait_s)
                self.lessons += 1
                return taught
            except Busy:
                await self.redis.set(claim, self._claim(review), xx=True, ex=self.claim_s)
            except TimeoutError:
                log.warning("slip of a line of %s not taught: the lesson overran", review.code)
                return verdict
            except ProtocolError:  # the workers restarted
                await self.clock.sleep(_RESTART_PAUSE_S)
        log.warning("slip of a line of %s not taught: the solver stayed busy", review.code)
        return verdict

    async def _ask(
        self, owner: str, code: str, moves: Sequence[str], claim: str, review: LineReview
    ) -> SolveResult | None:
        """One question, in ``owner``'s turn; asked again while the workers are busy
        (at most ``tries`` times: None then). A job that overruns its own limit on
        a loaded machine counts as undecided."""
        for _ in range(self.tries):
            try:
                answer = await self.pool.decide(owner, code, moves, self.call_s, self.wait_s)
                self.solver_calls += 1
                return answer
            except Busy:
                pass  # never run: the turn did not come
            except TimeoutError:
                self.solver_calls += 1
                return SolveResult(UNKNOWN, seconds=self.call_s)
            except ProtocolError:  # the workers restarted: the question is asked again
                await self.clock.sleep(_RESTART_PAUSE_S)
            await self.redis.set(claim, self._claim(review), xx=True, ex=self.claim_s)
        return None

    async def drain(self) -> None:
        """Wait for the reviews under way here to end (kept, or dropped)."""
        while tasks := [run.task for run in self.running.values() if run.task is not None]:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop the reviews under way here (their claims lapse or are given back)."""
        tasks = [run.task for run in self.running.values() if run.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _progress(racer: str, review: LineReview) -> RacerReview:
    return RacerReview(
        id=racer,
        state=ReviewState.PENDING,
        answered=review.calls,
        questions=questions_at_most(review),
    )
