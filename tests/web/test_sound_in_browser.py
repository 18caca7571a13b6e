"""Sound and vibration in a real browser: the countdown's seconds and its go,
a draw, a card home, an illegal drop and a rival's finish each make their
sound; the Settings switch silences all of them and is remembered after a
reload; vibration stays off under reduced motion.

The page's Web Audio and vibration calls are recorded by a stand-in for the
two browser APIs (headless Chromium has no speaker): what is checked is that
the page asks for the right notes at the right moments, and for none when off.
"""

from __future__ import annotations

from canfield import Game, Move
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.web.helpers import DEAL, HOME_MOVES
from tests.web.pages import (
    card,
    create_room,
    drag,
    give_up,
    join_by_link,
    new_page,
    picked_card,
    set_deal,
    wait_board,
)

#: the first note of each cue (sound.js CUES)
DRAW, HOME, ILLEGAL, TICK, GO, RIVAL = 520, 660, 150, 440, 880, 587

RECORDER = """
window.__notes = [];
window.__buzz = [];
class Recorded {
  constructor() { this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() {
    const node = { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} } };
    node.connect = (next) => next;
    return node;
  }
  createOscillator() {
    let frequency = 0;
    return {
      type: "",
      frequency: { setValueAtTime: (value) => { frequency = value; } },
      connect: (next) => next,
      start: () => window.__notes.push(frequency),
      stop() {},
    };
  }
}
window.AudioContext = Recorded;
navigator.vibrate = (pattern) => { window.__buzz.push(pattern); return true; };
"""


def notes(page: Page) -> list[float]:
    return page.evaluate("window.__notes")


def heard(page: Page, note: float) -> None:
    page.wait_for_function(f"window.__notes.includes({note})")


def toggle_sound(page: Page) -> None:
    page.click("#settings summary")
    page.click("#pref-sound")
    page.click("#settings summary")


def test_each_moment_sounds_and_the_switch_silences_it_all(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    ana = new_page(browser)
    ana.add_init_script(RECORDER)
    bob = new_page(browser)
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    set_deal(ana, DEAL)
    bob.click("#ready")
    expect(ana.locator("#players .ready-mark.on")).to_have_count(1)
    ana.click("#start")
    wait_board(ana)
    wait_board(bob)
    heard(ana, GO)  # the countdown's "go" (its seconds may pass before a frame shows them)
    assert ana.evaluate("window.__buzz.length") > 0  # and a buzz with it

    game = Game.deal(DEAL)
    move = Move.parse(HOME_MOVES[0])
    ana.locator(f'#board .card[data-card="{picked_card(game, move)}"]').click(
        position={"x": 12, "y": 8}
    )
    heard(ana, HOME)
    game.push(move)
    bad = next(
        Move("T", i, 1, "T", j)
        for i in range(4)
        for j in range(4)
        if i != j
        and game.tableau[i]
        and game.tableau[j]
        and not game.is_legal(Move("T", i, 1, "T", j))
    )
    target = ana.locator(f'#board .column[data-drop="T{bad.dst_index}"]')
    ana.wait_for_function(  # the card home has landed: a drag starts from still cards
        "() => !document.querySelector('#board').getAnimations({subtree: true}).length"
    )
    drag(ana, card(ana, picked_card(game, bad)), target)
    expect(ana.locator("#toast")).to_contain_text("cannot go on")
    heard(ana, ILLEGAL)
    expect(ana.locator(".ghost")).to_have_count(0)  # the dropped card is back
    ana.click("#board .stock")
    heard(ana, DRAW)
    give_up(bob)
    heard(ana, RIVAL)

    # off: nothing more is played, and it stays off after a reload
    toggle_sound(ana)
    before = len(notes(ana))
    ana.click("#board .stock")
    expect(ana.locator("#board .stock .count")).to_have_text("28")
    assert len(notes(ana)) == before  # the draw was silent
    ana.reload()
    wait_board(ana)
    ana.click("#settings summary")
    expect(ana.locator("#pref-sound")).not_to_be_checked()
    ana.click("#settings summary")
    ana.click("#board .stock")
    expect(ana.locator("#board .stock .count")).to_have_text("25")
    assert notes(ana) == []  # a fresh page: the reload cleared the record, and nothing since


def test_no_vibration_under_reduced_motion(browser: Browser, shared_server: ServerProcess) -> None:
    ana = new_page(browser, reduced_motion="reduce")
    ana.add_init_script(RECORDER)
    create_room(ana, shared_server.http_url, "Ana")
    set_deal(ana, DEAL)
    ana.click("#start")
    wait_board(ana)
    heard(ana, GO)
    assert ana.evaluate("window.__buzz") == []
