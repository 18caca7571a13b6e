"""Challenge links: one racer's run in a finished race, for others to race.

``challenge`` (a ``MakeChallenge``) from an identified connection picks a
racer of a finished race by its replay: the server keeps that racer's name,
result and replay under a random id (96 bits: a link nobody guesses) for
``challenge_days`` (less for a daily race's replay, kept only its own
retention; a room race's replay is kept anew so it outlives the link), and
answers with the link, ``/c/<id>``. Whoever opens it races that run as a
ghost on the same deal (``take``: ``GhostRaces.start``); each taker's
best result goes into the challenge's own standing (``record``), at most
``challenge_standing`` takers, which expires with it.

What a link shows before its race (``view``) is the racer's name and result,
the draw mode and the standing: never the deal, the replay or the moves, so
nobody reads the cards before racing them (``run``, the stored challenge
with its replay's id, goes only to the server's own race).

Making links is bounded: ``challenges_per_hour`` per identity and
``challenges_per_network_hour`` per network (``identifiers.address_prefix``),
counted in hourly windows shared by every process; past either the request
is refused (``rate-limited``) and nothing is made.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec
from canfield_protocol import (
    ChallengeMade,
    ChallengeRow,
    ChallengeView,
    Finished,
    MakeChallenge,
    MemberStatus,
    ProtocolError,
    RoomState,
    TakeChallenge,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.room import frames
from canfield_server.room.identity import REPLAY_ID, Identities
from canfield_server.room.ports import ChallengeStore, Peer, Taken

__all__ = [
    "CHALLENGE_ID",
    "PAGE",
    "Challenge",
    "Challenges",
    "new_challenge_id",
    "beats",
    "score",
]

log = logging.getLogger(__name__)

#: a challenge id: 16 URL-safe characters (``\Z``: no trailing newline)
CHALLENGE_ID = re.compile(r"[A-Za-z0-9_-]{16}\Z")
#: where a challenge's page lives
PAGE = "/c/"
HOUR_MS = 3_600_000
#: a score past every win: not winning ranks by cards home, then time
_NOT_WON = 1e12


def new_challenge_id() -> str:
    return secrets.token_urlsafe(12)


def score(won: bool, cards: int, time_ms: int) -> float:
    """A result's place in a standing, lower is better: a win by its time, then
    the most cards home, the sooner the better."""
    if won:
        return float(time_ms)
    return _NOT_WON + (52 - cards) * 1e9 + min(max(time_ms, 0), 999_999_999)


def beats(won: bool, cards: int, time_ms: int, challenge: Challenge) -> bool:
    """Did a result beat the challenge's? A win faster than theirs (or a win where
    they did not win), else more cards home than they had; giving up sooner than
    they did with as many cards home beats nothing."""
    if won:
        return not challenge.won or time_ms < challenge.time_ms
    return not challenge.won and cards > challenge.cards


class Challenge(msgspec.Struct, kw_only=True):
    """A challenge as stored: its racer's result and run (server side only)."""

    id: str
    #: the replay it was made from, and the racer's member id there
    replay: str
    player_id: str
    name: str
    status: MemberStatus
    cards: int
    time_ms: int
    moves: int
    draw: int
    created_at: int
    expires_at: int
    #: the public id of the identity that made it
    by: str

    @property
    def won(self) -> bool:
        return self.status == MemberStatus.WON


class _Taker(msgspec.Struct, kw_only=True):
    """A taker's row as stored in a standing."""

    name: str
    status: MemberStatus
    cards: int
    time_ms: int
    moves: int
    at: int


_challenge = msgspec.json.Decoder(Challenge)
_taker = msgspec.json.Decoder(_Taker)

#: ``Replays.find``: (HTTP status, the replay's JSON or an error body)
ReplayLoader = Callable[[str], Awaitable[tuple[int, bytes | dict[str, str]]]]
#: ``GhostRaces.start``: (peer, name, replay id, racer ids, challenge id) -> the race
GhostStart = Callable[[Peer, str, str, Sequence[str], str | None], Awaitable[object]]


