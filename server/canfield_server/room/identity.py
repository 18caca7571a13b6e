"""Player identities and their history: who a browser is, and what it raced.

An identity is a random token the server issues (``identify`` with no
token); the browser keeps it and sends it on every connection. The server
stores only its hash, with a short public id, the daily streak and the
network it was issued to. A token it never issued (well-formed or not) is
refused: identities cannot be forged or guessed into existence.

New identities cost something: each network (``identifiers.address_prefix``) has
a budget of them (``IdentityStore.claim_identity``, a token bucket shared
by every process); past it ``identify`` with no token is refused with
``too-many-identities`` and when the next one is back, and nothing is
stored. A new identity lives ``new_identity_ttl_s`` unless it finishes a
race; then it is kept as long as its history.

Every finished race of an identified player (a room race, or their daily
race) becomes one history entry, kept ``history_retention_days``; a room
race's replay is kept as long, under a random id anyone with the link can
open (``/replay/<id>``).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

import msgspec
from canfield import DealCode
from canfield_protocol import (
    DeleteHistory,
    DrawStats,
    Finished,
    HistoryDeleted,
    HistoryEntry,
    HistoryMsg,
    HistoryQuery,
    Identify,
    IdentityMsg,
    MemberStatus,
    ProtocolError,
    ReplayPlayer,
    RoomReplay,
    RoomState,
    encode,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock, day_before, today
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.room import frames, identifiers
from canfield_server.room.ports import IdentitiesRefused, IdentityBudget, IdentityStore, Peer

__all__ = ["Identity", "Identities", "draw_stats", "new_replay_id", "REPLAY_ID"]

log = logging.getLogger(__name__)

#: an identity token as the server issues them: 144 random bits, URL-safe base64
_TOKEN = re.compile(r"[A-Za-z0-9_-]{24}\Z")
#: a replay id: ``r-`` and 16 URL-safe characters (a room race), or
#: ``d-<date>-<draw>-<player>`` (a daily race)
#: (ASCII only, and ``\Z``: ``$`` would let a trailing newline through)
REPLAY_ID = re.compile(r"(r-[A-Za-z0-9_-]{16}|d-[0-9]{4}-[0-9]{2}-[0-9]{2}-[13]-[0-9a-f]{8})\Z")

_entry_decoder = msgspec.json.Decoder(HistoryEntry)


class Identity(NamedTuple):
    """An identified connection: its token's hash and its public id."""

    token_hash: str
    id: str


def new_replay_id() -> str:
    return "r-" + secrets.token_urlsafe(12)


def draw_stats(entries: Iterable[HistoryEntry]) -> list[DrawStats]:
    """Races, wins, win rate, best winning time and average cards home, per draw mode."""
    by_draw: dict[int, list[HistoryEntry]] = {}
    for entry in entries:
        by_draw.setdefault(entry.draw, []).append(entry)
    out = []
    for draw in sorted(by_draw):
        races = by_draw[draw]
        wins = [e for e in races if e.won]
        out.append(
            DrawStats(
                draw=draw,
                races=len(races),
                wins=len(wins),
                win_rate=round(len(wins) / len(races), 4),
                best_time_ms=min((e.time_ms for e in wins), default=None),
                avg_cards=round(sum(e.cards for e in races) / len(races), 2),
            )
        )
    return out


