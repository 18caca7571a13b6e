"""Fair play's rules on who is rated against whom (docs/security.md, "Fair play"):
one list of the identities a public race leaves unrated, each with its reason; and
the ladder's distinct opponents (on the memory adapter, which the ports' contract
suite holds equal to Redis)."""

from __future__ import annotations

from canfield_protocol import MemberStatus, Row
from canfield_server.ops.config import Settings
from canfield_server.room.rating_races import (
    FairPlay,
    Racer,
    pair_key,
    rate_public_race,
    unrated,
)
from canfield_server.storage.memory import MemoryBackend, MemoryRatingStore

from tests.server.helpers import standing

RULES = FairPlay(pair_per_day=3, left_early_ms=15_000)


def racer(identity: str, *networks: str, left_early: bool = False) -> Racer:
    return Racer(identity, frozenset(networks), left_early)


def test_racers_who_share_a_network_are_unrated_and_the_rest_still_race() -> None:
    # Ann and Bob share a network (seat or issuance); Cy and Di come from others
    racers = [
        racer("ann", "203.0.113.0/24"),
        racer("bob", "198.51.100.0/24", "203.0.113.0/24"),
        racer("cy", "192.0.2.0/24"),
        racer("di"),  # no network: an in-process peer, or this host's own
    ]
    assert unrated(racers, {}, RULES) == {"ann": "same-network", "bob": "same-network"}
    # two of one network and nobody else: neither rated, whoever placed first
    assert unrated(racers[:2], {}, RULES) == {"ann": "same-network", "bob": "same-network"}


def test_a_pair_is_rated_together_a_few_times_a_day_and_a_leaver_is_nobodys_win() -> None:
    racers = [racer("ann", "a"), racer("bob", "b"), racer("cy", "c")]
    today = {pair_key("bob", "ann"): 3, pair_key("ann", "cy"): 2}
    # Ann and Bob are past the cap: neither rated; Cy is left with nobody
    assert unrated(racers, today, RULES) == {
        "ann": "pair-limit",
        "bob": "pair-limit",
        "cy": "no-opponent",
    }
    assert unrated(racers, today, RULES._replace(pair_per_day=0)) == {}  # no cap
    # a feeder who left at the start is out: the farmer has nobody to beat
    farm = [racer("farmer", "a"), racer("feeder", "b", left_early=True)]
    assert unrated(farm, {}, RULES) == {"feeder": "left-early", "farmer": "no-opponent"}
    # barred comes first, and the list is one a review can add to
    assert unrated(racers, {}, RULES, barred={"bob"}) == {"bob": "barred"}


def test_who_left_early_and_which_networks_are_no_network() -> None:
    def row(status: MemberStatus, moves: int, time_ms: int) -> Row:
        return Row(
            id="p", name="P", score=0, on_foundations=1, moves=moves, status=status, time_ms=time_ms
        )

    assert RULES.left_early(row(MemberStatus.LEFT, 0, 0))  # left at started
    assert RULES.left_early(row(MemberStatus.LEFT, 4, 9_000))  # nothing after 9 s
    assert not RULES.left_early(row(MemberStatus.LEFT, 30, 40_000))  # raced, then left
    assert not RULES.left_early(row(MemberStatus.GAVE_UP, 0, 2_000))  # a give-up is ranked
    assert FairPlay(left_early_ms=0).left_early(row(MemberStatus.LEFT, 0, 0))
    assert not FairPlay(left_early_ms=0).left_early(row(MemberStatus.LEFT, 1, 100))
    # this host's own addresses (its bots, local tools) are no network
    play = FairPlay.of(Settings())
    assert play.own_networks == {"127.0.0.0/24", "::/64"}
    assert (play.pair_per_day, play.left_early_ms) == (3, 15_000)


async def test_the_ladder_lists_an_identity_only_against_enough_distinct_opponents() -> None:
    store = MemoryRatingStore(MemoryBackend(), max_points=50)

    async def race(n: int, feeder: str) -> None:
        standings = [standing("farmer", 1), standing(feeder, 2)]
        ids = {"farmer": "farmer", feeder: feeder}
        await rate_public_race(
            store, 3, standings, ids, min_races=5, min_opponents=5, now_ms=n * 1_000
        )

    # six wins over two feeder identities: rated, never on the ladder
    for n in range(6):
        await race(n, f"feeder{n % 2}")
    assert (await store.ratings(3, ["farmer"]))["farmer"].races == 6
    assert await store.ladder(3, 10) == []
    # three more opponents: five distinct, and the next rated race lists the farmer
    for n in range(6, 9):
        await race(n, f"stranger{n}")
    assert [row.name for row in await store.ladder(3, 10)] == ["FARMER"]
