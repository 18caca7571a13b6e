"""An arena's signals between processes, so a racer need not wait for a tick.

Each process ticks its arenas every ``arena_tick_s`` (``room.arena``), and a
racer's way from one heat to the next crossed three ticks, often on two
processes: their own to take them out of the heat they finished, the arena
lock holder's to form the next heat, their own again to seat them. On a busy
machine a tick runs late (it waits for a core, and for all its racers' work),
and those waits were most of the time from a finish to the next ``started``.

So two signals go over the room bus, on the arena's own channel
(``a:CODE``: no room code has a colon), to every process that follows the
arena:

- ``waited``: racers were put in the waiting; the lock's holder forms heats
  now (``HeatFormer.soon``) instead of at its next tick;
- ``formed``: a heat's racers were taken out of the waiting; each racer's
  process seats them now, while the heat's deal is still being found.

A signal only makes sooner what the ticks do anyway: one lost (the bus
reconnecting, a process that follows no arena page holding the lock) costs
a tick, never a racer. Without a bus (one process), a signal is handled here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import msgspec

from canfield_server.room.ports import RoomBus

__all__ = ["ArenaBus", "Formed", "Waited", "CHANNEL_PREFIX"]

log = logging.getLogger(__name__)

#: an arena's channel on the room bus is its code after this (room codes have none)
CHANNEL_PREFIX = "a:"


class Formed(msgspec.Struct, tag="formed"):
    """A heat's racers were taken out of the waiting: seat them."""

    heat: str
    racers: list[str]


class Waited(msgspec.Struct, tag="waited"):
    """Racers were put in the waiting: form heats."""


Signal = Formed | Waited
_decode = msgspec.json.Decoder(Signal).decode


class ArenaBus:
    """The arena signals of this process: its subscriptions (an arena a page here
    follows), what it sends, and what it hears (``on_formed``, ``on_waited``)."""

    def __init__(self, bus: RoomBus | None, on_formed: Callable[[str, Formed], None]) -> None:
        self.bus = bus
        self.on_formed = on_formed
        #: racers were put in the arena's waiting (its lock holder's former's ``soon``)
        self.on_waited: Callable[[str], None] = lambda code: None
        #: the arenas whose channel this process listens to
        self.heard: set[str] = set()

    async def listen(self, code: str) -> None:
        if code not in self.heard:
            self.heard.add(code)
            if self.bus is not None:
                await self.bus.subscribe(CHANNEL_PREFIX + code)

    async def stop_listening(self, code: str) -> None:
        if code in self.heard:
            self.heard.discard(code)
            if self.bus is not None:
                await self.bus.unsubscribe(CHANNEL_PREFIX + code)

    async def send(self, code: str, signal: Signal) -> None:
        """To every process following the arena (this one included)."""
        if self.bus is None:
            self._handle(code, signal)
            return
        await self.bus.publish(CHANNEL_PREFIX + code, msgspec.json.encode(signal))

    def on_event(self, channel: str, payload: bytes) -> None:
        """A signal from the bus (``channel``: ``a:CODE``)."""
        code = channel.removeprefix(CHANNEL_PREFIX)
        if code not in self.heard:
            return
        try:
            signal = _decode(payload)
        except msgspec.DecodeError:
            log.warning("arena %s: an unreadable signal: %r", code, payload[:80])
            return
        self._handle(code, signal)

    def _handle(self, code: str, signal: Signal) -> None:
        if isinstance(signal, Formed):
            self.on_formed(code, signal)
        else:
            self.on_waited(code)
