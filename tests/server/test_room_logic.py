"""Room rules, a player's race and the ranking, without sockets or Redis."""

from __future__ import annotations

import msgspec
import pytest
from canfield import Game
from canfield_protocol import (
    GiveUp,
    Member,
    MemberStatus,
    MoveMsg,
    ProtocolError,
    Role,
    RoomSettings,
    SettingsMsg,
    Tap,
    Undo,
    decode_client,
)
from canfield_server.room import identifiers
from canfield_server.room import rules as R
from canfield_server.room.leaderboard import rank_key, ranked
from canfield_server.room.ports import StoredRow
from canfield_server.room.race import PlayerRace, replay

from tests.server.helpers import code_of

DEAL = "CF1-D3-AAAAACL"


def lobby() -> R.RoomState:
    state = R.create_room("ABCDEF", "host", "Ann")
    return R.add_member(state, "bob", "Bob", Role.PLAYER)


def member(state: R.RoomState, member_id: str) -> Member:
    """The member, who must be in the room."""
    found = R.member(state, member_id)
    assert found is not None, f"{member_id} is not in the room"
    return found


# ---------------------------------------------------------------- rooms


def test_room_codes_are_six_unambiguous_characters_and_differ() -> None:
    codes = {identifiers.new_room_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == 6 and set(code) <= set(identifiers.CODE_ALPHABET)
        assert not set(code) & set("01IOL")


def test_room_code_input_is_case_insensitive_and_checked() -> None:
    assert identifiers.normalize_room_code(" abc234 ") == "ABC234"
    assert code_of(lambda: identifiers.normalize_room_code("ABC10O")) == "unknown-room"


def test_tokens_have_at_least_128_random_bits_and_are_stored_hashed() -> None:
    token = identifiers.new_token()
    assert len(token) * 6 >= 128
    assert identifiers.token_hash(token) != token and len(identifiers.token_hash(token)) == 64


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "<script>", "a{ver}"])
def test_bad_names_are_refused_with_a_reason(name: str) -> None:
    assert code_of(lambda: R.clean_name(name)) == "bad-name"


def test_names_are_trimmed_and_must_be_unique_in_a_room() -> None:
    assert R.clean_name("  Ann   Lee ") == "Ann Lee"
    state = lobby()
    assert code_of(lambda: R.add_member(state, "x", "bob", Role.SPECTATOR)) == "bad-name"


def test_players_join_in_the_lobby_spectators_any_time_and_rooms_fill() -> None:
    state = lobby()
    racing, _ = R.start_race(state, "host", 1_000, 3.0, force=True)
    late = R.add_member(racing, "c", "Cy", Role.PLAYER)  # mid-race: watches, races next time
    assert (member(late, "c").role, member(late, "c").waiting) == ("spectator", True)
    rematch = R.rematch(R.finish_race(late), "host")
    assert (member(rematch, "c").role, member(rematch, "c").waiting) == ("player", False)
    watched = R.add_member(racing, "c", "Cy", Role.SPECTATOR)
    assert member(watched, "c").role == "spectator"
    small = R.Limits(max_players=2, max_spectators=0)
    assert code_of(lambda: R.add_member(state, "c", "Cy", Role.PLAYER, small)) == "room-full"
    assert code_of(lambda: R.add_member(state, "c", "Cy", Role.SPECTATOR, small)) == "room-full"


def test_settings_are_host_only_validated_and_partial() -> None:
    state = lobby()
    msg = SettingsMsg(draw=1, time_limit_s=120)
    assert code_of(lambda: R.update_settings(state, "bob", msg)) == "not-host"
    new = R.update_settings(state, "host", msg)
    assert new.settings == RoomSettings(draw=1, deal="random", time_limit_s=120)
    again = R.update_settings(new, "host", SettingsMsg(winnable_only=True))
    assert again.settings.time_limit_s == 120 and again.settings.winnable_only
    clear = decode_client(b'{"type":"settings","time_limit_s":null}')
    assert isinstance(clear, SettingsMsg)
    cleared = R.update_settings(again, "host", clear)
    assert cleared.settings.time_limit_s is None
    assert state.settings == RoomSettings()  # the input state is never changed


def test_a_typed_in_deal_code_is_checked_with_a_clear_error() -> None:
    state = lobby()
    with pytest.raises(ProtocolError) as info:
        R.update_settings(state, "host", SettingsMsg(deal="CF1-D3-AAAA"))
    assert info.value.code == "bad-deal-code" and "7 letters" in info.value.message
    new = R.update_settings(state, "host", SettingsMsg(deal=" cf1-d1-aaaaacl "))
    assert new.settings.deal == "CF1-D1-AAAAACL" and new.settings.draw == 1
    assert R.public_settings(new.settings).deal == "custom"
    bad = SettingsMsg(time_limit_s=5)
    assert code_of(lambda: R.update_settings(state, "host", bad)) == "bad-settings"


