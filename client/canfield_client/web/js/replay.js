// Rebuilds a player's boards from the deal code and their list of actions, so
// the results page can step through any replay. The server already checked
// every move; this only applies them (undo restores the saved position).

import { dealDeck, parseDealCode } from "./dealcode.js";
import { foundationSlot } from "./rules.js";

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
  view() {
    const onFoundations = this.foundations.reduce((sum, pile) => sum + pile.length, 0);
    return {
      draw: this.draw,
      start_rank: this.startRank,
      reserve: { top: this.reserve[this.reserve.length - 1] || null, count: this.reserve.length },
      foundations: this.foundations.map((pile) => [...pile]),
      tableau: this.tableau.map((col) => [...col]),
      stock: { count: this.stock.length },
      waste: { fan: this.waste.slice(-Math.max(this.fan, 1)), count: this.waste.length },
      score: this.score,
      on_foundations: onFoundations,
      won: onFoundations === 52,
      can_undo: this.history.length > 0,
      useful_move: true,
    };
  }
}
