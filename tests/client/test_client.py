"""The Python client and bots against a real server process and real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable

import pytest
import uvicorn
from canfield import Game, Move
from canfield_bench.processes import ServerProcess, free_port
from canfield_client.bot import run_bot
from canfield_client.client import (
    RaceClient,
    ServerError,
    room_from_link,
    ws_url_from_link,
)
from canfield_protocol import Joined, Leaderboard, MoveMsg, RoomSettings
from canfield_server.ops.clock import ManualClock
from canfield_server.ops.config import Settings
from canfield_server.ops.ratelimit import RateLimiter, TokenBucket
from canfield_server.storage.embedded_redis import EmbeddedRedis
from canfield_server.transport.app import create_app

from tests.conftest import ServerFactory

#: a Draw 1 deal the normal bot wins (tests/client/test_strategy.py)
WINNABLE = "CF1-D1-AAAAAAN"
#: a Draw 3 deal the solver wins in milliseconds (tests/server/test_winnable.py)
EASY_DRAW3 = "CF1-D3-AAADKOH"


async def _until_row(
    client: RaceClient, player_id: str, test: Callable[..., bool], timeout: float = 10
) -> None:
    """Wait for a leaderboard at ``client`` whose row for ``player_id`` passes ``test``."""

    async def watch() -> None:
        board = client.leaderboard
        if board and any(r.id == player_id and test(r) for r in board.rows):
            return
        async for board in client.leaderboards():
            if any(r.id == player_id and test(r) for r in board.rows):
                return

    await asyncio.wait_for(watch(), timeout)


async def _race_a_bot(host: RaceClient, url: str, pace_s: float) -> asyncio.Task[int]:
    """Open a Draw 1 room, let a normal bot "Robo" join and start: the bot's task."""
    joined = await host.create("Host", RoomSettings(draw=1, deal=WINNABLE))
    bot = asyncio.create_task(
        run_bot(url, joined.room, "Robo", pace_s=pace_s, strength="normal", races=1)
    )
    await host.wait_room(lambda s: len(s.members) == 2)
    await host.start(force=True)
    await host.wait_started(10)
    return bot


async def _room_with_player(
    url: str, deal: str = "CF1-D3-AAAAACL"
) -> tuple[RaceClient, RaceClient]:
    host = await RaceClient(url).connect()
    joined = await host.create("Host", RoomSettings(draw=3, deal=deal))
    player = await RaceClient(url).connect()
    await player.join(joined.room, "Player")
    await host.start(force=True)
    await host.wait_started(10)
    await player.wait_started(10)
    return host, player


async def test_a_bot_races_a_whole_race_to_the_end(shared_server: ServerProcess) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        bot = await _race_a_bot(host, shared_server.ws_url, pace_s=0)
        await host.give_up()
        assert await asyncio.wait_for(bot, 120) == 1
        finished = await host.wait_finished(10)
    rows = {row.name: row for row in finished.standings}
    assert rows["Robo"].status == "won"
    assert rows["Robo"].on_foundations == 52
    assert rows["Robo"].rank == 1
    assert rows["Host"].status == "gave_up"
    # the bot's replay is a legal winning game on the deal
    robo_id = rows["Robo"].id
    game = Game.deal(finished.deal)
    for text in finished.replays[robo_id]:
        game.push(Move.parse(text))
    assert game.is_won


async def test_resume_tells_whether_an_unacknowledged_move_applied(
    shared_server: ServerProcess,
) -> None:
    host, player = await _room_with_player(shared_server.ws_url)
    try:
        player_id, token, room = player.player_id, player.token, player.room
        assert player_id is not None
        assert player.ws is not None
        # the move goes out; the socket dies before its ack is read
        await player.ws.send('{"type":"move","seq":1,"move":"S"}')
        await _until_row(host, player_id, lambda r: r.moves == 1)
        player.drop()
        async with RaceClient(shared_server.ws_url) as again:
            joined = await again.resume(room, token)
            assert joined.last_seq == 1  # applied: do not send it again
            ack = await again.move("S")
            assert ack.seq == 2 and not ack.duplicate
            assert ack.board.waste.count == 6  # two draws of three, not three
        await _until_row(host, player_id, lambda r: r.moves == 2)
    finally:
        await host.close()
        await player.close()


