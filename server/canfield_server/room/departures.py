"""Departures and the room's timers, sans I/O: who leaves when their last
connection goes (a spectator at once, a player after a grace time), whose
grace time ran out, when the room's next timer is due, and bots left with no
person to race. Like ``rules``, pure functions of a ``RoomState``.
"""

from __future__ import annotations

from canfield_protocol import Member, Phase, Role, RoomState

from canfield_server.room.rules import member, remove_member, set_connected

__all__ = ["depart", "away_too_long", "next_grace_end", "next_due", "bots_alone"]


def depart(state: RoomState, member_ids: set[str], away_until: int) -> RoomState:
    """Members with no connection left: a spectator's seat is freed (it costs
    nothing to take again), a player is away until ``away_until``."""
    for member_id in member_ids:
        me = member(state, member_id)
        if me is None or not me.connected:
            continue
        if me.role == Role.SPECTATOR:
            state = remove_member(state, member_id)
        else:
            state = set_connected(state, member_id, False, away_until)
    return state


def away_too_long(state: RoomState, now_ms: int) -> list[Member]:
    """Members whose grace time ran out: their seats are given up."""
    return [
        m
        for m in state.members
        if not m.connected and m.away_until is not None and m.away_until <= now_ms
    ]


def next_grace_end(state: RoomState) -> int | None:
    ends = [m.away_until for m in state.members if not m.connected and m.away_until]
    return min(ends) if ends else None


def next_due(state: RoomState) -> int | None:
    """When the room's next timer is due (ms): its time limit while racing, or
    the earliest grace time of a member away; None: it has no timer."""
    ends = state.ends_at if state.phase == Phase.RACING else None
    due = [at for at in (ends, next_grace_end(state)) if at is not None]
    return min(due) if due else None


def bots_alone(state: RoomState) -> list[Member]:
    """Bots follow the people: with no person left to race, they leave too."""
    if any(m.role == Role.PLAYER and not m.bot for m in state.members):
        return []
    return [m for m in state.members if m.bot]
