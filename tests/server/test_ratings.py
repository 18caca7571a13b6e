"""Public races' ratings (``room.ratings``, ``room.rating_races``): a scripted
finishing order moves them the right way, ties, newcomers, leavers last;
and ``GET /api/ladder`` / ``GET /api/rating`` on a real server process."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest
from canfield_bench.processes import ServerProcess
from canfield_protocol import Member, MemberStatus, Role, encode, rated_row
from canfield_server.ops.clock import ManualClock
from canfield_server.room import identifiers, public
from canfield_server.room.ports import LadderRow, RatingPoint, RoomSave, StoredRating
from canfield_server.room.rating_races import public_race_rater, rate_public_race
from canfield_server.room.ratings import (
    NEWCOMER,
    PROVISIONAL_DEVIATION,
    Placed,
    Rating,
    deviation,
    estimate,
    leavers_last,
    provisional,
    rate,
    shown,
)
from canfield_server.storage.memory import (
    MemoryBackend,
    MemoryIdentityStore,
    MemoryRatingStore,
)
from canfield_server.storage.rating_store import RedisRatingStore
from redis.asyncio import Redis

from tests.server.conftest import Connect, MakeRooms
from tests.server.helpers import get, standing


def test_the_winner_goes_up_the_last_goes_down_and_everyone_grows_surer() -> None:
    order = [Placed(f"i{n}", n) for n in range(1, 9)]
    out = rate(order, {})
    mus = [out[f"i{n}"].rating.mu for n in range(1, 9)]
    assert mus == sorted(mus, reverse=True)  # the finishing order, kept
    assert mus[0] > NEWCOMER.mu > mus[-1]
    assert all(out[p.identity].rating.sigma < NEWCOMER.sigma for p in order)
    assert all(out[p.identity].rating.races == 1 for p in order)
    # the estimate shown: the winner's rises most, the last's falls most
    changes = [out[f"i{n}"].change for n in range(1, 9)]
    assert changes == sorted(changes, reverse=True) and changes[0] > 0 > changes[-1]


def test_two_newcomers_who_give_up_alike_move_nobody_up() -> None:
    """Both gave up with the same cards home: a tie. Their estimate stays 1000,
    still provisional, and the race's change is 0 for both; only the cautious
    number the ladder orders by rises, as the model grew surer of them."""
    out = rate([Placed("a", 1), Placed("b", 1)], {})
    for rated in out.values():
        assert rated.change == 0 and estimate(rated.rating) == 1000
        assert provisional(deviation(rated.rating))
        assert shown(rated.rating) > shown(NEWCOMER)


def test_a_rating_is_provisional_until_the_races_make_it_sure() -> None:
    regular = Rating(mu=30.0, sigma=2.0, races=50)
    assert provisional(deviation(NEWCOMER)) and not provisional(deviation(regular))
    assert not provisional(PROVISIONAL_DEVIATION) and provisional(PROVISIONAL_DEVIATION + 1)
    assert estimate(regular) == 1200 and shown(regular) == 1000 + 40 * (30 - 3 * 2)


def test_a_tie_rates_alike_and_beating_a_strong_field_counts_more() -> None:
    out = rate([Placed("a", 1), Placed("b", 1), Placed("c", 3)], {})
    assert out["a"].rating == out["b"].rating and out["a"].rating.mu > out["c"].rating.mu
    strong = Rating(mu=35.0, sigma=2.0, races=40)
    weak = Rating(mu=15.0, sigma=2.0, races=40)
    over_strong = rate([Placed("new", 1), Placed("s", 2)], {"s": strong})["new"]
    over_weak = rate([Placed("new", 1), Placed("w", 2)], {"w": weak})["new"]
    assert over_strong.rating.mu > over_weak.rating.mu


def test_a_newcomer_is_uncertain_and_moves_further_than_a_regular() -> None:
    regular = Rating(mu=25.0, sigma=2.0, races=50)
    out = rate([Placed("new", 1), Placed("old", 2)], {"old": regular})
    assert shown(NEWCOMER) == 1000
    assert NEWCOMER.sigma > 8 and out["new"].rating.sigma > out["old"].rating.sigma
    assert out["new"].rating.mu - NEWCOMER.mu > regular.mu - out["old"].rating.mu
    assert rate([Placed("alone", 1)], {}) == {}  # no contest, nothing rated
    with pytest.raises(ValueError):
        rate([Placed("a", 1), Placed("a", 2)], {})


def test_leavers_share_the_last_place_whatever_they_had_done() -> None:
    rows = [standing("gone", 1, MemberStatus.LEFT), standing("b", 2), standing("c", 3)]
    rows.append(standing("dropped", 4, MemberStatus.DISCONNECTED))
    ranked = leavers_last(rows, {"gone", "dropped"})
    assert [(r.id, r.rank) for r in ranked] == [("b", 2), ("c", 3), ("gone", 4), ("dropped", 4)]


async def test_a_public_race_rates_identified_humans_only_and_feeds_the_ladder() -> None:
    store = MemoryRatingStore(MemoryBackend(), max_points=3)
    rows = leavers_last(
        [standing("m1", 1), standing("bot", 2), standing("m3", 3), standing("m4", 4)],
        {"m1"},
    )
    identities = {"m1": "h1", "m3": "h3", "m4": "h4", "bot": "hb"}
    race = await rate_public_race(store, 3, rows, identities, min_races=2, now_ms=5, bots={"bot"})
    assert set(race.by_identity) == {"h1", "h3", "h4"}
    # the leader who left is rated last; the bot's row stays plain
    assert race.by_identity["h3"].change > race.by_identity["h1"].change
    by_id = {r.id: r for r in race.standings}
    third, left = by_id["m3"], by_id["m1"]
    assert b'"rating' not in encode(by_id["bot"])  # sent with none of the three
    assert third.rating is not None and left.rating is not None
    assert third.rating == estimate(race.by_identity["h3"].rating)
    assert third.rating_provisional is True  # two races are far from sure
    assert left.rating_change == race.by_identity["h1"].change < 0
    encoded = {r["id"]: r for r in msgspec.json.decode(msgspec.json.encode(race.standings))}
    assert "rating" in encoded["m3"] and "rating" not in encoded["bot"]
    assert await store.ladder(3, 10) == []  # one race: below the minimum
    await rate_public_race(store, 3, rows, identities, min_races=2, now_ms=6, bots={"bot"})
    ladder = await store.ladder(3, 10)
    assert [r.name for r in ladder] == ["M3", "M4", "M1"] and ladder[0].races == 2
    points = await store.rating_history("h3", 3, 10)
    assert [p.at for p in points] == [6, 5] and points[0].players == 4
    assert await store.ladder(1, 10) == []  # the other draw mode is untouched
    # one human among bots, or nobody identified: nothing is rated
    alone = await rate_public_race(
        store, 3, rows, {"m3": "h3"}, min_races=2, now_ms=7, bots={"bot"}
    )
    assert alone.by_identity == {} and alone.standings == [rated_row(r) for r in rows]


async def test_a_race_is_rated_into_its_rows_first_and_stored_once() -> None:
    """The results put the planned rows in ``finished`` and may plan again (their
    compare-and-set retried, or another process got there): only the first keep
    stores, and the standings keep their order (a leaver is rated last)."""
    backend = MemoryBackend()
    store = MemoryRatingStore(backend, max_points=10)
    identities = MemoryIdentityStore(backend, max_races=10)
    for member in ("m1", "m2", "m3"):
        await identities.link_member("K7QX2M", member, f"h{member[1]}")
    racers = [Member(id=m, name=m, role=Role.PLAYER) for m in ("m1", "m2", "m3")]
    bot = Member(id="bot", name="Bot", role=Role.PLAYER, bot=True)
    room = msgspec.structs.replace(
        public.create_public_room("K7QX2M", 3), members=[*racers, bot], race=4
    )
    rows = [standing("m1", 1, MemberStatus.LEFT), standing("m2", 2), standing("bot", 3)]
    rows.append(standing("m3", 4))
    rater = public_race_rater(store, identities, min_races=1, clock=ManualClock())

    planned = await rater(room, rows)
    assert [r.id for r in planned.standings] == ["m1", "m2", "bot", "m3"]
    assert [r.rank for r in planned.standings] == [1, 2, 3, 4]  # the order sent stays
    by_id = {r.id: r for r in planned.standings}
    assert by_id["bot"].rating is None and b'"rating' not in encode(by_id["bot"])
    assert by_id["m1"].rating_change is not None and by_id["m2"].rating_change is not None
    assert by_id["m1"].rating_change < by_id["m2"].rating_change  # left: rated last
    assert await store.ratings(3, ["h1", "h2", "h3"]) == {}  # planned: nothing stored

    again = await rater(room, rows)  # a retry plans the same rows
    assert again.standings == planned.standings
    assert await again.keep() is True
    assert await planned.keep() is False  # the race is rated already
    stored = await store.ratings(3, ["h1", "h2", "h3"])
    assert {i: s.races for i, s in stored.items()} == {"h1": 1, "h2": 1, "h3": 1}
    assert len(await store.rating_history("h2", 3, 10)) == 1
    shown_now = [r.rating for r in await store.ladder(3, 10)]
    assert sorted(shown_now, reverse=True) == shown_now and len(shown_now) == 3
    # the room's next race is rated anew, from the stored ratings
    later = await rater(msgspec.structs.replace(room, race=5), rows)
    assert await later.keep() is True
    assert (await store.ratings(3, ["h2"]))["h2"].races == 2


async def test_the_ladder_and_my_rating_over_http(server: ServerProcess, connect: Connect) -> None:
    client = await connect(server.ws_url)
    issued = await client.request("identity", type="identify")
    mine = hashlib.sha256(issued["token"].encode()).hexdigest()
    redis = Redis.from_url(server.redis_url)
    store = RedisRatingStore(redis, retention_days=1, max_points=200)
    try:
        # the minimum is 5 races (as shipped)
        order = [standing(m, n) for n, m in enumerate(["me", "b", "c"], start=1)]
        identities = {"me": mine, "b": "hb", "c": "hc"}
        for n in range(4):
            await rate_public_race(store, 3, order, identities, min_races=5, now_ms=n)
        status, body = get(server.http_url + "/api/ladder?draw=3")
        assert status == 200 and body["rows"] == [] and body["min_races"] == 5
        # alone among unidentified racers: not rated
        await rate_public_race(store, 3, order, {"me": mine}, min_races=5, now_ms=9)
        await rate_public_race(store, 3, order[:2], identities, min_races=5, now_ms=10)
        status, body = get(server.http_url + "/api/ladder?draw=3")
        assert status == 200
        assert [(r["name"], r["races"]) for r in body["rows"]] == [("ME", 5), ("B", 5)]
        assert body["rows"][0]["rating"] > body["rows"][1]["rating"]
        status, body = get(server.http_url + "/api/ladder?draw=1")
        assert status == 200 and body["rows"] == []
        status, body = get(server.http_url + "/api/ladder?draw=2")
        assert status == 400 and "draw" in body["error"]

        status, body = get(
            server.http_url + "/api/rating", {"X-Canfield-Identity": issued["token"]}
        )
        assert status == 200
        (three,) = body["ratings"]
        assert three["draw"] == 3 and three["races"] == 5 and three["provisional"] is False
        assert [p["at"] for p in three["history"]] == [10, 3, 2, 1, 0]
        assert three["rating"] == three["history"][0]["rating"] and three["deviation"] > 0
        assert three["cautious"] == three["history"][0]["cautious"] != three["rating"]
        status, body = get(server.http_url + "/api/rating", {"X-Canfield-Identity": "A" * 24})
        assert status == 401 and body["code"] == "bad-identity"

        # the ladder's order is the cautious number's: a sure 1200 above a lucky
        # 1300 still provisional; a row stored before the estimate was kept
        # shows it too, worked out from its cautious number and deviation
        sure = Rating(mu=30.0, sigma=2.0)
        lucky = Rating(mu=32.5, sigma=6.5)
        rows: list[tuple[str, Rating, int | None]] = [("Sure", sure, estimate(sure))]
        rows.append(("Lucky", lucky, estimate(lucky)))
        rows.append(("Old", Rating(mu=29.0, sigma=3.0), None))
        point = RatingPoint(at=1, rating=0, deviation=0, change=0, rank=1, players=2)
        await store.save_ratings(
            1,
            [
                (
                    f"h{name}",
                    StoredRating(mu=r.mu, sigma=r.sigma, races=9, name=name),
                    point,
                    LadderRow(
                        name=name,
                        rating=shown(r),
                        deviation=deviation(r),
                        races=9,
                        estimate=number,
                    ),
                )
                for name, r, number in rows
            ],
        )
        status, body = get(server.http_url + "/api/ladder?draw=1")
        shown_rows = [(r["name"], r["rating"], r["rating_provisional"]) for r in body["rows"]]
        assert shown_rows == [("Sure", 1200, False), ("Old", 1160, False), ("Lucky", 1300, True)]
        assert [r["cautious"] for r in body["rows"]] == [1960, 1800, 1520]
    finally:
        await store.close()
        await redis.aclose()


async def test_results_saved_again_after_a_conflict_rate_the_public_race_once(
    rooms: MakeRooms,
) -> None:
    """The results' compare-and-set loses once (another change saved first): they
    are planned again and saved, the ratings sent are the ones stored, once."""
    world = await rooms(processes=2)
    conflicts: list[str] = []
    for hub in world.hubs:
        store = hub.store
        save = store.save_room

        async def losing_once(
            saving: RoomSave, *, _save: Any = save, _store: Any = store
        ) -> int | None:
            if saving.final is not None and not conflicts:
                record = await _store.load_room(saving.state.room)
                conflicts.append(saving.state.room)  # another change gets in first
                await _save(RoomSave(record.ver, record.state))
                return None
            result: int | None = await _save(saving)
            return result

        store.save_room = losing_once  # type: ignore[method-assign,assignment]

    racers = [await world.open(process) for process in (0, 1, 0)]
    tokens = [(await c.request("identity", type="identify"))["token"] for c in racers]
    rooms_joined = {
        (await c.request("joined", type="quick", name=name, draw=3))["room"]
        for c, name in zip(racers, ("Ann", "Bob", "Cara"), strict=True)
    }
    assert len(rooms_joined) == 1
    for client in racers:
        await client.expect("started")
    for client in racers:
        await client.send(type="give_up", seq=1)
    finished = [await c.expect("finished") for c in racers]

    assert conflicts == list(rooms_joined)
    rows = finished[0]["standings"]
    assert all(f["standings"] == rows for f in finished)
    hashes = [identifiers.token_hash(token) for token in tokens]
    stored = await world.ratings.ratings(3, hashes)
    assert {s.races for s in stored.values()} == {1} and len(stored) == 3
    by_name = {row["name"]: row for row in rows}
    for name, identity in zip(("Ann", "Bob", "Cara"), hashes, strict=True):
        (point,) = await world.ratings.rating_history(identity, 3, 10)
        assert by_name[name]["rating"] == point.estimate == 1000  # all alike: a tie
        assert by_name[name]["rating_provisional"] is True
        assert by_name[name]["rating_change"] == point.change
