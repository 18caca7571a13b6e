"""A finished race's reviews (where each racer's win slipped away), on real parts:
a redis-server, solver worker processes, the review service of
``solving.reviews``; the rooms run in process (``inprocess.py``), so a
race is played without sockets and its replay read as ``/replay/<id>``
reads it.

What a user relies on: nothing is computed before the race is over for
everyone (a review reveals hidden cards; a daily one: before the day is
over); a finished race gets every racer's verdict, and a slip claimed is
true (the continuation replays to a win, the solver proves the position
after the slip lost); the cache makes a second request, or another
process's, free; two processes never review the same line twice; a busy
room does not hold another room's review up beyond one job at a time.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from canfield import Game
from canfield.review import stood_moves
from canfield.solver import NOT_WINNABLE, solve
from canfield_protocol import LineVerdict, MemberStatus, ReplayPlayer, ReplayReview, RoomReplay
from canfield_server.ops.config import Settings
from canfield_server.solving.deal_pool import DealPool
from canfield_server.solving.reviews import LineReviews
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.server.conftest import MakeRooms, line_of_play
from tests.server.inprocess import HubClient, Rooms
from tests.server.lines import EASY_DEAL, LOSING_LINE, LOSING_SLIP

#: a deal the solver does not decide in a fraction of a second (take-backs searched)
HARD_DEAL = "CF1-D3-AAAAAAH"
#: a deal that cannot be won (the solver proves it at once)
LOST_DEAL = "CF1-D3-AAAAAAE"
DAY_MS = 86_400_000
#: a slip's lesson gets 0.1 s of processor time, not the shipped 2: it searches for
#: a shorter line until its time is up, and 2 s of a core shared with a loaded
#: machine's every other process overran the job's wall-clock guard (3 s a second
#: of its own and 5 s: seen at a load of 14, "the lesson overran", no lesson). What
#: is checked of a lesson (a line no longer than the solver's first, and why) holds
#: for any time it is given (tests/shared/test_lesson.py searches longer)
SETTINGS = Settings(
    solver_workers=1,
    solver_niceness=0,
    pool_target=0,
    review_call_s=2.0,
    review_line_s=0.1,
    countdown_s=0.1,
)


class Service:
    """One server process's worth of the review service on the test's Redis."""

    def __init__(self, redis: Any, settings: Settings) -> None:
        self.pool = DealPool(redis, settings)
        self.reviews = LineReviews(redis, self.pool, settings)

    async def close(self) -> None:
        await self.reviews.close()
        await self.pool.close()


MakeService = Callable[..., Service]


@pytest.fixture
async def redis(redis_server: EmbeddedRedis) -> AsyncIterator[Any]:
    client = aioredis.from_url(redis_server.url)
    yield client
    await client.aclose()


@pytest.fixture
async def service(redis: Any) -> AsyncIterator[MakeService]:
    """``service(**settings)``: a review service (its own solver worker); closed at teardown."""
    made: list[Service] = []

    def make(**settings: Any) -> Service:
        made.append(Service(redis, Settings(**{**vars(SETTINGS), **settings})))
        return made[-1]

    yield make
    for one in made:
        await one.close()


async def review_keys(redis: Any) -> list[bytes]:
    return [key async for key in redis.scan_iter(match="cf:rv:*")]


async def reviews_of(world: Rooms, reviews: LineReviews, link: str) -> tuple[int, Any]:
    """``GET /replay/<id>/review`` as the endpoint answers it."""
    status, body = await reviews.of_replay(*await world.hubs[0].replay(link.rsplit("/", 1)[-1]))
    return status, body


async def play(client: HubClient, moves: list[str], seq: int = 0) -> int:
    for move in moves:
        seq += 1
        kind = {"U": "undo", "G": "give_up"}.get(move, "move")
        fields = {"move": move} if kind == "move" else {}
        ack = await client.request("ack", type=kind, seq=seq, **fields)
        assert ack["type"] == "ack", ack
    return seq


def by_racer(review: ReplayReview) -> dict[str, Any]:
    return {racer.id: racer for racer in review.racers}


def verdict_of(review: ReplayReview | dict[str, str], index: int = 0) -> LineVerdict:
    """The verdict of a review's racer (the first by default), which must be done."""
    assert isinstance(review, ReplayReview), review
    verdict = review.racers[index].verdict
    assert verdict is not None, review.racers[index]
    return verdict


