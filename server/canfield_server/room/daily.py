"""The daily race: one deal per UTC day and draw mode, played once, alone, against the clock.

Every player on the server (every replica on the same Redis) gets the
same solver-proven deal (``DailyDeals``: chosen from a secret and the
date, so nobody can work it out before the day is over). A player - an
identity - plays it once: ``daily`` starts the clock, board actions are
checked by the engine and stored in one round trip each (the seq
compare-and-set, as in a room), and the standing of everyone who played
it today is a sorted set ranked by the rooms' rule
(``leaderboard.rank_key``). ``daily`` again the same day resumes an
unfinished attempt and is refused once it is over (``daily-played``).
The deal code and the replays are shown only once the day is over; moves
after it are refused. ``DailyRaces`` reads the standing and the replays as
its base, ``DailyStandings`` (``daily_standing.py``), does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from canfield_protocol import (
    Daily,
    DailyFinished,
    DailyStarted,
    HistoryEntry,
    MemberStatus,
    ProtocolError,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock, day_before, today
from canfield_server.ops.config import Settings
from canfield_server.room import frames, rules
from canfield_server.room.assess import Assessments, DailyResult
from canfield_server.room.daily_standing import (
    HELD_OFFSET,
    DailyStandings,
    replay_id,
    standing_score,
)
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.leaderboard import wire_row
from canfield_server.room.numbered import BoardAction, numbered_action
from canfield_server.room.ports import (
    Behind,
    DailyDeals,
    DailyMove,
    DailyStore,
    NoAttempt,
    Peer,
    Stored,
    StoredRow,
)
from canfield_server.room.race import PlayerRace
from canfield_server.room.review import Reviews

__all__ = ["DailyRaces"]


class _Play:
    """A connection's daily race here: the stored attempt, cached."""

    __slots__ = (
        "date",
        "draw",
        "identity",
        "name",
        "deal",
        "started_at",
        "race",
        "lock",
        "held",
        "network",
    )

    def __init__(
        self, date: str, draw: int, identity: Identity, name: str, deal: str, started_at: int
    ) -> None:
        self.date, self.draw, self.identity, self.name = date, draw, identity, name
        self.deal, self.started_at = deal, started_at
        self.race: PlayerRace | None = None
        self.lock = asyncio.Lock()
        #: why this attempt is shown unranked ("": ranked; ``DailyStore.hold``)
        self.held = ""
        #: the network it was started from (None: none, or this host's own)
        self.network: str | None = None

    def score(self, row: StoredRow) -> float:
        """The standing score: an unranked attempt's sorts after every ranked one."""
        return standing_score(row) + (HELD_OFFSET if self.held else 0)


