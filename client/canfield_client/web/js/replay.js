// Rebuilds a player's boards from the deal code and their list of actions, so
// the results page can step through any replay. The server already checked
// every move; this only applies them (undo restores the saved position).

import { dealDeck, parseDealCode } from "./dealcode.js";
import { clock, h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { foundationSlot } from "./rules.js";
import { moveWords } from "./words.js";

export class ReplayGame {
  constructor(code) {
    const parsed = parseDealCode(code);
    if (!parsed) throw new Error(`not a deal code: ${code}`);
    const deck = dealDeck(parsed.letters);
    this.draw = parsed.draw;
    this.startRank = deck[13][0];
    this.baseSuit = deck[13][1];
    this.reserve = deck.slice(0, 13);
    this.foundations = [[deck[13]], [], [], []];
    this.tableau = [[deck[14]], [deck[15]], [deck[16]], [deck[17]]];
    this.stock = deck.slice(18).reverse(); // the last item is turned next
    this.waste = [];
    this.fan = 0;
    this.score = 0;
    this.history = [];
    this.gaveUp = false;
  }

  /**
   * The game a player's board shows (the server's player view), every card the
   * view does not show standing as `hidden`: a move applied to it that turns one
   * up shows `hidden` in its view (js/predict.js). `baseSuit`: the suit that owns
   * foundation 1 ("H"), as the board learnt it.
   */
  static fromView(view, baseSuit, hidden) {
    const under = (n) => Array(Math.max(0, n)).fill(hidden);
    const beneath = view.waste.under ?? [];
    const game = Object.create(ReplayGame.prototype);
    return Object.assign(game, {
      draw: view.draw,
      startRank: view.start_rank,
      baseSuit,
      reserve: view.reserve.top ? [...under(view.reserve.count - 1), view.reserve.top] : [],
      foundations: view.foundations.map((pile) => [...pile]),
      tableau: view.tableau.map((col) => [...col]),
      stock: under(view.stock.count),
      // Draw 3's seen cards beneath a short fan (`under`: absent from an older server)
      waste: [...under(view.waste.count - beneath.length - view.waste.fan.length), ...beneath, ...view.waste.fan],
      fan: view.waste.fan.length,
      score: view.score,
      history: [],
      gaveUp: false,
    });
  }

  snapshot() {
    return JSON.stringify([this.reserve, this.foundations, this.tableau, this.stock, this.waste, this.fan, this.score]);
  }

  /** Apply one action: a move text, "U" (undo) or "G" (give up). */
  apply(text) {
    const move = String(text).trim().toUpperCase();
    if (move === "G") {
      this.gaveUp = true;
      return;
    }
    if (move === "U") {
      const saved = this.history.pop();
      if (saved) {
        [this.reserve, this.foundations, this.tableau, this.stock, this.waste, this.fan, this.score] = JSON.parse(saved);
      }
      return;
    }
    this.history.push(this.snapshot());
    if (move === "S") this.tapStock();
    else this.moveCards(move);
  }

  tapStock() {
    if (this.stock.length) {
      const n = Math.min(this.draw, this.stock.length);
      for (let i = 0; i < n; i += 1) this.waste.push(this.stock.pop());
      this.fan = n;
    } else {
      this.stock = this.waste.reverse();
      this.waste = [];
      this.fan = 0;
    }
  }

  moveCards(move) {
    const [from, to] = move.split("-");
    let cards;
    let column = -1;
    if (from === "R") cards = [this.reserve.pop()];
    else if (from === "W") {
      cards = [this.waste.pop()];
      this.fan = this.fan > 1 ? this.fan - 1 : this.waste.length ? 1 : 0;
    } else if (from[0] === "F") cards = [this.foundations[Number(from[1]) - 1].pop()];
    else {
      const [col, count] = from.split(":");
      column = Number(col) - 1;
      cards = this.tableau[column].splice(-Number(count || 1));
    }
    if (to === "F") {
      const slot = foundationSlot(this.foundations, this.startRank, cards[0], this.baseSuit);
      this.foundations[slot].push(cards[0]);
      this.score += 5;
    } else {
      this.tableau[Number(to) - 1].push(...cards);
    }
    if (column >= 0 && !this.tableau[column].length && this.reserve.length) {
      this.tableau[column].push(this.reserve.pop());
    }
  }

  /** The same shape as the server's player view, so the board renders it. */
  /** The waste as the engine's view has it: the last draw's fan and, in Draw 3, the
   * seen cards beneath it up to the top three (canfield.Game.view). */
  wasteView() {
    const fan = this.waste.length ? this.waste.slice(-Math.max(this.fan, 1)) : [];
    const shown = this.draw === 3 ? Math.min(this.waste.length, 3) : fan.length;
    const under = this.waste.slice(this.waste.length - shown, this.waste.length - fan.length);
    return { fan, under, count: this.waste.length };
  }

  view() {
    const onFoundations = this.foundations.reduce((sum, pile) => sum + pile.length, 0);
    return {
      draw: this.draw,
      start_rank: this.startRank,
      reserve: { top: this.reserve[this.reserve.length - 1] || null, count: this.reserve.length },
      foundations: this.foundations.map((pile) => [...pile]),
      tableau: this.tableau.map((col) => [...col]),
      stock: { count: this.stock.length },
      waste: this.wasteView(),
      score: this.score,
      on_foundations: onFoundations,
      won: onFoundations === 52,
      can_undo: this.history.length > 0,
      useful_move: true,
    };
  }
}

const PLAY_STEP_MS = 450;
/** the speeds the speed button goes through (each press the next, then back to 1x) */
const SPEEDS = [1, 2, 4, 8];
/** playing at the race's own pace, a pause longer than this is cut to it */
const LONGEST_WAIT_MS = 8000;

/** A moment of the race with tenths: "0:12.4". */
export function stepClock(ms) {
  return `${clock(ms)}.${Math.floor(Math.max(0, ms) / 100) % 10}`;
}
const CONTROLS = [
  ["rp-first", "first", "#i-first"],
  ["rp-back", "step_back", "#i-back"],
  ["rp-play", "play", "#i-play"],
  ["rp-forward", "step_forward", "#i-fwd"],
  ["rp-last", "last", "#i-last"],
];

/**
 * One player's replay, stepped or played, on a read-only board: the results
 * view and the shared replay page both use it. It adds its buttons after the
 * player picker in `bar` and its step line after `bar`; `onPaint(player)` lets
 * a page show more of each step.
 */
export class ReplayStepper {
  constructor(bar, board, onPaint = () => {}) {
    this.board = board;
    this.onPaint = onPaint;
    this.deal = null;
    this.moves = [];
    /** when the server received each move (ms since the racer's start), or null */
    this.times = null;
    this.frames = [];
    this.step = 0;
    this.timer = null;
    /** the move that lost the win (its index in the moves played), or null */
    this.slip = null;
    /** while the solver's winning line is shown: the moves played and their positions */
    this.own = null;
    const buttons = CONTROLS.map(([id, label, symbol]) =>
      h("button", { type: "button", id, title: t(label), "aria-label": t(label), dataset: { i18nTitle: label } }, icon(symbol)),
    );
    // how fast play goes (the race's own pace, or the solver's line): 1x 2x 4x 8x
    this.speed = 1;
    this.speedButton = h("button", { type: "button", id: "rp-speed", class: "speed" });
    this.speedButton.addEventListener("click", () => {
      this.speed = SPEEDS[(SPEEDS.indexOf(this.speed) + 1) % SPEEDS.length];
      this.paint();
    });
    bar.append(...buttons, this.speedButton);
    // the arrow keys step while the focus is on the buttons (Home, End: the ends)
    bar.addEventListener("keydown", (e) => this.key(e));
    this.stepText = h("span", { id: "rp-step" });
    this.timeText = h("span", { id: "rp-time", hidden: true, dataset: { i18nTitle: "rp_time" }, title: t("rp_time") });
    this.moveText = h("code", { id: "rp-move" });
    this.moveWords = h("span", { id: "rp-words" });
    // the race as a bar: where this step is, and the move that lost the win
    this.fill = h("span", { class: "fill" });
    this.slipMark = h("span", { class: "slip-mark", hidden: true });
    this.timeline = h("div", { class: "timeline", "aria-hidden": "true" }, this.fill, this.slipMark);
    this.timeline.addEventListener("click", (e) => {
      const box = this.timeline.getBoundingClientRect();
      this.go(Math.round(((e.clientX - box.left) / box.width) * (this.frames.length - 1)));
    });
    this.hint = h("p", { class: "hint" }, this.stepText, " ", this.timeText, " ", this.moveText, " ", this.moveWords);
    bar.after(this.timeline, this.hint);
    const [first, back, play, forward, last] = buttons;
    this.playButton = play;
    first.addEventListener("click", () => this.go(0));
    back.addEventListener("click", () => this.go(this.step - 1));
    forward.addEventListener("click", () => this.go(this.step + 1));
    last.addEventListener("click", () => this.go(this.frames.length - 1));
    play.addEventListener("click", () => this.togglePlay());
  }

  /** Rebuild every position of a race from its deal code; false when the code is
   * unreadable. `times`: when each move was received (a replay kept before times
   * were kept has none: then no clock, and play keeps an even pace). */
  load(deal, moves, times = null) {
    this.stop();
    this.deal = deal;
    this.own = null;
    this.slip = null;
    this.moves = moves || [];
    this.times = Array.isArray(times) && times.length === this.moves.length ? times : null;
    this.frames = this.positions(this.moves) || [];
    this.step = 0;
    this.paint();
    return this.frames.length > 0;
  }

  /** Every position of `moves` from the deal (null: the deal code is unreadable). */
  positions(moves) {
    try {
      const game = new ReplayGame(this.deal);
      const frames = [game.view()];
      for (const move of moves) {
        game.apply(move);
        frames.push(game.view());
      }
      return frames;
    } catch {
      return null;
    }
  }

  /** Mark the move that lost the win (its index in the moves played; null: none). */
  mark(slip) {
    this.back();
    this.slip = slip;
    this.paint();
  }

  /** Step through the solver's winning `line` from the position before the slip
   * instead of the moves played (`back` returns to them). */
  follow(line) {
    if (this.slip == null || this.own) return;
    const moves = [...this.moves.slice(0, this.slip), ...line];
    const frames = this.positions(moves);
    if (!frames) return;
    this.stop();
    this.own = { moves: this.moves, frames: this.frames };
    this.moves = moves;
    this.frames = frames;
    this.go(this.slip);
  }

  back() {
    if (!this.own) return;
    this.stop();
    ({ moves: this.moves, frames: this.frames } = this.own);
    this.own = null;
    this.go(this.slip ?? 0);
  }

  following() {
    return this.own !== null;
  }

  go(step) {
    if (!this.frames.length) return;
    this.step = Math.max(0, Math.min(step, this.frames.length - 1));
    this.paint();
    if (this.step === this.frames.length - 1) this.stop();
  }

  paint() {
    const at = this.step;
    const from = this.own ? this.slip : null;
    this.stepText.textContent =
      from !== null && at > from
        ? t("rv_line_step", { i: at - from, n: this.moves.length - from })
        : t("step", { i: at, n: this.moves.length });
    this.paintTimeline();
    const atMs = this.timeAt(at);
    this.timeText.hidden = atMs === null;
    this.timeText.textContent = atMs === null ? "" : `\u00b7 ${stepClock(atMs)}`;
    this.timeText.title = t("rp_time");
    this.moveText.textContent = at ? this.moves[at - 1] : "";
    this.moveWords.textContent = at ? moveWords(this.frames[at - 1], this.moves[at - 1]) : "";
    const speed = `${this.speed}\u00d7`;
    this.speedButton.textContent = speed;
    this.speedButton.title = t("rp_speed");
    this.speedButton.setAttribute("aria-label", t("rp_speed_now", { x: speed }));
    const play = this.playButton;
    play.replaceChildren(icon(this.timer ? "#i-pause" : "#i-play"));
    play.title = t(this.timer ? "pause" : "play");
    play.setAttribute("aria-label", play.title);
    this.board.render(this.frames[at] || null);
    this.onPaint(this);
  }

  paintTimeline() {
    const last = Math.max(this.frames.length - 1, 1);
    this.fill.style.width = `${(100 * this.step) / last}%`;
    this.timeline.classList.toggle("following", this.own !== null);
    this.slipMark.hidden = this.slip == null;
    if (this.slip != null) {
      // the slip is the step after the position it was played from
      this.slipMark.style.left = `${(100 * (this.slip + 1)) / last}%`;
      this.slipMark.title = t("rv_slip", { n: this.slip + 1 });
    }
    this.hint.classList.toggle("at-slip", this.own === null && this.slip != null && this.step === this.slip + 1);
  }

  /** When step `at`'s move was received (0 at the start); null without times, and
   * on the solver's line (nobody played it). */
  timeAt(at) {
    if (!this.times || (this.own && at > this.slip)) return null;
    return at ? this.times[at - 1] : 0;
  }

  /** How long to wait before the next step: the race's own pace where it has times,
   * else an even one; either sped up by the speed chosen. */
  nextWait() {
    const from = this.timeAt(this.step);
    const to = this.timeAt(this.step + 1);
    const wait = from === null || to === null ? PLAY_STEP_MS : Math.max(0, Math.min(to - from, LONGEST_WAIT_MS));
    return wait / this.speed;
  }

  /** A key on the controls: the arrows step back and forward, Home and End go to the
   * ends (not on the player picker, whose arrows pick). */
  key(e) {
    if (e.target.tagName === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.frames.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }

  togglePlay() {
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.step >= this.frames.length - 1) this.step = 0;
    const next = () => {
      this.timer = setTimeout(() => {
        this.go(this.step + 1);
        if (this.timer) next();
      }, this.nextWait());
    };
    next();
    this.paint();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.frames.length) this.paint();
  }
}
