"""Every Redis key and channel name, built in one place.

All keys of a room share the hash tag ``{CODE}``, so a room lives in one
Redis Cluster slot and its Lua scripts may touch all of them at once.

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
``cf:{CODE}:rated:{RACE}``        string  set (NX) by the one process storing that public race's
                                          ratings: a race is rated once
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
                                          token hash)
``cf:arenas:{HASH}``              list    an identity's arena results (``ArenaResult`` JSON), newest
                                          first
``cf:arena-public``                zset    public arena code -> ms it starts: the arenas the server
                                          scheduled (``room.arena_schedule``), for the home page
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
``cf:{ch:ID}``                     string  a challenge link's racer and run (``room.challenges``),
                                          with its expiry (``CANFIELD_CHALLENGE_DAYS``)
``cf:{ch:ID}:rank``                zset    taker id -> score (lower is better): its standing,
                                          at most ``CANFIELD_CHALLENGE_STANDING`` takers
``cf:{ch:ID}:rows``                hash    taker id -> their row JSON; both expire with the
                                          challenge
``cf:{chm:WHO}``                   string  challenges made in the current hour by one identity
                                          (``id:PUBLIC``) or network (``net:PREFIX``)
================================  ======  ==========================================

The pool and par keys are global, not per room: on a Redis Cluster each
lands in its own slot, and the server reads them with single-key commands.
"""

from __future__ import annotations