class _DropAfterSend(RaceClient):
    """Loses the connection right after sending its first move, before the ack."""

    dropped = False

    async def _send(self, message: object) -> None:
        await super()._send(message)  # type: ignore[arg-type]
        if isinstance(message, MoveMsg) and not self.dropped:
            self.dropped = True
            self.drop()


async def test_a_move_in_flight_over_a_dropped_socket_applies_exactly_once(
    shared_server: ServerProcess,
) -> None:
    host = await RaceClient(shared_server.ws_url).connect()
    joined = await host.create("Host", RoomSettings(draw=3, deal="CF1-D3-AAAAACL"))
    player = _DropAfterSend(shared_server.ws_url)
    await player.connect()
    try:
        await player.join(joined.room, "Player")
        await host.start(force=True)
        await player.wait_started(10)
        ack = await player.move("S")
        assert player.dropped
        assert ack.seq == 1
        assert ack.board.waste.count == 3
        ack = await player.move("S")
        assert ack.seq == 2 and ack.board.waste.count == 6
        await _until_row(host, player.player_id or "", lambda r: r.moves == 2)
    finally:
        await host.close()
        await player.close()


class _SlowResume(RaceClient):
    """Its revival connects again, then waits for ``gate`` before it resumes; it
    notes each move sent between the two."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.reconnected = asyncio.Event()
        self.gate = asyncio.Event()
        self.sent_before_resume: list[MoveMsg] = []

    async def _send(self, message: object) -> None:
        if isinstance(message, MoveMsg) and self.reconnected.is_set() and not self.gate.is_set():
            self.sent_before_resume.append(message)
        await super()._send(message)  # type: ignore[arg-type]

    async def resume(self, room: str | None = None, token: str | None = None) -> Joined:
        self.reconnected.set()
        await self.gate.wait()
        return await super().resume(room, token)


async def test_a_move_made_while_the_link_comes_back_waits_for_the_resume(
    shared_server: ServerProcess,
) -> None:
    """A move asked for while the client is resuming its seat goes out after the
    resume (sent on the new connection before it, the server would refuse it,
    and an ack read before the resume's answer was undone by it)."""
    host = await RaceClient(shared_server.ws_url).connect()
    joined = await host.create("Host", RoomSettings(draw=3, deal="CF1-D3-AAAAACL"))
    player = _SlowResume(shared_server.ws_url)
    await player.connect()
    try:
        await player.join(joined.room, "Player")
        await host.start(force=True)
        await player.wait_started(10)
        assert (await player.move("S")).seq == 1
        player.drop()
        await asyncio.wait_for(player.reconnected.wait(), 30)  # connected, not resumed
        move = asyncio.create_task(player.move("S"))
        for _ in range(50):  # every step that is ready runs: a move not held goes out
            await asyncio.sleep(0)
        assert player.sent_before_resume == []  # held for the resume
        player.gate.set()
        ack = await asyncio.wait_for(move, 30)
        assert (ack.seq, player.seq, ack.board.waste.count) == (2, 2, 6)
        await _until_row(host, player.player_id or "", lambda r: r.moves == 2)
    finally:
        await host.close()
        await player.close()


async def test_server_errors_carry_the_code(shared_server: ServerProcess) -> None:
    host, player = await _room_with_player(shared_server.ws_url)
    try:
        with pytest.raises(ServerError) as info:
            await player.move("R-4")
        assert info.value.code == "illegal-move"
        assert info.value.rule
        # a refused move uses no sequence number: the next one is accepted
        ack = await player.move("S")
        assert ack.seq == 1
        with pytest.raises(ServerError) as info:
            await RaceClient.join(host, "ZZZZZZ", "Again")
        assert info.value.code in ("already-in-room", "unknown-room")
    finally:
        await host.close()
        await player.close()


async def test_leaderboard_stream_shows_other_players(shared_server: ServerProcess) -> None:
    host, player = await _room_with_player(shared_server.ws_url)
    try:
        seen: list[Leaderboard] = []
        host.on_leaderboard.append(seen.append)
        await player.move("S")
        await _until_row(host, player.player_id or "", lambda r: r.moves == 1)
        assert seen, "the callback saw the leaderboard"
        assert {row.name for row in seen[-1].rows} == {"Host", "Player"}
    finally:
        await host.close()
        await player.close()


def test_share_links_and_codes() -> None:
    assert room_from_link("http://127.0.0.1:8000/r/abc234") == "ABC234"
    assert room_from_link(" ABC234 ") == "ABC234"
    assert ws_url_from_link("http://127.0.0.1:8000/r/ABC234") == "ws://127.0.0.1:8000/ws"
    assert ws_url_from_link("https://race.example/r/ABC234") == "wss://race.example/ws"
    assert ws_url_from_link("ABC234") is None


async def test_bot_command_joins_by_share_link_and_races(shared_server: ServerProcess) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        joined = await host.create("Host", RoomSettings(draw=1, deal=WINNABLE))
        command = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "canfield_cli",
            "bot",
            f"{shared_server.http_url}/r/{joined.room.lower()}",
            "--name",
            "Cli",
            "--pace",
            "0",
            "--races",
            "1",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            await host.wait_room(lambda s: any(m.name == "Cli" for m in s.members), 30)
            await host.start(force=True)
            await host.wait_started(10)
            await host.give_up()
            output, _ = await asyncio.wait_for(command.communicate(), 120)
        finally:
            if command.returncode is None:
                command.kill()
        finished = await host.wait_finished(10)
    assert command.returncode == 0, output.decode()
    assert "raced 1 race(s)" in output.decode()
    assert {row.name: row.status for row in finished.standings}["Cli"] == "won"


async def test_a_bot_resumes_when_its_server_restarts(server: ServerProcess) -> None:
    """SIGKILL the server mid-race: the bot and the host reconnect, resume, finish."""
    async with RaceClient(server.ws_url) as host:
        bot = await _race_a_bot(host, server.ws_url, pace_s=0.02)
        assert host.state is not None
        robo = next(m.id for m in host.state.members if m.name == "Robo")
        await _until_row(host, robo, lambda r: r.moves >= 5, timeout=30)
        await asyncio.to_thread(server.restart)
        await host.give_up()  # over a resumed connection
        assert await asyncio.wait_for(bot, 120) == 1
        finished = await host.wait_finished(30)
    rows = {row.name: row for row in finished.standings}
    assert rows["Robo"].status == "won"
    game = Game.deal(finished.deal)
    for text in finished.replays[robo]:
        game.push(Move.parse(text))
    assert game.is_won


@contextlib.asynccontextmanager
async def server_in_process(
    redis_server: EmbeddedRedis, limiter: Callable[[], RateLimiter]
) -> AsyncIterator[str]:
    """The server's app on uvicorn in this process (its WebSocket URL), with the
    rate limiter given: one on a manual clock moves only when the test says."""
    port = free_port()
    settings = Settings(
        host="127.0.0.1",
        port=port,
        redis_url=redis_server.url,
        countdown_s=0.3,
        pool_target=0,
        daily_ahead_every_s=0,
    )
    app = create_app(settings, rate_limiter=limiter)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, lifespan="on", log_level="warning", log_config=None
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    async with asyncio.timeout(30):
        while not server.started:  # uvicorn offers no event for "listening"
            await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True
        await task


async def test_a_rate_limited_move_fails_fast_and_uses_no_seq(
    redis_server: EmbeddedRedis,
) -> None:
    """On a manual clock for the connection's rate limit (2 a second, bursts of
    6): the burst runs out, the refused move takes no sequence number, and once
    the clock has given a token back the next move is the next in sequence."""
    clock = ManualClock()
    async with server_in_process(redis_server, lambda: TokenBucket(2.0, 6, clock)) as url:
        host, player = await _room_with_player(url)
        try:
            acked = 0
            with pytest.raises(ServerError) as info:
                for _ in range(10):  # the burst runs out within these
                    await asyncio.wait_for(player.move("S"), 5)  # an answer, not a timeout
                    acked += 1
            assert info.value.code == "rate-limited"
            assert player.seq == acked  # the refused move took no sequence number
            await clock.advance(0.5)  # one token back
            ack = await asyncio.wait_for(player.move("S"), 5)
            assert ack.seq == acked + 1 and not ack.duplicate
        finally:
            await host.close()
            await player.close()


async def test_a_host_adds_a_bot_that_races(shared_server: ServerProcess) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        await host.create("Host", RoomSettings(draw=1, deal=WINNABLE))
        await host.add_bot(strength="strong", pace_s=0)
        state = await host.wait_room(lambda s: len(s.members) == 2, 30)
        bot = next(m for m in state.members if m.name != "Host")
        bot_name = bot.name
        assert bot.bot and bot.ready  # on the wire: the lobby shows it ready
        await host.start()  # nobody to wait for: no force needed
        await host.wait_started(10)
        await host.give_up()
        finished = await host.wait_finished(120)
    rows = {row.name: row for row in finished.standings}
    assert rows[bot_name].status == "won"
    assert rows[bot_name].on_foundations == 52


async def test_leave_and_kick_free_seats_and_stop_resuming(shared_server: ServerProcess) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        joined = await host.create("Host", RoomSettings(draw=3, deal="CF1-D3-AAAAACL"))
        guest = await RaceClient(shared_server.ws_url).connect()
        leaver = await RaceClient(shared_server.ws_url).connect()
        guest_seat = await guest.join(joined.room, "Guest")
        await leaver.join(joined.room, "Leaver")
        await host.wait_room(lambda s: len(s.members) == 3)

        left = await leaver.leave()
        assert left.room == joined.room and leaver.token is None
        await host.wait_room(lambda s: {m.name for m in s.members} == {"Host", "Guest"})

        await host.kick(guest_seat.player_id)
        await asyncio.wait_for(guest.closed.wait(), 10)
        assert guest.kicked is not None and guest.token is None
        state = await host.wait_room(lambda s: len(s.members) == 1)
        assert [m.name for m in state.members] == ["Host"]

        async with RaceClient(shared_server.ws_url, resume_attempts=0) as ghost:
            with pytest.raises(ServerError) as refused:
                await ghost.resume(joined.room, guest_seat.token)
            assert refused.value.code == "bad-token"
        await leaver.close()


async def test_a_hint_in_a_practice_room_is_a_move_the_client_can_play(
    shared_server: ServerProcess,
) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        await host.create("Host", RoomSettings(draw=3, deal=EASY_DRAW3, practice=True))
        await host.start(force=True)
        await host.wait_started(10)
        hint = await host.hint()
        assert hint.move is not None
        Game.deal(EASY_DRAW3).push(Move.parse(hint.move))  # legal on the fresh deal
        ack = await host.move(hint.move)
        assert ack.seq == 1 and ack.move == hint.move


async def test_a_hint_in_a_race_is_not_allowed(shared_server: ServerProcess) -> None:
    async with RaceClient(shared_server.ws_url) as host:
        await host.create("Host", RoomSettings(draw=3, deal=EASY_DRAW3))
        await host.start(force=True)
        await host.wait_started(10)
        with pytest.raises(ServerError) as refused:
            await host.hint()
        assert refused.value.code == "not-allowed"
        assert (await host.move("S")).seq == 1  # nothing changed: the first seq is still free


async def test_a_request_refused_for_the_rate_goes_again_and_is_answered(
    server_factory: ServerFactory,
) -> None:
    """A request (not a move) refused for the message rate changed nothing: the
    client pauses and sends it again, so a burst is answered, late, not failed."""
    server = server_factory(env={"CANFIELD_RATE_PER_S": "4", "CANFIELD_RATE_BURST": "3"})
    async with RaceClient(server.ws_url) as client:
        pongs = [await client.ping(n) for n in range(10)]  # past the burst of 3
    assert [pong.t for pong in pongs] == list(range(10))
