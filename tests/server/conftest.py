"""Server-test helpers: a tiny real ``websockets`` client, and a legal line of play.

Fixtures: ``connect`` (opens clients, closes them at teardown), ``fast_server``
(a real server with a short countdown), ``rooms`` (hubs in process, on the
in-memory adapters and a manual clock: ``inprocess.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import pytest
import websockets
from canfield import Game, Move
from canfield_client.processes import ServerProcess
from canfield_server.ops.config import Settings

from tests.conftest import ServerFactory
from tests.server.inprocess import Rooms

__all__ = ["AnyClient", "Client", "Connect", "MakeRooms", "LineOfPlay", "SameBoard", "line_of_play"]

#: a short countdown keeps race tests quick
FAST_ENV = {"CANFIELD_COUNTDOWN_S": "0.3"}

TIMEOUT = 10.0


class Client:
    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.log: list[dict[str, Any]] = []
        self.joined: dict[str, Any] = {}

    async def send(self, **msg: Any) -> None:
        await self.ws.send(json.dumps(msg))

    async def expect(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] = lambda m: True,
        timeout: float = TIMEOUT,
    ) -> dict[str, Any]:
        """The next message of type ``kind`` (matching ``where``); others are logged."""
        async with asyncio.timeout(timeout):
            while True:
                msg = json.loads(await self.ws.recv())
                self.log.append(msg)
                if msg["type"] == kind and where(msg):
                    return msg

    async def request(self, kind: str, **msg: Any) -> dict[str, Any]:
        """Send and await the reply: ``kind`` or an error, whichever comes first."""
        await self.send(**msg)
        async with asyncio.timeout(TIMEOUT):
            while True:
                reply = json.loads(await self.ws.recv())
                self.log.append(reply)
                if reply["type"] in (kind, "error"):
                    return reply

    async def create(self, name: str, **settings: Any) -> dict[str, Any]:
        self.joined = await self.request("joined", type="create", name=name, settings=settings)
        return self.joined

    async def join(self, room: str, name: str, role: str = "player") -> dict[str, Any]:
        self.joined = await self.request("joined", type="join", room=room, name=name, role=role)
        return self.joined

    async def resume(self, room: str, token: str) -> dict[str, Any]:
        self.joined = await self.request("joined", type="resume", room=room, token=token)
        return self.joined

    async def close(self) -> None:
        await self.ws.close()


class AnyClient(Protocol):
    """What tests do with a client: the real ``Client`` here, or ``inprocess.HubClient``."""

    log: list[dict[str, Any]]
    joined: dict[str, Any]

    async def send(self, **msg: Any) -> None: ...

    async def expect(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] = ...,
        timeout: float = ...,
    ) -> dict[str, Any]: ...

    async def request(self, kind: str, **msg: Any) -> dict[str, Any]: ...

    async def create(self, name: str, **settings: Any) -> dict[str, Any]: ...

    async def join(self, room: str, name: str, role: str = ...) -> dict[str, Any]: ...

    async def resume(self, room: str, token: str) -> dict[str, Any]: ...

    async def close(self) -> None: ...


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
    ``connect(url, "127.0.0.2")``: from another loopback address (another client)."""
    opened: list[Client] = []

    async def open_client(url: str, address: str | None = None) -> Client:
        local: dict[str, Any] = {"local_addr": (address, 0)} if address else {}
        client = Client(await websockets.connect(url, open_timeout=TIMEOUT, **local))
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

    async def make(processes: int = 1, **settings: Any) -> Rooms:
        made.append(Rooms(Settings(**settings), processes))
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
