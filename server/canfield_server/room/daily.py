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
after it are refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import msgspec
from canfield_protocol import (
    Daily,
    DailyFinished,
    DailyReplay,
    DailyStanding,
    DailyStandingQuery,
    DailyStarted,
    HistoryEntry,
    MemberStatus,
    ProtocolError,
    ReplayPlayer,
    Row,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock, day_before, is_date, today
from canfield_server.ops.config import Settings
from canfield_server.room import frames, rules
from canfield_server.room.assess import Assessments, DailyResult
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.leaderboard import ranked, wire_row
from canfield_server.room.numbered import BoardAction, numbered_action
from canfield_server.room.ports import (
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    Behind,
    DailyDeals,
    DailyMove,
    DailyStore,
    NoAttempt,
    Peer,
    Stored,
    StoredRow,
)
from canfield_server.room.race import PlayerRace, replay
from canfield_server.room.review import Reviews
from canfield_server.room.stamps import split_log

__all__ = ["DailyRaces", "standing_score", "replay_id"]


#: times in the score are capped here (115 days: far past any day's race)
_MS_CAP = 10**10 - 1
#: added to the score of an attempt shown unranked: below every ranked one (the
#: sum stays an exact integer below 2**53)
HELD_OFFSET = float(10**12)


def standing_score(row: StoredRow) -> float:
    """``rank_key`` as one sorted-set score (ties: the member, as ``rank_key``'s id):
    a win by its time, below every game not won; those by cards on foundations,
    then by when that count was reached. Exact integers below 2**53."""
    at = min(max(row.at, 0), _MS_CAP)
    if row.status == MemberStatus.WON:
        return float(at)
    return float((53 - row.on_foundations) * 10**10 + at)


def replay_id(date: str, draw: int, player: str) -> str:
    return f"d-{date}-{draw}-{player}"


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


class DailyRaces:
    def __init__(
        self,
        store: DailyStore | None,
        deals: DailyDeals | None,
        identities: Identities,
        settings: Settings,
        clock: Clock,
        *,
        reviews: Reviews | None = None,
        assessments: Assessments | None = None,
    ) -> None:
        self.store = store
        #: each finished daily result's integrity signals, computed off the move path
        self.assessments = assessments
        self.deals = deals
        #: results under review and barred racers, set apart (``room.review``)
        self.reviews = reviews
        self.identities = identities
        self.settings = settings
        self.clock = clock
        #: the daily race each connection plays (forgotten when it closes)
        self.playing: dict[Peer, _Play] = {}

    def today(self) -> str:
        return today(self.settings.daily_date, self.clock.now_ms())

    def _parts(self) -> tuple[DailyStore, DailyDeals]:
        if self.store is None or self.deals is None:
            raise ProtocolError(E.UNAVAILABLE, "this server runs no daily race")
        return self.store, self.deals

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

    # ------------------------------------------------------------ standing, replays

    async def standing(self, peer: Peer, msg: DailyStandingQuery) -> None:
        store, deals = self._parts()
        day = self.today()
        date = msg.date or day
        if not is_date(date):
            raise ProtocolError(E.BAD_DATE, "not a date: write it YYYY-MM-DD, e.g. 2026-01-31")
        if date > day:
            raise ProtocolError(E.BAD_DATE, f"{date} has not come yet (today is {day})")
        identity = self.identities.of(peer)
        me: Row | None
        under_review: list[Row] | None = None
        unranked: list[Row] | None = None
        held: dict[str, str] = {}
        if self.reviews is None:
            players, top, mine = await store.standing(
                date, msg.draw, identity.id if identity else None, msg.limit
            )
            held = await store.held(date, msg.draw, _ids(top, mine))
            # in rank order, the unranked after every ranked one: ranks 1..n
            rows = ranked((r for r in top if r.id not in held), ties=False)
            unranked = [wire_row(r, 0) for r in top if r.id in held]
            me = wire_row(mine[1], 0 if mine[1].id in held else mine[0]) if mine else None
        else:
            flags = await self.reviews.flags(date, msg.draw)
            # read as many more as may be set aside (barred racers beyond: fewer rows)
            players, top, mine = await store.standing(
                date, msg.draw, identity.id if identity else None, msg.limit + len(flags)
            )
            rank_of = {}
            for pid in flags:
                found = (await store.standing(date, msg.draw, pid, 0))[2]
                rank_of[pid] = found[0] if found else 0
            held = await store.held(date, msg.draw, _ids(top, mine))
            split = await self.reviews.daily(date, msg.draw, top, mine, rank_of, held)
            rows, me = split.rows[: msg.limit], split.me
            under_review, unranked = split.under_review, split.unranked
        over = date < day
        reply = DailyStanding(
            date=date,
            draw=msg.draw,
            over=over,
            deal=await deals.known(date, msg.draw) if over else None,
            players=players,
            rows=rows,
            me=me,
            replays={
                r.id: f"/replay/{replay_id(date, msg.draw, r.id)}"
                for r in [*rows, *(under_review or ()), *(unranked or ())]
            }
            if over
            else None,
            server_time=self.clock.now_ms(),
            under_review=under_review,
            unranked=unranked,
            unranked_why=held or None,
        )
        peer.send(frames.text(reply))

    async def replay(
        self, date: str, draw: int, player: str
    ) -> tuple[int, DailyReplay | dict[str, str]]:
        """A daily replay for ``/replay/<id>``: (HTTP status, body). Shown only once
        the day is over."""
        store, deals = self._parts()
        if date >= self.today():
            return 403, {"error": f"the daily race of {date} is on: replays show once it is over"}
        attempt = await store.attempt(date, draw, player)
        deal = await deals.known(date, draw)
        if attempt is None or deal is None:
            return 404, {"error": "no such replay (unknown, or past its retention)"}
        players, _, mine = await store.standing(date, draw, player, 0)
        moves, times = split_log(attempt.log)
        review = (await self.reviews.flags(date, draw)).get(player) if self.reviews else None
        racers = (
            [
                ReplayPlayer(
                    **msgspec.structs.asdict(wire_row(mine[1], mine[0])),
                    moves_list=moves,
                    review=review if review in (REVIEW_OPEN, REVIEW_CONFIRMED) else None,
                    times_ms=times,
                )
            ]
            if mine
            else []
        )
        return 200, DailyReplay(
            id=replay_id(date, draw, player),
            date=date,
            deal=deal,
            draw=draw,
            players=racers,
            daily_players=players,
            final_board=replay(deal, moves).view(),
        )


def _ids(top: list[StoredRow], mine: tuple[int, StoredRow] | None) -> list[str]:
    return [r.id for r in top] + ([mine[1].id] if mine else [])


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