__all__ = [
    "challenge",
    "challenge_rank",
    "challenge_rows",
    "challenges_made",
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
    "identity",
    "identity_races",
    "identity_budget",
    "IDENTITY_NETWORKS",
    "room_identities",
    "room_networks",
    "rating_pairs",
    "rating_opponents",
    "replay",
    "DAILY_SECRET",
    "daily_code",
    "daily_networks",
    "daily_held",
    "daily_player",
    "daily_log",
    "daily_rows",
    "daily_rank",
    "rating",
    "rating_history",
    "ladder_rank",
    "ladder_rows",
    "rated_race",
    "case",
    "REVIEW_QUEUE",
    "REVIEW_DECIDED",
    "barred",
    "barred_player",
    "open_cases_of",
    "race_flags",
    "race_changes",
    "arena",
    "arena_results",
    "ARENA_PUBLIC",
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


# ---------------------------------------------------------------- identities, history, daily
#
# ==================================  ======  ==========================================
# ``cf:id:{HASH}``                    hash    an identity (HASH: sha256 of its token):
#                                             ``pid`` public id, ``created``, ``streak``,
#                                             ``last`` (the last daily date played),
#                                             ``net`` (the network it was issued to),
#                                             ``kept`` (0 until it finishes a race: it
#                                             lives ``new_identity_ttl_s``, then the
#                                             full retention)
# ``cf:{idn:NETWORK}``                hash    a network's identity budget: ``tokens``,
#                                             ``at`` (ms of the last refill), ``i:SLOT``
#                                             and ``r:SLOT`` identities issued and
#                                             refused per ten-minute slot (a day kept)
# ``cf:idnets``                       zset    network -> ms it last asked for an identity
# ``cf:id:{HASH}:races``              list    its finished races, newest first (JSON)
# ``cf:{CODE}:idents``                hash    room member id -> identity hash
# ``cf:replay:{ID}``                  string  a room race's replay (JSON)
# ``cf:daily:secret``                 string  the daily deals' secret (when not set)
# ``cf:{dly:DATE:DRAW}:code``         string  that day's proven deal code
# ``cf:{dly:DATE:DRAW}:p:{PID}``      hash    a player's attempt: ``start``, ``name``,
#                                             ``seq``, ``snap``, ``done``
# ``cf:{dly:DATE:DRAW}:log:{PID}``    list    its actions (as a room's player log)
# ``cf:{dly:DATE:DRAW}:rows``         hash    PID -> leaderboard row JSON
# ``cf:{dly:DATE:DRAW}:rank``         zset    PID by ``room.daily_standing.standing_score``
# ``cf:id:{HASH}:rating:dDRAW``        hash    public races' rating: ``mu``, ``sigma``,
#                                             ``races``, ``name`` (the last name raced under)
# ``cf:id:{HASH}:ratings:dDRAW``       list    its rating after each public race, newest
#                                             first (``RatingPoint`` JSON; bounded)
# ``cf:{ladder:DRAW}:rank``           zset    HASH by shown rating: the ladder (only
#                                             identities with the minimum races)
# ``cf:{ladder:DRAW}:rows``           hash    HASH -> ``LadderRow`` JSON (name, rating, ...)
# ``cf:case:{RESULT}``                hash    one result's integrity assessment: ``case``
#                                             (``ReviewCase`` JSON as recorded), ``status``
#                                             (empty, open, cleared, confirmed), ``by`` and
#                                             ``at`` (the decision)
# ``cf:review:open``                  zset    RESULT by ms recorded: the open review queue
# ``cf:review:decided``               zset    RESULT by ms decided (the latest kept)
# ``cf:id:{HASH}:barred``             string  the identity is barred from ranked play
#                                             (JSON: ``{"result", "by", "at"}``)
# ``cf:barred:{PID}``                 string  the same by public id (the daily's rows)
# ``cf:id:{HASH}:open``               set     RESULTs of its open cases
# ``cf:review:race:{RACE}``           hash    a race's flagged results (``ports.race_of``):
#                                             member id (a daily: PID) -> status
# ``cf:{CODE}:rchg:{RACE}``           hash    a rated race's changes: ``draw``, and HASH ->
#                                             ``[mu delta, sigma delta]`` (JSON)
# ==================================  ======  ==========================================
#
# A day's keys share one hash tag (one Cluster slot), so its scripts touch them
# all at once; an identity's two keys share another.


def identity(token_hash: str) -> str:
    return f"cf:id:{{{token_hash}}}"


def identity_races(token_hash: str) -> str:
    return f"cf:id:{{{token_hash}}}:races"


def identity_budget(network: str) -> str:
    """A network's (``identifiers.address_prefix``) bucket of new identities."""
    return f"cf:{{idn:{network}}}"


#: every network that asked for an identity in the last day (the console's list)
IDENTITY_NETWORKS = "cf:idnets"


def room_identities(code: str) -> str:
    return f"cf:{{{code}}}:idents"


def room_networks(code: str) -> str:
    """The network each seat sat from (``IdentityStore.link_member``)."""
    return f"cf:{{{code}}}:nets"


def replay(replay_id: str) -> str:
    return f"cf:replay:{replay_id}"


def challenge(challenge_id: str) -> str:
    """A challenge link's body; its standing's keys share its slot."""
    return f"cf:{{ch:{challenge_id}}}"


def challenge_rank(challenge_id: str) -> str:
    return f"cf:{{ch:{challenge_id}}}:rank"


def challenge_rows(challenge_id: str) -> str:
    return f"cf:{{ch:{challenge_id}}}:rows"


def challenges_made(who: str) -> str:
    return f"cf:{{chm:{who}}}"


DAILY_SECRET = "cf:daily:secret"


def _day(date: str, draw: int) -> str:
    return f"cf:{{dly:{date}:{draw}}}"


def daily_code(date: str, draw: int) -> str:
    return f"{_day(date, draw)}:code"


def daily_player(date: str, draw: int, pid: str) -> str:
    return f"{_day(date, draw)}:p:{pid}"


def daily_log(date: str, draw: int, pid: str) -> str:
    return f"{_day(date, draw)}:log:{pid}"


def daily_rows(date: str, draw: int) -> str:
    return f"{_day(date, draw)}:rows"


def daily_networks(date: str, draw: int) -> str:
    """A day's first daily player per network (network -> public id)."""
    return f"{_day(date, draw)}:nets"


def daily_held(date: str, draw: int) -> str:
    """A day's daily players shown unranked (public id -> why), decided at their start."""
    return f"{_day(date, draw)}:held"


def daily_rank(date: str, draw: int) -> str:
    return f"{_day(date, draw)}:rank"


def rating(token_hash: str, draw: int) -> str:
    return f"cf:id:{{{token_hash}}}:rating:d{draw}"


def rating_history(token_hash: str, draw: int) -> str:
    return f"cf:id:{{{token_hash}}}:ratings:d{draw}"


def ladder_rank(draw: int) -> str:
    """A ladder's two keys share a hash tag: one script reads the top rows."""
    return f"cf:{{ladder:{draw}}}:rank"


def ladder_rows(draw: int) -> str:
    return f"cf:{{ladder:{draw}}}:rows"


def rating_opponents(token_hash: str, draw: int) -> str:
    """The identities one identity was rated against in a draw mode (a set)."""
    return f"cf:id:{{{token_hash}}}:opp:d{draw}"


def rating_pairs(day: str) -> str:
    """A UTC day's count of public races rated per pair of identities."""
    return f"cf:rpairs:{day}"


def rated_race(code: str, race_no: int) -> str:
    """Set (NX) by the one process that stores a public race's ratings."""
    return f"cf:{{{code}}}:rated:{race_no}"


def case(result: str) -> str:
    return f"cf:case:{{{result}}}"


REVIEW_QUEUE = "cf:review:open"
REVIEW_DECIDED = "cf:review:decided"


def barred(token_hash: str) -> str:
    return f"cf:id:{{{token_hash}}}:barred"


def barred_player(public_id: str) -> str:
    return f"cf:barred:{{{public_id}}}"


def open_cases_of(token_hash: str) -> str:
    return f"cf:id:{{{token_hash}}}:open"


def race_flags(race: str) -> str:
    return f"cf:review:race:{{{race}}}"


def race_changes(code: str, race_no: int) -> str:
    return f"cf:{{{code}}}:rchg:{race_no}"


def arena(code: str, part: str) -> str:
    """One of an arena's keys (all in the slot of ``{a:CODE}``)."""
    return f"cf:{{a:{code}}}:{part}"


def arena_results(token_hash: str) -> str:
    """An identity's arena results (its history of arenas)."""
    return f"cf:arenas:{token_hash}"


#: public arena code -> ms it starts (``room.arena_schedule``)
ARENA_PUBLIC = "cf:arena-public"


def arena_racer(racer: str) -> str:
    """The arena heat a racer (public id) is seated in now."""
    return f"cf:arena-racer:{{{racer}}}"