class Challenges:
    """The ``challenge`` message, a link's view, its run, and its standing."""

    def __init__(
        self,
        store: ChallengeStore,
        identities: Identities,
        replays: ReplayLoader,
        ghost_race: GhostStart,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self.store = store
        self.identities = identities
        self.replays = replays
        self.ghost_race = ghost_race
        self.settings = settings
        self.clock = clock
        self.ttl_ms = settings.challenge_days * 86_400_000

    async def make(self, peer: Peer, msg: MakeChallenge) -> None:
        identity = self.identities.require(peer)
        if not REPLAY_ID.match(msg.replay):
            raise ProtocolError(E.NOT_ALLOWED, "no finished race has that replay id")
        status, body = await self.replays(msg.replay)
        if status != 200 or isinstance(body, dict):
            raise ProtocolError(
                E.NOT_ALLOWED,
                "no finished race to challenge with that replay (unknown, expired, or a"
                " daily race whose day is not over)",
            )
        replay: dict[str, Any] = json.loads(body)
        racer = next((p for p in replay.get("players") or [] if p["id"] == msg.player_id), None)
        if racer is None:
            raise ProtocolError(E.UNKNOWN_PLAYER, "no such racer in that race")
        times = racer.get("times_ms")
        if not isinstance(times, list) or len(times) != len(racer.get("moves_list") or []):
            raise ProtocolError(
                E.NOT_ALLOWED, "that race was kept without its action times: it cannot be raced"
            )
        ttl_ms = await self._lifetime(msg.replay, replay)
        if ttl_ms <= 0:
            raise ProtocolError(E.NOT_ALLOWED, "that race's replay is about to expire")
        await self._spend(peer, identity.id)
        now = self.clock.now_ms()
        challenge = Challenge(
            id=new_challenge_id(),
            replay=msg.replay,
            player_id=racer["id"],
            name=racer["name"],
            status=MemberStatus(racer["status"]),
            cards=int(racer.get("on_foundations", 0)),
            time_ms=int(racer.get("time_ms", 0)),
            moves=int(racer.get("moves", 0)),
            draw=int(replay.get("draw", 3)),
            created_at=now,
            expires_at=now + ttl_ms,
            by=identity.id,
        )
        await self.store.create(challenge.id, msgspec.json.encode(challenge), ttl_ms)
        event(log, "challenge.made", player=identity.id, challenge=challenge.id)
        reply = ChallengeMade(
            id=challenge.id, link=f"{PAGE}{challenge.id}", expires_at=challenge.expires_at
        )
        peer.send(frames.text(reply))

    async def _lifetime(self, replay_id: str, replay: dict[str, Any]) -> int:
        """How long (ms) a challenge of this replay may live: ``challenge_days``, its
        replay (which its race reads) kept at least as long. A room race's replay is
        kept anew (its full retention from now); a daily one lives its day's
        retention, and the challenge no longer."""
        if replay_id.startswith("r-"):
            store = self.identities.store
            raw = await store.load_replay(replay_id)
            if raw is not None:
                await store.save_replay(replay_id, raw)
            return min(self.ttl_ms, self.settings.history_retention_days * 86_400_000)
        day = datetime.date.fromisoformat(str(replay.get("date")))
        start = datetime.datetime.combine(day, datetime.time(), datetime.UTC)
        kept_until = int(start.timestamp() * 1000) + self.settings.daily_retention_days * 86_400_000
        return min(self.ttl_ms, kept_until - self.clock.now_ms())

    async def _spend(self, peer: Peer, identity_id: str) -> None:
        """One link from this identity and its network, within their hourly limits."""
        limits = [(f"id:{identity_id}", self.settings.challenges_per_hour)]
        network = self.identities.network(peer)
        if network and peer.ip not in self.identities.exempt:
            limits.append((f"net:{network}", self.settings.challenges_per_network_hour))
        for who, most in limits:
            if most > 0 and await self.store.spend(who, HOUR_MS) > most:
                kind = "identity" if who.startswith("id:") else "network"
                raise ProtocolError(
                    E.RATE_LIMITED,
                    f"at most {most} challenge links an hour from one {kind}; try again later",
                    params={"most": most, "per": kind},
                )

    async def take(self, peer: Peer, msg: TakeChallenge) -> None:
        """``take_challenge``: race the challenge's racer as a ghost on its deal, a
        ghost race marked with the challenge (its replay kept from the racer until
        the race is over); ``unknown-challenge`` when it is gone."""
        challenge = await self.run(msg.challenge)
        if challenge is None:
            raise ProtocolError(
                E.UNKNOWN_CHALLENGE, "no such challenge (unknown, or expired after its days)"
            )
        await self.ghost_race(peer, msg.name, challenge.replay, [challenge.player_id], challenge.id)

    async def finished(self, state: RoomState, finished: Finished) -> None:
        """A challenge race's results were written (once): each live racer's result
        into the challenge's standing, keyed by their identity (else their seat)."""
        if state.challenge is None:
            return
        ghosts = {m.id for m in state.members if m.ghost}
        owners = await self.identities.store.room_identities(state.room)
        for row in finished.standings:
            if row.id in ghosts:
                continue
            taker = owners.get(row.id) or f"seat:{state.room}:{row.id}"
            await self.record(
                state.challenge,
                taker,
                row.name,
                row.status,
                row.on_foundations,
                row.time_ms,
                row.moves,
            )

    async def run(self, challenge_id: str) -> Challenge | None:
        """The whole challenge, its deal and run included (for its race only)."""
        if not CHALLENGE_ID.match(challenge_id):
            return None
        found = await self.store.load(challenge_id)
        return None if found is None else _challenge.decode(found)

    async def view(self, challenge_id: str) -> ChallengeView | None:
        """What the link's page shows: no deal, no replay, no moves."""
        challenge = await self.run(challenge_id)
        if challenge is None:
            return None
        rows = [_taker.decode(raw) for raw in await self.store.standing(challenge_id)]
        standing: list[ChallengeRow] = []
        for i, row in enumerate(rows):
            at = score(row.status == MemberStatus.WON, row.cards, row.time_ms)
            ahead = standing[-1] if standing else None
            tied = ahead is not None and at == score(ahead.won, ahead.cards, ahead.time_ms)
            standing.append(
                ChallengeRow(
                    rank=ahead.rank if tied and ahead else i + 1,
                    name=row.name,
                    status=row.status,
                    won=row.status == MemberStatus.WON,
                    cards=row.cards,
                    time_ms=row.time_ms,
                    moves=row.moves,
                    at=row.at,
                    beat=beats(row.status == MemberStatus.WON, row.cards, row.time_ms, challenge),
                )
            )
        return ChallengeView(
            id=challenge.id,
            name=challenge.name,
            status=challenge.status,
            won=challenge.won,
            cards=challenge.cards,
            time_ms=challenge.time_ms,
            draw=challenge.draw,
            created_at=challenge.created_at,
            expires_at=challenge.expires_at,
            standing=standing,
        )

    async def record(
        self,
        challenge_id: str,
        taker: str,
        name: str,
        status: MemberStatus,
        cards: int,
        time_ms: int,
        moves: int,
    ) -> Taken:
        """A taker's finished race (``taker``: their identity's public id, else a
        member id): into the standing if it is their best and within its bounds."""
        row = _Taker(
            name=name,
            status=status,
            cards=cards,
            time_ms=time_ms,
            moves=moves,
            at=self.clock.now_ms(),
        )
        done = await self.store.record(
            challenge_id,
            taker,
            msgspec.json.encode(row),
            score(status == MemberStatus.WON, cards, time_ms),
            self.settings.challenge_standing,
        )
        event(log, "challenge.taken", challenge=challenge_id, player=taker, done=done.name)
        return done
