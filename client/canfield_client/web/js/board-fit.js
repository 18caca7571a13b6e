// Fitting the race board to the window: the card size (seven-wide or four-wide,
// whichever gives bigger cards) and each column's fan, squeezed to fit above the
// window's bottom, then scrolling inside itself. Methods of BoardView
// (js/board.js): they read its root, board and `fits`.

import { h } from "./dom.js";

const MAX_CARD = 240;
const MIN_CARD = 36;
/** the widest fan of a column, in card heights (a whole corner shows) */
const FAN_MAX = 0.27;
/** the smallest corner font a squeezed card keeps (rank and suit readable), in px */
const MIN_CORNER = 11;
/** a card's corner starts this far down the card, in card heights (app.css .corner top) */
const CORNER_TOP = 0.03;
/** how far a long column may shrink the cards (of their size for the usual fans) before it
 * scrolls: on a wide board, and on a phone's four-wide one (fingers need the bigger cards) */
const SHRINK_MIN = 0.6;
const SHRINK_MIN_NARROW = 0.75;
/** column fans a board is sized for before the fans squeeze: a column of this many cards fits */
const FAN_BUDGET = 5;
/** a capped board's column holds at most this many cards below its first (a whole run,
 * king to ace) at the thinnest readable strip; a longer one scrolls */
const RUN_CARDS = 12;
/** ... and on cards too small for that, its fan at most this many card heights (so that a
 * grid of boards shrinking its cards to show them all shrinks their columns too) */
const CAPPED_CARDS = 2.5;
/** room under the stock, waste and reserve for their counts, in px */
const COUNT_LINE = 28;

export const fitting = {
  /**
   * Size the cards to the window and fit every column above the window's
   * bottom: a long column's fan squeezes evenly, its cards' corners shrinking
   * with it down to a readable size; past that the column scrolls inside
   * itself (showing its end, where play is), never the page. A board among
   * others (a spectator's grid of the racers' boards: `capped`) keeps each
   * column within the height of a 13-card run at that size, so it never
   * spills over the board below it.
   */
  layout() {
    const grid = this.root.firstElementChild;
    if (!grid) return;
    if (this.fits) this.fit(grid);
    const probe = grid.querySelector(".stock .card");
    if (probe && !probe.offsetHeight) return; // not shown: laid out when it is (ResizeObserver)
    const ch = probe ? probe.offsetHeight : 100;
    const cw = probe ? probe.offsetWidth : 70;
    const smallest = MIN_CORNER + 1 + ch * CORNER_TOP; // the thinnest strip that shows a corner
    const bottom = window.innerHeight - this.bottomSpace();
    for (const col of grid.querySelectorAll(".column")) {
      const n = Number(col.style.getPropertyValue("--n")) || 1;
      // a capped board's column: a run at the thinnest readable strips, on small cards
      // no taller than CAPPED_CARDS card heights (their strips are small too)
      const capped = ch + Math.min(RUN_CARDS * smallest, CAPPED_CARDS * ch);
      const room = this.capped ? capped : Math.max(bottom - col.getBoundingClientRect().top, ch);
      const even = n > 1 ? (room - ch) / (n - 1) : 0;
      const fan = n > 1 ? Math.min(ch * FAN_MAX, Math.max(smallest, even)) : 0;
      col.style.setProperty("--fan", `${fan}px`);
      const corner = Math.min(cw * 0.3, fan - 1 - ch * CORNER_TOP);
      if (n > 1 && corner < cw * 0.3) col.style.setProperty("--corner", `${Math.floor(corner)}px`);
      else col.style.removeProperty("--corner");
      const scrolls = (this.fits || this.capped) && n > 1 && even < smallest;
      col.classList.toggle("scrolls", scrolls);
      col.style.maxHeight = scrolls ? `${Math.floor(room)}px` : "";
      if (scrolls) col.scrollTop = col.scrollHeight; // the end of the column, where play is
      markHidden(col, scrolls, ch * CORNER_TOP);
    }
  },

  /**
   * The card width that fills the board's width and the window's height below
   * its top, for the classic seven-wide layout (stock, waste, foundations over
   * reserve and columns) and the four-wide one (foundations; stock, waste,
   * reserve; columns). The four-wide one wins where it gives clearly bigger
   * cards: on a phone, or a narrow window.
   */
  fit(grid) {
    const width = this.root.clientWidth;
    if (!width) return; // hidden: sized when shown (the ResizeObserver calls again)
    const top = this.root.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(window.innerHeight - this.bottomSpace() - top, 240);
    const columns = 1 + FAN_BUDGET * FAN_MAX; // a column's height, in card heights
    // the longest column at the thinnest readable strip (MIN_CORNER + 1 px + CORNER_TOP card heights a card)
    const longest = Math.max(...(this.board?.tableau || [[]]).map((col) => col.length), 1) - 1;
    const size = (cols, rows, gapShare, gapMax, shrink) => {
      const gap = Math.min(gapMax, Math.max(4, width * gapShare));
      const byWidth = (width - (cols - 1) * gap) / cols;
      const free = height - COUNT_LINE - rows * gap * 0.6;
      const byHeight = free / ((rows + columns) * 1.4);
      // a long column shrinks the cards so that it fits, down to SHRINK_MIN; then it scrolls
      const strips = free - longest * (MIN_CORNER + 1) - 4; // 4 px to spare: rounding
      const byColumn = strips / ((rows + 1) * 1.4 + longest * CORNER_TOP * 1.4);
      const cw = Math.min(byWidth, byHeight, MAX_CARD);
      return { cw: Math.floor(Math.min(cw, Math.max(byColumn, cw * shrink))), gap };
    };
    const wide = size(7, 1, 0.012, 14, SHRINK_MIN);
    const narrow = size(4, 2, 0.022, 10, SHRINK_MIN_NARROW);
    const four = narrow.cw > wide.cw * 1.2;
    const { cw, gap } = four ? narrow : wide;
    grid.classList.toggle("narrow", four);
    grid.style.setProperty("--cw", `${Math.max(MIN_CARD, cw)}px`);
    grid.style.setProperty("--gap", `${Math.round(gap)}px`);
  },

  /** The space the page keeps under the board (its bottom padding, what the page puts
   * below the board, and a little). */
  bottomSpace() {
    const main = this.root.closest("main");
    return (main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0) + this.spaceBelow() + 4;
  },
};

/**
 * A scrolled column's cue, pinned to the top of its view: "▲ 5", the cards
 * above it whose corners are out of sight (else a player sees no sign of them),
 * kept as the column scrolls; gone when every corner shows.
 */
function markHidden(col, scrolls, lead) {
  let cue = col.querySelector(":scope > .more-above");
  if (!scrolls) {
    cue?.remove();
    return;
  }
  if (!cue) {
    cue = h("div", { class: "more-above", "aria-hidden": "true" }, h("span"));
    col.prepend(cue);
    col.addEventListener("scroll", () => countHidden(col, cue, lead), { passive: true });
  }
  countHidden(col, cue, lead);
}

function countHidden(col, cue, lead) {
  const fan = parseFloat(col.style.getPropertyValue("--fan")) || 1;
  // card i's corner starts at i * fan + lead: out of sight above the view's top
  const n = Math.max(0, Math.ceil((col.scrollTop - lead - 0.5) / fan));
  cue.hidden = n === 0;
  cue.firstChild.textContent = `\u25b2 ${n}`;
}
