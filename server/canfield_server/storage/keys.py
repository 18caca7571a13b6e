"""Every Redis key and channel name of rooms and the races they gather.

All keys of a room share the hash tag ``{CODE}``, so a room lives in one
Redis Cluster slot and its Lua scripts may touch all of them at once. What
outlives a room (identities, history, challenges, the daily race, ratings,
the integrity review) has its keys in ``player_keys``: every key the server
writes is built in one of these two modules.

================================  ======  ==========================================
key                               type    holds
================================  ======  ==========================================
``cf:{CODE}:room``                hash    ``state`` (RoomState JSON), ``ver``, ``phase``,
                                          ``race``, ``deal``, ``done``, ``nplayers``, ``final``,
                                          ``ip`` (the address that created it), ``open``
                                          (``1``/``0``: ``rules.room_open`` at the last save),
                                          ``created`` (ms of the first save)
``cf:{CODE}:tokens``              hash    sha256(token) -> member id
``cf:{CODE}:presence``            hash    member id -> live connection count
``cf:{CODE}:rows``                hash    member id -> leaderboard row JSON
``cf:{CODE}:servers``             hash    process origin -> ms of its last beat (who serves the
                                          room)
``cf:{CODE}:p:{ID}``              hash    ``seq`` (last applied), ``snap`` (player snapshot)
``cf:{CODE}:p:{ID}:log``          list    the race's actions: move text, ``U`` undo, ``G`` give up,
                                          each with its receipt time (``room.stamps``: ``S@1210``)
``cf:{CODE}:events``              chan    room events for every server process
``cf:{ip:ADDRESS}:open``          zset    room code -> ms it stops counting at the latest: the
                                          rooms one client address holds open (``claim_room``)
``cf:{ip:ADDRESS}:new``           zset    room code -> ms it was created: one address's rooms
                                          of the last minute (the burst limit)
``cf:due``                        zset    room code -> ms its next timer is due (time limit,
                                          grace, a serving process's watchdog); any process sweeps
``cf:quick:{POOL}:open``          zset    the public races a pool (``d3``, ``d1``: a draw mode)
                                          gathers into now: room code -> its first racer's rating
``cf:quick:{POOL}:since``         hash    room code -> ms it opened (its band widens with the wait)
``cf:quick:{POOL}:waiting``       zset    ``CODE/MEMBER`` -> ms it stops counting unless told again:
                                          the racers waiting alone in the pool (a count on their
                                          waiting screens)
``cf:quick:{POOL}:past``          zset    finished public races' rated racers (a ghost offer's
                                          JSON) -> their rating then; ``:past:order`` (list) the
                                          same, oldest first: the newest ``QUICK_PAST_KEEP`` stay
``cf:{a:CODE}:PART``              (many)  an arena (``storage/arena_store.py``): ``record`` (hash:
                                          ``json``, ``ver``, ``moves``), ``names``, ``streak``,
                                          ``heats``, ``last`` (hashes by racer), ``standing`` (zset:
                                          racer -> minus points), ``waiting`` (zset: racer -> ms),
                                          ``assign`` (racer -> heat), ``heatinfo``, ``running``,
                                          ``seats:HEAT``, ``berserk:HEAT``, ``raced``, ``scored``,
                                          ``removed``, ``lock``, ``done``, ``owners`` (racer ->
                                          token hash), ``forming`` (zset: heat -> ms it is
                                          stale), ``given``, ``held`` (``HEAT RACER`` -> points
                                          the heat gave; those under review)
``cf:arenas:{HASH}``              list    an identity's arena results (``ArenaResult`` JSON), newest
                                          first
``cf:arena-public``                zset    public arena code -> ms it starts: the arenas the server
                                          scheduled (``room.arena_schedule``), for the home page
``cf:arena-private``               zset    private arena code -> ms it starts: every process's beat
                                          drives those no page of its follows (``room.arena_drive``)
``cf:arena-racer:{ID}``           string  ``ARENA/HEAT`` the racer (public id) is seated in now,
                                          with expiry: one arena heat at a time, across arenas
``cf:live``                       zset    public race code -> ms it started: races in progress
``cf:pool:d{DRAW}``               set     proven winnable deals: ``"<code> <par>"``
``cf:pool:d{DRAW}:lock``          string  held by the process refilling that pool
``cf:par:{DEAL}``                 string  a deal's par (empty: unknown), one room TTL
``cf:rv:2:{DEAL}:{LINE}``         string  a line's review (``LineVerdict`` JSON; LINE: a hash
                                          of the racer's actions), kept as long as replays;
                                          ``2``: with its slip taught (a verdict kept
                                          under ``cf:rv:{DEAL}:{LINE}`` before is not read)
``cf:rv:2:{DEAL}:{LINE}:claim``   string  held (with expiry) by the process reviewing that
                                          line: ``{"by", "n", "of"}``, its progress
================================  ======  ==========================================

The pool and par keys are global, not per room: on a Redis Cluster each
lands in its own slot, and the server reads them with single-key commands.
"""