class DailyRaces(DailyStandings):
    """The daily race played: ``daily`` starts or resumes a player's attempt, board
    actions move it, a win or a give-up ranks it (its standing and replays are
    read as ``DailyStandings`` reads them)."""

    def __init__(
        self,
        store: DailyStore,
        deals: DailyDeals,
        identities: Identities,
        settings: Settings,
        clock: Clock,
        *,
        reviews: Reviews | None = None,
        assessments: Assessments | None = None,
    ) -> None:
        super().__init__(store, deals, identities, settings, clock, reviews=reviews)
        #: each finished daily result's integrity signals, computed off the move path
        self.assessments = assessments
        #: the daily race each connection plays (forgotten when it closes)
        self.playing: dict[Peer, _Play] = {}

    def owns(self, peer: Peer) -> bool:
        return peer.room is None and peer in self.playing

    def detach(self, peer: Peer) -> None:
        self.playing.pop(peer, None)

    # ------------------------------------------------------------ start

    async def start(self, peer: Peer, msg: Daily) -> None:
        store, deals = self._parts()
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")
        identity = self.identities.require(peer)
        name = rules.clean_name(msg.name)
        date, draw = self.today(), msg.draw
        attempt = await store.attempt(date, draw, identity.id)
        if attempt is not None and attempt.done:
            raise ProtocolError(
                E.DAILY_PLAYED,
                f"you played the daily race of {date} (draw {draw}) already; come back tomorrow",
                params={"date": date, "draw": draw},
            )
        deal = await deals.deal(date, draw)
        now = self.clock.now_ms()
        fresh = PlayerRace.fresh(deal)
        row = fresh.row(identity.id, name)
        # fair play: the first identity of a network each day keeps its rank; a
        # later one plays unranked (peers without an address, and this host's
        # own, are no network)
        exempt = peer.ip in self.identities.exempt
        network = None if exempt else self.identities.network(peer)
        held = await store.hold(date, draw, identity.id, network or "", await self._new(identity))
        play = _Play(date, draw, identity, name, deal, 0)
        play.held, play.network = held, network
        created, started_at = await store.claim(
            date, draw, identity.id, name, now, row, play.score(row)
        )
        play.started_at = started_at
        streak = 0
        identity_store = self.identities.store
        if identity_store is not None:
            streak = await identity_store.note_daily(identity.token_hash, date, day_before(date))
        if created:
            play.race = fresh
        else:
            async with play.lock:
                loaded = await self._load(store, play)
            if loaded.done:  # finished on another connection meanwhile
                raise ProtocolError(E.DAILY_PLAYED, f"you played the daily race of {date} already")
        self.playing[peer] = play
        assert play.race is not None
        race = play.race
        peer.send(
            frames.text(
                DailyStarted(
                    date=date,
                    draw=draw,
                    started_at=started_at,
                    board=race.board(),
                    last_seq=race.seq,
                    resumed=not created,
                    streak=streak,
                    server_time=self.clock.now_ms(),
                )
            )
        )

    async def _new(self, identity: Identity) -> str:
        """``new-identity`` for an identity too young for the ranked standing
        (``Settings.daily_ranked_after_days``), else ""."""
        days = self.settings.daily_ranked_after_days
        store = self.identities.store
        if days <= 0 or store is None:
            return ""
        created = await store.identity_created(identity.token_hash)
        if created is None or self.clock.now_ms() - created >= days * 86_400_000:
            return ""
        return "new-identity"

    async def _load(self, store: DailyStore, play: _Play) -> PlayerRace:
        attempt = await store.attempt(play.date, play.draw, play.identity.id)
        if attempt is None:
            raise ProtocolError(E.WRONG_PHASE, "no daily race of yours is on")
        if attempt.snapshot is None:
            race = PlayerRace.fresh(play.deal)
        else:
            race = PlayerRace.from_snapshot(attempt.snapshot, play.deal, attempt.log)
        play.race = race
        return race

    # ------------------------------------------------------------ board actions

    async def act(self, peer: Peer, msg: BoardAction) -> None:
        store, _ = self._parts()
        play = self.playing[peer]
        received = self.clock.now_ms()  # the action's time: before waiting for the board
        if today(self.settings.daily_date, received) != play.date:
            raise ProtocolError(E.WRONG_PHASE, f"the daily race of {play.date} is over")
        async with play.lock:
            board = _DailyBoard(self, store, play)
            ack = await numbered_action(board, msg, received - play.started_at)
            peer.send(frames.text(ack))
            if board.done_row is not None:  # this action won or gave up
                await self._finished(peer, store, play, board.done_row)

    async def _finished(self, peer: Peer, store: DailyStore, play: _Play, row: StoredRow) -> None:
        """Won or given up: the row ranked now, and one history entry."""
        players, _, mine = await store.standing(play.date, play.draw, play.identity.id, 0)
        rank = mine[0] if mine and not play.held else 0  # unranked: no place
        wire = wire_row(row, rank)
        link = f"/replay/{replay_id(play.date, play.draw, play.identity.id)}"
        identity_store = self.identities.store
        streak = 0
        if identity_store is not None:
            found = await identity_store.identity(play.identity.token_hash)
            streak = self.identities.live_streak(found[1], found[2]) if found else 0
            entry = HistoryEntry(
                kind="daily",
                at=self.clock.now_ms(),
                draw=play.draw,
                deal=play.deal,
                date=play.date,
                place=rank,
                players=players,
                status=row.status,
                cards=row.on_foundations,
                time_ms=row.time_ms,
                moves=row.moves,
                won=row.status == MemberStatus.WON,
                replay=link,
            )
            await self.identities.record(play.identity, entry)
        peer.send(
            frames.text(
                DailyFinished(
                    date=play.date,
                    draw=play.draw,
                    row=wire,
                    players=players,
                    replay=link,
                    streak=streak,
                )
            )
        )
        if self.assessments is not None:
            date, draw, player = play.date, play.draw, play.identity.id

            async def read_log() -> list[str]:
                attempt = await store.attempt(date, draw, player)
                return attempt.log if attempt is not None else []

            async def read_first(network: str) -> str | None:
                return await store.network_first(date, draw, network)

            self.assessments.daily_finished(
                DailyResult(date, draw, play.deal, player, play.identity.token_hash, play.name),
                play.network,
                read_log,
                read_first,
            )


class _DailyBoard:
    """A player's board in the daily race (``numbered.BoardStorage``): confirmed here in
    the connection's play, stored with its standing score."""

    __slots__ = ("races", "daily", "play", "row", "done", "done_row")

    def __init__(self, races: DailyRaces, store: DailyStore, play: _Play) -> None:
        self.races, self.daily, self.play = races, store, play
        self.row: StoredRow | None = None
        self.done = False
        #: the row of an action that won or gave up, once stored
        self.done_row: StoredRow | None = None

    def confirmed(self) -> PlayerRace | None:
        return self.play.race

    async def load(self) -> PlayerRace:
        return await self.races._load(self.daily, self.play)

    async def logged(self, seq: int) -> str:
        play = self.play
        attempt = await self.daily.attempt(play.date, play.draw, play.identity.id)
        log = attempt.log if attempt else []
        return log[seq - 1] if seq - 1 < len(log) else ""

    def save(
        self, race: PlayerRace, base_seq: int, entry: str
    ) -> Awaitable[Stored | Behind | NoAttempt]:
        play = self.play
        self.row, self.done = race.row(play.identity.id, play.name), race.done
        return self.daily.apply(
            DailyMove(
                date=play.date,
                draw=play.draw,
                player=play.identity.id,
                base_seq=base_seq,
                entry=entry,
                snapshot=race.snapshot(),
                row=self.row,
                score=play.score(self.row),
                done=race.done,
            )
        )

    def saved(self, applied: Stored | Behind | NoAttempt) -> bool:
        if isinstance(applied, NoAttempt):
            raise ProtocolError(E.WRONG_PHASE, "no daily race of yours is on")
        if isinstance(applied, Stored) and self.done:
            self.done_row = self.row
        return isinstance(applied, Stored)

    def trust(self, race: PlayerRace | None) -> None:
        self.play.race = race