class Identities:
    """The ``identify``, ``history`` and ``delete_history`` messages, and the
    history entries of finished room races."""

    def __init__(self, store: IdentityStore, settings: Settings, clock: Clock) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        #: the identity each connection gave (forgotten when it closes)
        self.by_peer: dict[Peer, Identity] = {}
        self.max_races = settings.history_max_races
        self.retention_ms = settings.history_retention_days * 86_400_000
        self.budget = IdentityBudget(settings.identity_burst, settings.identity_per_hour)
        #: this host's own addresses (its bots, local tools): not budgeted
        self.exempt = settings.own_addresses()

    def of(self, peer: Peer) -> Identity | None:
        return self.by_peer.get(peer)

    def require(self, peer: Peer) -> Identity:
        found = self.by_peer.get(peer)
        if found is None:
            raise ProtocolError(E.NO_IDENTITY, "send identify first (with your identity token)")
        return found

    def detach(self, peer: Peer) -> None:
        self.by_peer.pop(peer, None)

    async def lookup(self, token: str) -> tuple[Identity, int, str]:
        """A token the server issued -> (identity, streak, last daily date), else
        ``bad-identity``."""
        if not _TOKEN.match(token):
            raise ProtocolError(E.BAD_IDENTITY, "that is not an identity token")
        token_hash = identifiers.token_hash(token)
        found = await self.store.identity(token_hash)
        if found is None:
            raise ProtocolError(
                E.BAD_IDENTITY, "unknown identity token (expired or never issued); identify anew"
            )
        public_id, streak, last = found
        return Identity(token_hash, public_id), streak, last

    def network(self, peer: Peer) -> str | None:
        """The network ``peer``'s address counts in for identities (None: no address)."""
        return identifiers.address_prefix(
            peer.ip, self.settings.identity_v4_bits, self.settings.identity_v6_bits
        )

    async def identify(self, peer: Peer, msg: Identify) -> None:
        store = self.store
        if msg.token is None:
            network = self.network(peer)
            if network and self.budget.burst > 0 and peer.ip not in self.exempt:
                self._refuse(network, await store.claim_identity(network, self.budget))
            token, public_id = identifiers.new_token(), secrets.token_hex(4)
            identity = Identity(identifiers.token_hash(token), public_id)
            await store.new_identity(identity.token_hash, public_id, network or "")
            self.by_peer[peer] = identity
            event(log, "identity.issued", player=public_id, network=network)
            peer.send(frames.text(IdentityMsg(id=public_id, token=token, new=True)))
            return
        identity, streak, last = await self.lookup(msg.token)
        self.by_peer[peer] = identity
        peer.send(frames.text(IdentityMsg(id=identity.id, streak=self.live_streak(streak, last))))

    def _refuse(self, network: str, refused: IdentitiesRefused | None) -> None:
        """The network's budget of new identities is spent: why, and when to try again."""
        if refused is None:
            return
        now = self.clock.now_ms()
        retry_s = None if refused.retry_at < 0 else max(1, -(-(refused.retry_at - now) // 1000))
        event(log, "identity.refused", logging.DEBUG, network=network, retry_s=retry_s)
        when = "" if retry_s is None else f"; try again in {retry_s} s"
        raise ProtocolError(
            E.TOO_MANY_IDENTITIES,
            f"too many new identities from this network ({refused.burst} at once, then"
            f" {refused.per_hour:g} an hour); use the identity you have{when}",
            params={
                "burst": refused.burst,
                "per_hour": refused.per_hour,
                "retry_at": refused.retry_at if refused.retry_at >= 0 else None,
                "retry_s": retry_s,
            },
        )

    def live_streak(self, streak: int, last: str) -> int:
        """A streak still counts while its last day is today or yesterday."""
        if not last:
            return 0
        now = today(self.settings.daily_date, self.clock.now_ms())
        return streak if last in (now, day_before(now)) else 0

    # ------------------------------------------------------------ history

    async def entries(self, identity: Identity) -> list[HistoryEntry]:
        """Every kept race, newest first; today's daily deal and replay hidden."""
        raw = await self.store.races(identity.token_hash, self.max_races)
        oldest = self.clock.now_ms() - self.retention_ms
        day = today(self.settings.daily_date, self.clock.now_ms())
        out = []
        for item in raw:
            entry = _entry_decoder.decode(item)
            if entry.at < oldest:
                continue
            if entry.kind == "daily" and (entry.date or "") >= day:
                entry = msgspec.structs.replace(entry, deal=None, replay=None)
            out.append(entry)
        return out

    async def history(self, peer: Peer, msg: HistoryQuery) -> None:
        identity = self.require(peer)
        entries = await self.entries(identity)
        found = await self.store.identity(identity.token_hash)
        streak = self.live_streak(found[1], found[2]) if found else 0
        reply = HistoryMsg(
            id=identity.id, races=entries[: msg.limit], stats=draw_stats(entries), streak=streak
        )
        peer.send(frames.text(reply))

    async def export(self, token: str) -> HistoryMsg:
        """The whole history of a token (the JSON download)."""
        identity, streak, last = await self.lookup(token)
        entries = await self.entries(identity)
        return HistoryMsg(
            id=identity.id,
            races=entries,
            stats=draw_stats(entries),
            streak=self.live_streak(streak, last),
        )

    async def delete_history(self, peer: Peer, msg: DeleteHistory) -> None:
        identity = self.require(peer)
        removed = await self.store.delete_races(identity.token_hash)
        event(log, "history.deleted", player=identity.id, races=removed)
        peer.send(frames.text(HistoryDeleted(removed=removed)))

    async def record(self, identity: Identity, entry: HistoryEntry) -> None:
        await self.store.add_races([(identity.token_hash, encode(entry))])

    # ------------------------------------------------------------ rooms

    async def link(self, peer: Peer) -> None:
        """A connection with an identity took a seat: its races there are its own."""
        identity = self.by_peer.get(peer)
        if identity is None or not peer.room or not peer.member_id:
            return
        # the seat's network, for the fair-play rules (none for in-process peers)
        network = self.network(peer) or ""
        await self.store.link_member(peer.room, peer.member_id, identity.token_hash, network)

    async def room_finished(self, state: RoomState, finished: Finished) -> None:
        """A room race's results were written (once): keep its replay, and one
        history entry per identified racer (a challenge race's linking its challenge)."""
        code = state.room
        challenge = f"/c/{state.challenge}" if state.challenge else None
        try:
            owners = await self.store.room_identities(code)
            replay_id = (finished.replay or new_replay_id()).rsplit("/", 1)[-1]
            at = self.clock.now_ms()
            try:
                draw = DealCode.parse(finished.deal).draw if finished.deal else 3
            except ValueError:
                draw = 3
            times = finished.replay_times or {}
            body = RoomReplay(
                id=replay_id,
                room=code,
                deal=finished.deal,
                draw=draw,
                par=finished.par,
                at=at,
                players=[
                    ReplayPlayer(
                        **msgspec.structs.asdict(row),
                        moves_list=finished.replays.get(row.id, []),
                        times_ms=times.get(row.id),
                    )
                    for row in finished.standings
                ],
            )
            await self.store.save_replay(replay_id, encode(body))
            entries = []
            places = Counter(row.rank for row in finished.standings)
            for row in finished.standings:
                token_hash = owners.get(row.id)
                if token_hash is None:
                    continue
                entry = HistoryEntry(
                    kind="room",
                    at=at,
                    draw=draw,
                    deal=finished.deal,
                    room=code,
                    place=row.rank,
                    players=len(finished.standings),
                    tied=places[row.rank] > 1,
                    status=row.status,
                    cards=row.on_foundations,
                    time_ms=row.time_ms,
                    moves=row.moves,
                    won=row.status == MemberStatus.WON,
                    replay=f"/replay/{replay_id}",
                    challenge=challenge,
                )
                entries.append((token_hash, encode(entry)))
            if entries:
                await self.store.add_races(entries)
        except Exception as exc:  # noqa: BLE001 - history is never worth a race's end
            event(
                log,
                "history.not_recorded",
                logging.WARNING,
                exc_info=exc,
                room=code,
                error=str(exc),
            )