def test_start_fixes_the_deal_countdown_and_time_limit() -> None:
    state = R.update_settings(lobby(), "host", SettingsMsg(deal=DEAL, time_limit_s=60))
    assert code_of(lambda: R.start_race(state, "bob", 0, 3)) == "not-host"
    racing, deal = R.start_race(state, "host", 10_000, 3.0, force=True)
    assert str(deal) == DEAL
    assert (racing.phase, racing.race, racing.starts_at, racing.ends_at) == (
        "racing",
        1,
        13_000,
        73_000,
    )
    assert code_of(lambda: R.start_race(racing, "host", 0, 3)) == "wrong-phase"
    assert code_of(lambda: R.set_ready(racing, "bob", True)) == "wrong-phase"


def test_bots_are_ready_from_the_start_and_after_a_rematch() -> None:
    state = R.add_member(
        R.create_room("ROOM42", "host", "Ann"), "b1", "Bot 1", Role.PLAYER, bot=True
    )
    state = R.add_member(state, "bob", "Bob", Role.PLAYER)
    bot = R.member(state, "b1")
    assert bot is not None and bot.ready and bot.bot
    assert [m.id for m in R.not_ready(state)] == ["bob"]
    assert member(R.set_ready(state, "b1", False), "b1").ready  # a bot cannot be unready
    racing, _ = R.start_race(state, "host", 0, 0, force=True)
    again = R.rematch(R.finish_race(racing), "host")
    assert [m.ready for m in again.members] == [False, True, False]


def test_rematch_returns_to_the_lobby_with_a_new_random_deal() -> None:
    state = R.update_settings(lobby(), "host", SettingsMsg(deal=DEAL))
    state = R.set_ready(state, "bob", True)
    racing, _ = R.start_race(state, "host", 0, 0, force=True)
    assert code_of(lambda: R.rematch(racing, "host")) == "wrong-phase"
    again = R.rematch(R.finish_race(racing), "host")
    assert again.phase == "lobby" and again.settings.deal == "random"
    assert not any(m.ready for m in again.members) and len(again.members) == 2
    assert again.race == 1


def test_presence_changes_only_when_it_changes() -> None:
    state = lobby()
    assert R.set_connected(state, "bob", True) is state
    gone = R.set_connected(state, "bob", False)
    assert not member(gone, "bob").connected


# ---------------------------------------------------------------- a player's race


def test_an_illegal_move_is_refused_with_the_rule_and_changes_nothing() -> None:
    race = PlayerRace.fresh(DEAL)
    before = (race.snapshot(), race.game.to_dict())
    with pytest.raises(ProtocolError) as info:
        race.apply(MoveMsg(seq=1, move="R-F"), 10)
    assert info.value.code == "illegal-move" and info.value.rule
    assert (race.snapshot(), race.game.to_dict()) == before and race.seq == 0
    assert code_of(lambda: race.apply(MoveMsg(seq=1, move="X-9"), 10)) == "bad-move"
    assert code_of(lambda: race.apply(Undo(seq=1), 10)) == "nothing-to-undo"
    assert code_of(lambda: race.apply(Tap(seq=1, card="ZZ"), 10)) == "bad-card"
    assert (race.snapshot(), race.game.to_dict()) == before


def test_moves_taps_undo_and_give_up_build_a_log_that_replays() -> None:
    race = PlayerRace.fresh(DEAL)
    log = [
        race.apply(MoveMsg(seq=1, move="S"), 100),
        race.apply(Tap(seq=2, card="6H"), 200),  # 6H onto 7S, where the app sends it
        race.apply(Undo(seq=3), 300),
        race.apply(MoveMsg(seq=4, move="4-2"), 400),
    ]
    assert log == ["S", "4-2", "U", "4-2"]
    assert race.seq == 4 and race.moves == 3 and race.time_ms == 400
    assert replay(DEAL, log) == race.game
    assert race.apply(GiveUp(seq=5), 500) == "G" and race.done
    assert code_of(lambda: race.apply(MoveMsg(seq=6, move="S"), 600)) == "done"
    assert replay(DEAL, [*log, "G"]) == race.game


def test_a_snapshot_and_the_log_restore_the_exact_board_and_bookkeeping() -> None:
    race = PlayerRace.fresh(DEAL)
    log = [race.apply(MoveMsg(seq=seq, move=m), seq * 10) for seq, m in enumerate(["S", "4-2"], 1)]
    snap = race.snapshot()
    log += [race.apply(Undo(seq=3), 30), race.apply(MoveMsg(seq=4, move="S"), 40)]
    back = PlayerRace.from_snapshot(race.snapshot(), DEAL, log)
    assert back.game == race.game and back.board() == race.board()  # undo history included
    assert (back.seq, back.moves, back.status, back.reached) == (4, 3, "playing", race.reached)
    # a log longer than the snapshot (read with an older snapshot) replays only its part
    older = PlayerRace.from_snapshot(snap, DEAL, log)
    assert older.seq == 2 and older.game == replay(DEAL, log[:2])
    with pytest.raises(ValueError):
        PlayerRace.from_snapshot(race.snapshot(), DEAL, log[:3])