def assert_true_slip(moves: list[str], slip: int, continuation: list[str]) -> None:
    """Winnable just before the slip (the continuation wins from there), proven
    lost just after it."""
    _, stood = stood_moves(EASY_DEAL, moves)
    before = [text for index, text in stood if index < slip]
    assert Game.replay(Game.replay(EASY_DEAL, before), continuation).is_won
    after = [text for index, text in stood if index <= slip]
    assert solve(Game.replay(EASY_DEAL, after), 10, takebacks=True).result == NOT_WINNABLE


async def test_a_race_is_reviewed_only_once_over_for_everyone_then_once_for_all(
    rooms: MakeRooms, service: MakeService, redis: Any
) -> None:
    world = await rooms(countdown_s=0.1)
    first, other = service(), service()
    ann = await world.open(0)
    room = (await ann.create("Ann", deal=EASY_DEAL))["room"]
    bob = await world.open(0)
    await bob.join(room, "Bob")
    await ann.send(type="start", force=True)
    await ann.expect("started")
    await bob.expect("started")

    # Ann wins on the solver's line while Bob still races: nothing is reviewed yet
    await play(ann, solve(EASY_DEAL, 10).moves)
    await bob.request("ack", type="move", seq=1, move=LOSING_LINE[0])
    assert not any(m["type"] == "finished" for m in ann.log + bob.log)
    assert first.reviews.solver_calls == 0 and await review_keys(redis) == []

    # Bob plays a line built to lose (with an undo), and gives up: the race is over
    await play(bob, ["U", *LOSING_LINE, "G"], seq=1)
    line = [LOSING_LINE[0], "U", *LOSING_LINE, "G"]
    finished = await ann.expect("finished")
    ids = {row["name"]: row["id"] for row in finished["standings"]}
    status, review = await reviews_of(world, first.reviews, finished["replay"])
    assert status == 200 and isinstance(review, ReplayReview)
    assert by_racer(review)[ids["Ann"]].verdict.outcome == "won"  # no question for a win
    pending = by_racer(review)[ids["Bob"]]
    assert pending.state == "pending" and pending.questions >= 2 and review.retry_ms

    await first.reviews.drain()
    status, review = await reviews_of(world, first.reviews, finished["replay"])
    verdict = by_racer(review)[ids["Bob"]].verdict
    assert review.retry_ms is None and verdict.outcome == "slip"
    assert verdict.winnable_at_start is True and verdict.winnable_at_end is False
    assert verdict.slip == LOSING_SLIP + 2 and verdict.slip_move == "S"  # the undo counts
    assert_true_slip(line, verdict.slip, verdict.continuation)
    # taught in one more job: a line no longer than the solver's first, and why
    assert first.reviews.lessons == 1 and verdict.why is not None
    assert verdict.why.kind in {"buried", "covered", "taken", "used", "filled", "early", "instead"}
    assert verdict.line_first is not None and len(verdict.continuation) <= verdict.line_first
    assert verdict.shortest is not None
    calls = first.reviews.solver_calls
    assert calls == verdict.solver_calls

    # asked again, here or in another process: the kept verdicts, no solver call
    for process in (first, other):
        status, again = await reviews_of(world, process.reviews, finished["replay"])
        assert again == review
    assert first.reviews.solver_calls == calls and other.reviews.solver_calls == 0
    assert len(await review_keys(redis)) == 2  # one per line, no claim left behind


async def test_two_processes_asked_at_once_review_a_line_once(
    service: MakeService, redis: Any
) -> None:
    one, two = service(), service()
    replay = room_replay("ROOM01", EASY_DEAL, [LOSING_LINE])
    first, second = await asyncio.gather(one.reviews.review(replay), two.reviews.review(replay))
    assert first.racers[0].state == second.racers[0].state == "pending"
    await asyncio.gather(one.reviews.drain(), two.reviews.drain())
    done = await two.reviews.review(replay)
    verdict = verdict_of(done)
    assert verdict.outcome == "slip" and verdict.slip == LOSING_SLIP
    assert one.reviews.solver_calls + two.reviews.solver_calls == verdict.solver_calls


