// What changed on the board, in words: the sentence the race board says in its
// aria-live region after each position ("Drew 3 of clubs", "Moved ... to column 2").

import { t } from "./i18n.js";
import { cardName, cardNames } from "./cards.js";

/** Every face-up card the player sees, and the place it lies in (text). */
function places(board) {
  const at = new Map();
  if (board.reserve.top) at.set(board.reserve.top, t("reserve"));
  const fan = board.waste.fan;
  if (fan.length) at.set(fan[fan.length - 1], t("waste"));
  board.foundations.forEach((pile, i) => pile.forEach((card) => at.set(card, `${t("foundation")} ${i + 1}`)));
  board.tableau.forEach((col, j) => col.forEach((card) => at.set(card, t("column", { n: j + 1 }))));
  return at;
}

/** One sentence for what changed between two positions ("" when nothing did). */
export function describe(before, after) {
  const was = places(before);
  const now = places(after);
  const said = [];
  const stockBefore = before.stock.count;
  const stockAfter = after.stock.count;
  if (stockAfter < stockBefore) {
    said.push(t("said_drew", { cards: cardNames(after.waste.fan) }));
  } else if (stockAfter > stockBefore) {
    said.push(before.stock.count === 0 && after.waste.count === 0 ? t("said_recycled") : t("said_undrawn"));
    const top = after.waste.fan[after.waste.fan.length - 1];
    if (top) said.push(t("said_waste_top", { card: cardName(top) }));
  }
  // cards that changed place, grouped by where they went (a run moves together)
  const groups = new Map();
  for (const [card, place] of now) {
    const from = was.get(card);
    if (!from || from === place) continue;
    if (from === t("waste") && place === t("waste")) continue;
    const key = `${from}\u0000${place}`;
    if (!groups.has(key)) groups.set(key, { from, to: place, cards: [] });
    groups.get(key).cards.push(card);
  }
  for (const { from, to, cards } of groups.values()) {
    said.push(t("said_moved", { cards: cardNames(cards), from, to }));
  }
  if (after.reserve.top && after.reserve.top !== before.reserve.top && !was.has(after.reserve.top)) {
    said.push(t("said_reserve_top", { card: cardName(after.reserve.top) }));
  }
  const topBefore = before.waste.fan[before.waste.fan.length - 1];
  const topAfter = after.waste.fan[after.waste.fan.length - 1];
  if (stockAfter === stockBefore && topAfter && topAfter !== topBefore && !was.has(topAfter)) {
    said.push(t("said_waste_top", { card: cardName(topAfter) }));
  }
  if (after.won && !before.won) said.push(t("you_won"));
  return said.join(". ");
}
