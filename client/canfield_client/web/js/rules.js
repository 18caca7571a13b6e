// The few Canfield rules the page needs to highlight legal drop targets while
// dragging. The server stays the only judge: it checks every move again.

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";

export const rankOf = (card) => RANKS.indexOf(card[0]);
export const suitOf = (card) => SUITS.indexOf(card[1]);
export const isRed = (card) => card[1] === "D" || card[1] === "H";

/** Opposite colour and exactly one rank lower; an ace takes a king. */
export function buildsOn(child, parent) {
  return isRed(child) !== isRed(parent) && rankOf(child) === (rankOf(parent) + 12) % 13;
}

/** How many cards at the end of a column form one movable run. */
export function runLength(column) {
  if (!column.length) return 0;
  let n = 1;
  while (n < column.length && buildsOn(column[column.length - n], column[column.length - n - 1])) {
    n += 1;
  }
  return n;
}

/**
 * The foundation slot that takes card now, or -1. Suits keep their slot and
 * ranks wrap K->A; foundation 1 belongs to the base card's suit (baseSuit,
 * e.g. "H"; null when unknown), the others open left to right.
 */
export function foundationSlot(foundations, startRank, card, baseSuit = null) {
  const own = foundations.findIndex((pile) => pile.length && pile[0][1] === card[1]);
  if (own >= 0) {
    const pile = foundations[own];
    const next = (rankOf(pile[pile.length - 1]) + 1) % 13;
    return pile.length < 13 && rankOf(card) === next ? own : -1;
  }
  if (card[0] !== startRank) return -1;
  if (card[1] === baseSuit) return foundations[0].length ? -1 : 0;
  const first = baseSuit ? 1 : 0;
  const free = foundations.slice(first).findIndex((pile) => !pile.length);
  return free < 0 ? -1 : free + first;
}

/**
 * Where a picked-up source may go: "F" and/or "T0".."T3".
 * source: {pile: "R"|"W"|"T"|"F", index, count, card}; board: the server's player view.
 */
export function legalTargets(board, source, baseSuit = null) {
  const found = [];
  const { card } = source;
  if (source.count === 1 && source.pile !== "F") {
    if (foundationSlot(board.foundations, board.start_rank, card, baseSuit) >= 0) found.push("F");
  }
  board.tableau.forEach((column, j) => {
    if (source.pile === "T" && source.index === j) return;
    const ok = column.length
      ? buildsOn(card, column[column.length - 1])
      : board.reserve.count === 0;
    if (ok) found.push(`T${j}`);
  });
  return found;
}

/** The engine's move text for a source dropped on a target ("F" or "T2"). */
export function moveText(source, target) {
  let from;
  if (source.pile === "T") from = source.count > 1 ? `${source.index + 1}:${source.count}` : `${source.index + 1}`;
  else if (source.pile === "F") from = `F${source.index + 1}`;
  else from = source.pile;
  const to = target === "F" ? "F" : String(Number(target.slice(1)) + 1);
  return `${from}-${to}`;
}

/**
 * A move's text (docs/moves.md: S, R-F, W-3, 2:3-4, F1-3) as
 * {src: {pile, index, count}, dst}: dst is "F", "T0".."T3", or null for S.
 * Null for text it cannot read.
 */
export function parseMove(text) {
  const m = /^\s*(?:(S)|(R|W)|F([1-4])|([1-4])(?::(\d+))?)(?:-(F|[1-4]))?\s*$/i.exec(text || "");
  if (!m) return null;
  if (m[1]) return m[6] ? null : { src: { pile: "S", index: 0, count: 0 }, dst: null };
  if (!m[6]) return null;
  let src;
  if (m[2]) src = { pile: m[2].toUpperCase(), index: 0, count: 1 };
  else if (m[3]) src = { pile: "F", index: Number(m[3]) - 1, count: 1 };
  else src = { pile: "T", index: Number(m[4]) - 1, count: Number(m[5] || 1) };
  const dst = m[6].toUpperCase() === "F" ? "F" : `T${Number(m[6]) - 1}`;
  return { src, dst };
}