async def test_a_busy_room_does_not_hold_up_another_rooms_review(service: MakeService) -> None:
    """Six racers of one room on a deal the solver cannot decide in time: their
    questions queue up; another room's review takes every other turn."""
    # the quiet room's slip is taught in a job cut short (what is timed here is
    # the turns, not the lesson: test_a_race_is_reviewed_only_once... waits for it)
    busy = service(review_call_s=0.2, review_line_s=0.1)
    order: list[str] = []
    run = busy.pool.scheduler.run

    async def recorded(owner: str, job: Callable[[], Awaitable[Any]], wait_s: float) -> Any:
        async def started() -> Any:
            order.append(owner)
            return await job()

        return await run(owner, started, wait_s)

    busy.pool.scheduler.run = recorded  # type: ignore[method-assign]
    crowd = [line_of_play(HARD_DEAL, n) for n in range(1, 7)]
    await busy.reviews.review(room_replay("CROWD1", HARD_DEAL, crowd))
    await busy.reviews.review(room_replay("QUIET1", EASY_DEAL, [LOSING_LINE]))
    await busy.reviews.drain()

    quiet = [i for i, owner in enumerate(order) if owner == "QUIET1"]
    assert len(quiet) >= 3 and order.count("CROWD1") == 6
    # between two of the quiet room's questions, at most one of the crowd's (one worker)
    assert all(b - a <= 2 for a, b in zip(quiet, quiet[1:], strict=False))
    assert quiet[-1] <= 2 * len(quiet) - 1  # however many questions the crowd had queued
    undecided = await busy.reviews.review(room_replay("CROWD1", HARD_DEAL, crowd))
    verdicts = [verdict_of(undecided, i) for i in range(len(crowd))]
    assert {v.outcome for v in verdicts} == {"undecided"}  # 0.2 s: too little
    assert all(v.winnable_at_start is None and not v.decided for v in verdicts)


async def test_a_question_kept_waiting_asks_again_until_its_turn(service: MakeService) -> None:
    """Each wait for a turn is short, the worker is held longer: the review is
    not lost, it asks again (bounded) and gets its verdict."""
    patient = service(review_wait_s=0.1, review_tries=200)
    holder = asyncio.ensure_future(patient.pool.decide("other", HARD_DEAL, [], 0.5, 10))
    await asyncio.sleep(0)
    replay = room_replay("ROOM02", EASY_DEAL, [LOSING_LINE[:10]])
    assert (await patient.reviews.review(replay)).racers[0].state == "pending"
    await patient.reviews.drain()
    await holder
    verdict = verdict_of(await patient.reviews.review(replay))
    assert verdict.outcome == "winnable" and verdict.winnable_at_end is True
    assert verdict.continuation is None and verdict.slip is None

    lost = room_replay("ROOM03", LOST_DEAL, [["S", "G"]])
    await patient.reviews.review(lost)
    await patient.reviews.drain()
    verdict = verdict_of(await patient.reviews.review(lost))
    assert verdict.outcome == "unwinnable" and verdict.winnable_at_start is False


async def test_an_unknown_replay_or_a_day_not_over_is_refused_and_starts_nothing(
    rooms: MakeRooms, service: MakeService, redis: Any
) -> None:
    # the day's deal: one the solver wins in milliseconds (the question's 2 s hold
    # on a busy machine too)
    world = await rooms(daily_deal=EASY_DEAL.rsplit("-", 1)[1])
    reviews = service().reviews
    for bad in ("r-AAAAAAAAAAAAAAAA", "nonsense", "d-2031-13-40-3-00000000"):
        status, body = await reviews.of_replay(*await world.hubs[0].replay(bad))
        assert status == 404 and isinstance(body, dict) and "error" in body

    ann = await world.open(0)
    assert (await ann.request("identity", type="identify"))["type"] == "identity"
    await ann.request("daily_started", type="daily", name="Ann", draw=3)
    await play(ann, ["S", "G"])
    link = (await ann.expect("daily_finished"))["replay"]
    status, body = await reviews_of(world, reviews, link)
    assert status == 403 and isinstance(body, dict) and "over" in body["error"]
    assert reviews.solver_calls == 0 and await review_keys(redis) == []

    await world.clock.advance(DAY_MS / 1000)  # tomorrow: the day is over
    status, review = await reviews_of(world, reviews, link)
    assert status == 200 and review.racers[0].state == "pending"
    await reviews.drain()
    status, review = await reviews_of(world, reviews, link)
    verdict = verdict_of(review)
    assert verdict.outcome == "winnable" and verdict.moves == 2  # a stock turn, then gave up
    assert json.loads(await redis.get((await review_keys(redis))[0]))["outcome"] == "winnable"


def room_replay(room: str, deal: str, lines: list[list[str]]) -> RoomReplay:
    """A room race's replay as the server keeps it, one racer per line."""
    players = [
        ReplayPlayer(
            rank=i + 1,
            id=f"p{i}",
            name=f"P{i}",
            score=0,
            on_foundations=1,
            moves=len(line),
            status=MemberStatus.GAVE_UP,
            time_ms=1000,
            moves_list=line,
        )
        for i, line in enumerate(lines)
    ]
    return RoomReplay(id=f"r-{room}", room=room, deal=deal, draw=3, par=None, at=0, players=players)
