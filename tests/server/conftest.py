"""Server-test helpers: a tiny real ``websockets`` client, and a legal line of play.

Fixtures: ``connect`` (opens clients, closes them at teardown), ``fast_server``
(a real server with a short countdown), ``rooms`` (hubs in process, on the
in-memory adapters and a manual clock: ``inprocess.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import websockets
from canfield import Game, Move
from canfield_bench.processes import ServerProcess
from canfield_server.ops.config import Settings
from canfield_server.room.ports import SolverService

from tests.conftest import ServerFactory
from tests.server.client_api import TIMEOUT, ClientApi
from tests.server.inprocess import Rooms

__all__ = [
    "TIMEOUT",
    "AnyClient",
    "Client",
    "Connect",
    "MakeRooms",
    "LineOfPlay",
    "SameBoard",
    "line_of_play",
]

#: a short countdown keeps race tests quick
FAST_ENV = {"CANFIELD_COUNTDOWN_S": "0.3"}


class Client(ClientApi):
    """A real ``websockets`` client of a server process."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        super().__init__()
        self.ws = ws

    async def send(self, **msg: Any) -> None:
        await self.ws.send(json.dumps(msg))

    async def _next(self, deadline: float) -> dict[str, Any]:
        left = deadline - asyncio.get_running_loop().time()
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), max(left, 0.0)))
        self.log.append(msg)
        return msg

    async def close(self) -> None:
        await self.ws.close()


#: what tests do with a client: the real ``Client`` here, or ``inprocess.HubClient``
AnyClient = ClientApi


#: the ``connect`` fixture: ``await connect(url, address=None)`` -> a ``Client``
Connect = Callable[..., Awaitable[Client]]
#: the ``rooms`` fixture: ``await rooms(processes=1, **settings)`` -> ``Rooms``
MakeRooms = Callable[..., Awaitable[Rooms]]
#: the ``line_of_play`` fixture: ``line_of_play(deal, length)``
LineOfPlay = Callable[[str, int], list[str]]
#: the ``same_board`` fixture: ``same_board(server_board, game)``
SameBoard = Callable[[dict[str, Any], Game], bool]


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    """``await connect(url)`` -> a Client; every one is closed at teardown.
    ``connect(url, "127.0.0.2")``: from another loopback address (another client);
    ``connect(url, forwarded_for="198.51.100.7")``: a client the trusted proxy on
    this host (``serve``'s default) says it forwards."""
    opened: list[Client] = []

    async def open_client(
        url: str, address: str | None = None, forwarded_for: str | None = None
    ) -> Client:
        local: dict[str, Any] = {"local_addr": (address, 0)} if address else {}
        if forwarded_for:
            local["additional_headers"] = [("X-Forwarded-For", forwarded_for)]
        # max_queue=None: every frame is read off the socket as it comes, kept until the
        # test asks. With the library's 16, a client the test does not read for a while
        # (a racer waiting while another plays a long line) stopped reading at the 17th
        # leaderboard, so the server's pong behind them went unread and the keepalive
        # closed it (1011) once the wait passed 20 s on a loaded machine
        client = Client(
            await websockets.connect(url, open_timeout=TIMEOUT, max_queue=None, **local)
        )
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        await client.ws.close()


@pytest.fixture
async def rooms() -> AsyncIterator[MakeRooms]:
    """``await rooms(processes=1, **settings)`` -> ``inprocess.Rooms``: hubs over the
    in-memory adapters on a manual clock; closed at teardown."""
    made: list[Rooms] = []

    async def make(
        processes: int = 1,
        solver: SolverService | None = None,
        daily_deal: str = "AAAAACL",
        **settings: Any,
    ) -> Rooms:
        # every identity a test makes is new: the daily ranks them all unless a
        # test asks for the fair-play rule on new identities
        settings.setdefault("daily_ranked_after_days", 0)
        made.append(Rooms(Settings(**settings), processes, solver, daily_deal=daily_deal))
        return made[-1]

    yield make
    for world in made:
        await world.close()


@pytest.fixture
def fast_server(server_factory: ServerFactory) -> ServerProcess:
    """A real server process whose races start after a 0.3 s countdown."""
    return server_factory(env=FAST_ENV)


def line_of_play(deal: str, length: int) -> list[str]:
    """A deterministic legal line: the first legal move that reaches a new position."""
    game = Game.deal(deal)
    seen = {game.position_key()}
    line: list[str] = []
    while len(line) < length:
        for move in game.legal_moves():
            trial = game.copy()
            trial.push(move)
            if trial.position_key() not in seen:
                break
        else:
            move = Move.parse("S")
        game.push(move)
        seen.add(game.position_key())
        line.append(move.text())
    return line


@pytest.fixture(name="line_of_play")
def line_of_play_fixture() -> LineOfPlay:
    return line_of_play


def same_board(server_board: dict[str, Any], game: Game) -> bool:
    """A server board shows exactly the engine's view of ``game`` (hint aside)."""
    board = {k: v for k, v in server_board.items() if k != "useful_move"}
    return board == game.view()


@pytest.fixture(name="same_board")
def same_board_fixture() -> SameBoard:
    return same_board
