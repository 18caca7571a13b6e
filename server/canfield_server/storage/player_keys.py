"""The keys of what the server keeps of its players, past any room.

A room's keys (``keys``) are its race and its seats; these are the
players': identities and their history, replays, challenge links, the
daily race, ratings and the ladder, and the integrity review, kept by
their own stores (``history``, ``challenge_store``, ``daily_store``,
``rating_store``, ``integrity_store``) for as long as each says. The few
under a room's tag (``cf:{CODE}:idents``, ``:nets``, ``:rated:``,
``:rchg:``) say who its players were and how their ratings moved.

==================================  ======  ==========================================
key                                 type    holds
==================================  ======  ==========================================
``cf:id:{HASH}``                    hash    an identity (HASH: sha256 of its token):
                                            ``pid`` public id, ``created``, ``streak``,
                                            ``last`` (the last daily date played),
                                            ``net`` (the network it was issued to),
                                            ``kept`` (0 until it finishes a race: it
                                            lives ``new_identity_ttl_s``, then the
                                            full retention)
``cf:{idn:NETWORK}``                hash    a network's identity budget: ``tokens``,
                                            ``at`` (ms of the last refill), ``i:SLOT``
                                            and ``r:SLOT`` identities issued and
                                            refused per ten-minute slot (a day kept)
``cf:idnets``                       zset    network -> ms it last asked for an identity
``cf:id:{HASH}:races``              list    its finished races, newest first (JSON)
``cf:{CODE}:idents``                hash    room member id -> identity hash
``cf:{CODE}:nets``                  hash    room member id -> the network it sat from
``cf:replay:{ID}``                  string  a room race's replay (JSON)
``cf:{ch:ID}``                      string  a challenge link's racer and run (``room.challenges``),
                                            with its expiry (``CANFIELD_CHALLENGE_DAYS``)
``cf:{ch:ID}:rank``                 zset    taker id -> score (lower is better): its standing,
                                            at most ``CANFIELD_CHALLENGE_STANDING`` takers
``cf:{ch:ID}:rows``                 hash    taker id -> their row JSON; both expire with the
                                            challenge
``cf:{chm:WHO}``                    string  challenges made in the current hour by one identity
                                            (``id:PUBLIC``) or network (``net:PREFIX``)
``cf:daily:secret``                 string  the daily deals' secret (when not set)
``cf:{dly:DATE:DRAW}:code``         string  that day's proven deal code
``cf:{dly:DATE:DRAW}:p:{PID}``      hash    a player's attempt: ``start``, ``name``,
                                            ``seq``, ``snap``, ``done``
``cf:{dly:DATE:DRAW}:log:{PID}``    list    its actions (as a room's player log)
``cf:{dly:DATE:DRAW}:rows``         hash    PID -> leaderboard row JSON
``cf:{dly:DATE:DRAW}:rank``         zset    PID by ``room.daily_standing.standing_score``
``cf:{dly:DATE:DRAW}:nets``         hash    network -> the day's first player from it
``cf:{dly:DATE:DRAW}:held``         hash    PID -> why the player is shown unranked
``cf:id:{HASH}:rating:dDRAW``       hash    public races' rating: ``mu``, ``sigma``,
                                            ``races``, ``name`` (the last name raced under)
``cf:id:{HASH}:ratings:dDRAW``      list    its rating after each public race, newest
                                            first (``RatingPoint`` JSON; bounded)
``cf:id:{HASH}:opp:dDRAW``          set     the identities it was rated against
``cf:rpairs:{DAY}``                 hash    a UTC day's count of public races rated per pair
``cf:{ladder:DRAW}:rank``           zset    HASH by shown rating: the ladder (only
                                            identities with the minimum races)
``cf:{ladder:DRAW}:rows``           hash    HASH -> ``LadderRow`` JSON (name, rating, ...)
``cf:{CODE}:rated:{RACE}``          string  set (NX) by the one process storing that public race's
                                            ratings: a race is rated once
``cf:{CODE}:rchg:{RACE}``           hash    a rated race's changes: ``draw``, and HASH ->
                                            ``[mu delta, sigma delta]`` (JSON)
``cf:case:{RESULT}``                hash    one result's integrity assessment: ``case``
                                            (``ReviewCase`` JSON as recorded), ``status``
                                            (empty, open, cleared, confirmed), ``by`` and
                                            ``at`` (the decision)
``cf:review:open``                  zset    RESULT by ms recorded: the open review queue
``cf:review:decided``               zset    RESULT by ms decided (the latest kept)
``cf:id:{HASH}:barred``             string  the identity is barred from ranked play
                                            (JSON: ``{"result", "by", "at"}``)
``cf:barred:{PID}``                 string  the same by public id (the daily's rows)
``cf:id:{HASH}:open``               set     RESULTs of its open cases
``cf:review:race:{RACE}``           hash    a race's flagged results (``ports.race_of``):
                                            member id (a daily: PID) -> status
==================================  ======  ==========================================

A day's keys share one hash tag (one Cluster slot), so its scripts touch them
all at once; an identity's two keys share another.
"""

from __future__ import annotations

__all__ = [
    "identity",
    "identity_races",
    "identity_budget",
    "IDENTITY_NETWORKS",
    "room_identities",
    "room_networks",
    "replay",
    "challenge",
    "challenge_rank",
    "challenge_rows",
    "challenges_made",
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
    "rating_opponents",
    "rating_pairs",
    "ladder_rank",
    "ladder_rows",
    "rated_race",
    "race_changes",
    "case",
    "REVIEW_QUEUE",
    "REVIEW_DECIDED",
    "barred",
    "barred_player",
    "open_cases_of",
    "race_flags",
]


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