def test_the_board_shows_no_stock_card_and_no_reserve_card_under_its_top() -> None:
    race = PlayerRace.fresh(DEAL)
    text = msgspec.json.encode(race.board()).decode()
    hidden = [*race.game.stock, *race.game.reserve[:-1]]
    from canfield import card_text

    assert race.game.stock and len(race.game.reserve) > 1
    for card in hidden:
        assert card_text(card) not in text


# ---------------------------------------------------------------- ranking


def farm_layout() -> Game:
    """Foundation 7H 8H; 9H can go up and be taken back onto TS."""
    return Game.from_layout(
        foundations=[["7H", "8H"], [], [], []],
        tableau=[["9H"], ["TS"], ["2C"], ["3D"]],
        stock=["4S", "5S"],
    )


def test_won_games_rank_first_by_finish_time_then_cards_then_who_got_there_first() -> None:
    def row(pid: str, status: str, cards: int, at: int) -> StoredRow:

        return StoredRow(
            id=pid,
            name=pid,
            score=cards * 5,
            on_foundations=cards,
            moves=1,
            status=MemberStatus(status),
            time_ms=at,
            at=at,
        )

    rows = [
        row("slow-winner", "won", 52, 900),
        row("many", "playing", 30, 800),
        row("fast-winner", "won", 52, 500),
        row("same-later", "gave_up", 20, 700),
        row("same-earlier", "playing", 20, 600),
    ]
    order = [r.id for r in ranked(rows, connected={"many"})]
    assert order == ["fast-winner", "slow-winner", "many", "same-earlier", "same-later"]
    statuses = {r.id: r.status for r in ranked(rows, connected={"many"})}
    assert statuses["same-earlier"] == "disconnected" and statuses["same-later"] == "gave_up"


def test_farming_points_by_taking_back_and_replaying_never_raises_the_rank() -> None:
    early, farmer = PlayerRace(farm_layout()), PlayerRace(farm_layout())
    early.apply(MoveMsg(seq=1, move="1-F"), 50)  # 3 cards at 50 ms
    farmer.apply(MoveMsg(seq=1, move="1-F"), 100)  # 3 cards at 100 ms
    before = rank_key(farmer.row("f", "F"))
    seq = 2
    for t in range(150, 1150, 100):
        farmer.apply(MoveMsg(seq=seq, move="F1-2"), t)  # take 9H back onto TS
        farmer.apply(MoveMsg(seq=seq + 1, move="2-F"), t + 50)  # and up again
        seq += 2
    farm_row, early_row = farmer.row("f", "F"), early.row("e", "E")
    assert farm_row.score > early_row.score  # the app's score rewards farming...
    assert farm_row.on_foundations == early_row.on_foundations == 3
    assert rank_key(farm_row) == before  # ...the rank does not move
    assert [r.id for r in ranked([farm_row, early_row])] == ["e", "f"]


def test_the_useful_move_flag_is_not_fooled_by_a_card_taken_back() -> None:
    """Stuck, a racer takes a card back off a foundation: playing it home again
    is no progress, so "no useful move left" stays (it used to go away)."""
    from canfield_protocol import MoveMsg
    from canfield_server.room.race import PlayerRace

    from tests.shared.helpers import greedy_line

    race = PlayerRace.fresh("CF1-D3-AAAAAAN")
    for seq, move in enumerate(greedy_line("CF1-D3-AAAAAAN"), start=1):
        race.apply(MoveMsg(seq=seq, move=move), seq * 100)
    assert race.board()["useful_move"] is False
    back = next(m for m in race.game.legal_moves() if m.src == "F")
    race.apply(MoveMsg(seq=race.seq + 1, move=back.text()), 60_000)
    assert race.board()["useful_move"] is False


def test_the_useful_move_flag_is_the_search_s_answer_on_every_board_of_random_play() -> None:
    """The flag's shortcuts (a card home, a reserve card to play, a position seen
    before) answer as the engine's search does, wherever the stock is all seen."""
    import random

    from canfield.analysis import has_useful_move_seen
    from canfield_server.room.race import useful

    rng = random.Random(38)
    checked = 0
    for deal in ("CF1-D3-AAAAAAN", "CF1-D1-AAAAAAN", "CF1-D3-BENCHAA", "CF1-D1-BENCHAA"):
        game, best = Game.deal(deal), 0
        for _ in range(300):
            best = max(best, game.on_foundations)
            if not game.unseen_stock:
                assert useful(game, best) == bool(has_useful_move_seen(game, best=best))
                checked += 1
            moves = list(game.legal_moves())
            if not moves:
                break
            game.push(rng.choice(moves))
    assert checked > 100
