// What the page can know of a board action before the server answers: the
// board after a move or a tap that turns up no hidden card (a move between
// columns, a card home, a card back from a foundation, the waste's next card
// when the fan shows it, the stock turned over). A draw, the reserve's next
// card, or a column refilled from the reserve turns one up: no guess, the page
// waits for the server. The server stays the only judge: js/state.js sends
// every action and puts its answer in place of the guess.

import { ReplayGame } from "./replay.js";
import { legalTargets, moveText, parseMove, runLength } from "./rules.js";

/** A card the player has not seen (never a card's text). */
const HIDDEN = "?";

const top = (pile) => (pile.length ? pile[pile.length - 1] : null);

/** A move's source on `board` with the card it picks up ({pile, index, count, card}), or null. */
function sourceOf(board, src) {
  let card = null;
  if (src.pile === "R") card = board.reserve.top;
  else if (src.pile === "W") card = top(board.waste.fan);
  else if (src.pile === "F") card = top(board.foundations[src.index]);
  else {
    const col = board.tableau[src.index];
    if (src.count >= 1 && src.count <= runLength(col)) card = col[col.length - src.count];
  }
  return card ? { ...src, card } : null;
}

/** Where a tapped card starts ({pile, index, count, card}), as the engine's `locate`. */
function locate(board, card) {
  if (board.reserve.top === card) return { pile: "R", index: 0, count: 1, card };
  if (top(board.waste.fan) === card) return { pile: "W", index: 0, count: 1, card };
  for (const [index, col] of board.tableau.entries()) {
    const at = col.indexOf(card);
    if (at >= 0) return col.length - at <= runLength(col) ? { pile: "T", index, count: col.length - at, card } : null;
  }
  const slot = board.foundations.findIndex((pile) => top(pile) === card);
  return slot >= 0 ? { pile: "F", index: slot, count: 1, card } : null;
}

/**
 * The move a tap on `card` makes, as the engine's `tap_move`: home when it can
 * go; else, with "double click" on, the longest column that takes it (the
 * leftmost of equals), then the leftmost empty one (never a whole column).
 * Null when it goes nowhere (or is a foundation's card).
 */
export function tapMove(board, card, doubleClick = true, baseSuit = null) {
  const source = locate(board, card);
  if (!source || source.pile === "F") return null;
  const legal = legalTargets(board, source, baseSuit);
  if (legal.includes("F")) return moveText(source, "F");
  if (!doubleClick) return null;
  const whole = source.pile === "T" && source.count === board.tableau[source.index].length;
  let best = null;
  let height = -1;
  for (const target of legal) {
    const size = board.tableau[Number(target.slice(1))].length;
    if (size > height && !(whole && size === 0)) [best, height] = [target, size];
  }
  return best && moveText(source, best);
}

/** Whether the engine takes move `text` on `board` (the rules of js/rules.js). */
function legal(board, text, baseSuit) {
  const move = parseMove(text);
  if (!move) return false;
  if (move.src.pile === "S") return board.stock.count + board.waste.count > 0;
  const source = sourceOf(board, move.src);
  return Boolean(source) && legalTargets(board, source, baseSuit).includes(move.dst);
}

const shows = (view, card) =>
  view.reserve.top === card || view.waste.fan.includes(card) || (view.waste.under ?? []).includes(card);

/**
 * The board after `action` ({type: "move", move} or {type: "tap", card,
 * double_click}) on the player's `board`, if the page can know it:
 * {board, move} (the board without `useful_move`, which only the server
 * works out). Null for any other action, an illegal one, or one that turns up
 * a card the board does not show.
 */
export function guess(board, action, baseSuit = null) {
  if (!board) return null;
  let text = null;
  if (action.type === "move") text = String(action.move).trim().toUpperCase();
  else if (action.type === "tap") text = tapMove(board, action.card, action.double_click !== false, baseSuit);
  if (!text || !legal(board, text, baseSuit)) return null;
  const game = ReplayGame.fromView(board, baseSuit, HIDDEN);
  game.apply(text);
  const next = game.view();
  if (shows(next, HIDDEN)) return null;
  delete next.useful_move;
  return { board: next, move: text };
}

/** Whether two values are the same JSON (key order aside). */
function equal(a, b) {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => equal(a[key], b[key]));
}

/** Whether two player views show the same board (`useful_move` aside). */
export function sameBoard(a, b) {
  if (!a || !b) return a === b;
  const { useful_move: _a, ...one } = a;
  const { useful_move: _b, ...two } = b;
  return equal(one, two);
}