from __future__ import annotations

__all__ = [
    "room",
    "tokens",
    "presence",
    "rows",
    "servers",
    "player",
    "log",
    "channel",
    "room_keys",
    "ip_open_rooms",
    "ip_new_rooms",
    "DUE",
    "quick_open",
    "quick_since",
    "quick_waiting",
    "quick_past",
    "quick_past_order",
    "LIVE",
    "pool",
    "pool_lock",
    "par",
    "review",
    "review_claim",
    "arena",
    "arena_results",
    "ARENA_PUBLIC",
    "ARENA_PRIVATE",
    "arena_racer",
]


def room(code: str) -> str:
    return f"cf:{{{code}}}:room"


def tokens(code: str) -> str:
    return f"cf:{{{code}}}:tokens"


def presence(code: str) -> str:
    return f"cf:{{{code}}}:presence"


def servers(code: str) -> str:
    return f"cf:{{{code}}}:servers"


def rows(code: str) -> str:
    return f"cf:{{{code}}}:rows"


def player(code: str, member_id: str) -> str:
    return f"cf:{{{code}}}:p:{member_id}"


def log(code: str, member_id: str) -> str:
    return f"cf:{{{code}}}:p:{member_id}:log"


def channel(code: str) -> str:
    return f"cf:{{{code}}}:events"


def ip_open_rooms(address: str) -> str:
    """One address's two room keys share a hash tag: one script counts both."""
    return f"cf:{{ip:{address}}}:open"


def ip_new_rooms(address: str) -> str:
    return f"cf:{{ip:{address}}}:new"


#: every room's next due timer, so a room nobody is connected to still ends on time
DUE = "cf:due"


def quick_open(pool: str) -> str:
    """A pool's two keys share a hash tag: one script matches and opens races."""
    return f"cf:quick:{{{pool}}}:open"


def quick_since(pool: str) -> str:
    return f"cf:quick:{{{pool}}}:since"


def quick_past(pool: str) -> str:
    return f"cf:quick:{{{pool}}}:past"


def quick_past_order(pool: str) -> str:
    return f"cf:quick:{{{pool}}}:past:order"


def quick_waiting(pool: str) -> str:
    return f"cf:quick:{{{pool}}}:waiting"


LIVE = "cf:live"


def pool(draw: int) -> str:
    """Proven winnable codes; ``cf2``: only codes of 128+ secret bits (a pool of
    older, guessable codes left by an earlier version is never read)."""
    return f"cf:pool:cf2:d{draw}"


def pool_lock(draw: int) -> str:
    return f"cf:pool:cf2:d{draw}:lock"


def par(deal: str) -> str:
    return f"cf:par:{deal}"


def review(deal: str, line: str) -> str:
    """A deal's reviews share its hash tag: one replay's racers are read in one MGET."""
    return f"cf:rv:2:{{{deal}}}:{line}"


def review_claim(deal: str, line: str) -> str:
    return f"cf:rv:2:{{{deal}}}:{line}:claim"


def room_keys(code: str) -> list[str]:
    """The room-wide keys whose TTL every room update refreshes, in script order."""
    return [room(code), tokens(code), presence(code), rows(code)]


def arena(code: str, part: str) -> str:
    """One of an arena's keys (all in the slot of ``{a:CODE}``)."""
    return f"cf:{{a:{code}}}:{part}"


def arena_results(token_hash: str) -> str:
    """An identity's arena results (its history of arenas)."""
    return f"cf:arenas:{token_hash}"


#: public arena code -> ms it starts (``room.arena_schedule``)
ARENA_PUBLIC = "cf:arena-public"
#: private arena code -> ms it starts (``room.arena_drive``)
ARENA_PRIVATE = "cf:arena-private"


def arena_racer(racer: str) -> str:
    """The arena heat a racer (public id) is seated in now."""
    return f"cf:arena-racer:{{{racer}}}"
