// The player's race board: renders the server's player view and turns pointer
// drags (mouse or touch), taps and keys into move requests (those two in
// js/board-pointer.js and js/board-keys.js; fitting the window in js/board-fit.js,
// the changes in words in js/board-describe.js; this module renders and animates).
// It never changes the position itself; the server's reply does (or the drop
// snaps back).
//
// The race board (an interactive one) also:
//  - sizes its cards from the viewport (width and height) and switches to a
//    four-wide layout where that gives bigger cards (a phone); a read-only
//    board asks for the same sizing with `fit` (the shared replay page);
//  - animates what changed between two positions (FLIP: each card starts
//    where it was and slides to where it is), unless the user asked for
//    reduced motion; any input finishes a running animation at once;
//  - plays by keyboard: Tab or the arrows pick a card, Enter lifts it, the
//    arrows or 1-4 and F choose where, Enter puts it there, Escape cancels;
//  - labels every place and says each change in an aria-live region.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { backEl, cardEl, cardName, slotEl } from "./cards.js";
import { keyboardInput } from "./board-keys.js";
import { pointerInput } from "./board-pointer.js";
import { fitting } from "./board-fit.js";
import { describe } from "./board-describe.js";
import { foundationSlot, parseMove, runLength } from "./rules.js";

const HINT_MS = 2500;
const ANIMATE_MS = 200;
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");

export class BoardView {
  /**
   * handlers: {onMove(text), onTap(card), onDraw()}; all optional for a read-only board.
   * sizing: {fit, spaceBelow(), capped}: whether the cards are sized to the window as the
   * race board's are (the race board always is), the px to keep free under the board
   * (a read-only board's controls below it), and whether each column stays within a
   * 13-card run's height (a board in a grid of boards, which must not spill onto the next).
   */
  constructor(root, handlers = {}, sizing = {}) {
    this.root = root;
    this.handlers = handlers;
    this.board = null;
    this.interactive = Boolean(handlers.onMove);
    this.fits = this.interactive || Boolean(sizing.fit);
    this.spaceBelow = sizing.spaceBelow || (() => 0);
    this.capped = Boolean(sizing.capped);
    this.press = null; // pointer down, not yet a drag
    this.drag = null; // cards being dragged
    this.pending = null; // dropped, waiting for the server
    this.deferred = null; // a board that arrived mid-drag
    this.baseSuit = null; // the suit that owns foundation 1 (learnt from the deal)
    this.hintTimer = null;
    this.lifted = null; // a card lifted by keyboard: {source, targets, index}
    this.focusCard = null; // the card to keep focus on after the next render
    this.lastTap = null; // {card, at}: the double-click guard
    this.flyers = []; // cards flying back into the stock (they left the board)
    this.animated = 0; // how many renders animated (tests read data-animated)
    this.rank = null;
    if (this.interactive) {
      root.addEventListener("pointerdown", (e) => this.pointerDown(e));
      root.addEventListener("keydown", (e) => this.keyDown(e));
      root.addEventListener("focusout", (e) => {
        if (this.lifted && !root.contains(e.relatedTarget)) this.putDown(false);
      });
      window.addEventListener("pointermove", (e) => this.pointerMove(e));
      window.addEventListener("pointerup", (e) => this.pointerUp(e));
      window.addEventListener("pointercancel", () => this.cancelDrag());
      window.addEventListener("blur", () => this.cancelDrag());
      this.live = h("div", { class: "sr-only", role: "status", "aria-live": "polite", "aria-atomic": "true" });
      this.live.id = `${root.id || "board"}-live`;
      document.body.append(this.live);
      root.setAttribute("role", "application"); // arrows and Enter reach the board, not the reader
    }
    new ResizeObserver(() => this.layout()).observe(root); // a read-only board's columns too, once shown
    window.addEventListener("resize", () => this.layout());
  }

  render(board) {
    if (this.drag || this.press) {
      this.deferred = board; // never pull the cards from under a finger
      return;
    }
    this.finishAnimations();
    const before = this.interactive && this.board && board && !reducedMotion?.matches ? this.positions() : null;
    const previous = this.board;
    this.deferred = null;
    this.clearPending();
    if (this.lifted) this.putDown(false, true);
    if (board && board.foundations[0].length) this.baseSuit = board.foundations[0][0][1];
    this.board = board;
    if (!board) {
      this.root.replaceChildren();
      return;
    }
    const focused = this.root.contains(document.activeElement) ? document.activeElement : null;
    if (this.interactive) this.root.setAttribute("aria-label", t("board_label"));
    const grid = h("div", { class: `board draw${board.draw}` });
    grid.append(
      this.stockEl(board),
      this.wasteEl(board),
      ...board.foundations.map((pile, i) => this.foundationEl(board, pile, i)),
      this.reserveEl(board),
      ...board.tableau.map((col, j) => this.columnEl(col, j)),
    );
    this.root.replaceChildren(grid);
    this.layout();
    if (before) this.animateFrom(before, previous, board);
    if (this.interactive && previous) this.announce(describe(previous, board));
    if (focused || this.focusCard) this.refocus(focused);
    this.focusCard = null;
  }

  /** Keep keyboard focus on the same card (or the stock) across a re-render. */
  refocus(old) {
    const card = this.focusCard || old?.dataset.card;
    let again = card ? this.root.querySelector(`.card[data-card="${card}"]`) : null;
    if (again && again.tabIndex < 0) again = again.closest(".pile")?.querySelector('[tabindex="0"]');
    if (!again && old?.dataset.drop) again = this.root.querySelector(`.pile[data-drop="${old.dataset.drop}"] [tabindex="0"]`);
    (again?.tabIndex >= 0 ? again : this.root.querySelector(".stock"))?.focus();
  }

  stockEl(board) {
    const { count } = board.stock;
    let face;
    if (count) face = backEl();
    else if (board.waste.count) face = slotEl("\u21bb", "recycle");
    else face = slotEl();
    const pile = h(
      "div",
      {
        class: "pile stock",
        dataset: { pile: "S" },
        tabindex: this.interactive ? "0" : null,
        role: this.interactive ? "button" : "group",
        "aria-label": count
          ? t("pile_cards", { name: t("stock"), n: count })
          : board.waste.count
            ? t("recycle")
            : t("pile_empty", { name: t("stock") }),
      },
      face,
      h("div", { class: "count", text: count, "aria-hidden": "true" }),
    );
    return pile;
  }

  wasteEl(board) {
    const fan = board.waste.fan;
    const label = board.waste.count ? t("pile_cards", { name: t("waste"), n: board.waste.count }) : t("pile_empty", { name: t("waste") });
    const pile = h("div", { class: "pile waste", dataset: { drop: "W" }, ...this.pileAttrs(label) });
    // Draw 3: the top three face up, the seen cards under the last draw's fan first
    const shown = [...(board.waste.under || []), ...fan];
    if (!shown.length) pile.append(slotEl());
    else if (board.waste.count > shown.length) pile.append(slotEl("", "under"));
    shown.forEach((card, i) => {
      const el = cardEl(card);
      el.style.setProperty("--i", i);
      el.classList.add("fanned");
      if (i === shown.length - 1) this.makeSource(el, { pile: "W", index: 0, count: 1, card }, true, t("waste"));
      pile.append(el);
    });
    pile.append(h("div", { class: "count", text: board.waste.count || "", "aria-hidden": "true" }));
    return pile;
  }

  foundationEl(board, pile, i) {
    const name = `${t("foundation")} ${i + 1}`;
    const start = board.start_rank === "T" ? "10" : board.start_rank;
    const label = pile.length
      ? t("pile_top", { name, card: cardName(pile[pile.length - 1]), n: pile.length })
      : t("pile_starts", { name, rank: start });
    const el = h("div", { class: "pile foundation", dataset: { drop: "F", index: i }, ...this.pileAttrs(label) });
    if (pile.length < 2) el.append(slotEl(start, "start"));
    for (const card of pile.slice(-2)) el.append(cardEl(card));
    if (pile.length) {
      const top = el.lastElementChild;
      this.makeSource(top, { pile: "F", index: i, count: 1, card: pile[pile.length - 1] }, false, name);
    }
    return el;
  }

  reserveEl(board) {
    const { top, count } = board.reserve;
    const label = count ? t("pile_cards", { name: t("reserve"), n: count }) : t("pile_empty", { name: t("reserve") });
    const el = h("div", { class: "pile reserve", dataset: { pile: "R" }, ...this.pileAttrs(label) });
    if (count > 1) el.append(slotEl("", "under"));
    if (top) {
      const card = cardEl(top);
      this.makeSource(card, { pile: "R", index: 0, count: 1, card: top }, true, t("reserve"));
      el.append(card);
    } else {
      el.append(slotEl());
    }
    el.append(h("div", { class: "count", text: count, "aria-hidden": "true" }));
    return el;
  }

  columnEl(column, j) {
    const name = t("column", { n: j + 1 });
    const label = column.length ? t("pile_top", { name, card: cardName(column[column.length - 1]), n: column.length }) : t("pile_empty", { name });
    const el = h("div", { class: "pile column", dataset: { drop: `T${j}` }, ...this.pileAttrs(label) });
    if (!column.length) el.append(slotEl());
    const movable = column.length - runLength(column);
    column.forEach((card, i) => {
      const c = cardEl(card);
      c.style.setProperty("--i", i);
      if (i >= movable) this.makeSource(c, { pile: "T", index: j, count: column.length - i, card }, true, name);
      el.append(c);
    });
    el.style.setProperty("--n", Math.max(column.length, 1));
    return el;
  }

  /** A place's label; on the race board a place can take focus (a keyboard target). */
  pileAttrs(label) {
    return { role: "group", "aria-label": label, tabindex: this.interactive ? "-1" : null };
  }

  /** Mark a card as something the player can pick up (and tap, unless tappable is false). */
  makeSource(el, source, tappable = true, where = "") {
    if (!this.interactive) return;
    el.classList.add("source");
    el.source = source;
    el.tappable = tappable;
    el.tabIndex = 0;
    el.setAttribute("role", "button");
    const cards = source.count > 1 ? t("n_cards_from", { card: cardName(source.card), n: source.count }) : cardName(source.card);
    el.setAttribute("aria-label", `${cards}, ${where}`);
  }

  // ------------------------------------------------------------ animation

  /** Where every face-up card is now (a dragged card: where it was let go). */
  positions() {
    const rects = new Map();
    for (const el of this.root.querySelectorAll(".card[data-card]")) rects.set(el.dataset.card, { rect: el.getBoundingClientRect(), el });
    for (const el of this.pending?.ghost.querySelectorAll(".card[data-card]") || []) {
      rects.set(el.dataset.card, { rect: el.getBoundingClientRect(), el: rects.get(el.dataset.card)?.el || el });
    }
    const stock = this.root.querySelector(".stock .card");
    return { rects, stock: stock?.getBoundingClientRect() };
  }

  /** FLIP: each card that moved starts where it was and slides home; drawn cards come from the stock. */
  animateFrom(before, previous, board) {
    const timing = { duration: ANIMATE_MS, easing: "cubic-bezier(.2,.7,.3,1)" };
    const stockRect = this.root.querySelector(".stock .card")?.getBoundingClientRect();
    const drew = board.stock.count < previous.stock.count;
    const shown = new Set();
    let moved = 0;
    for (const el of this.root.querySelectorAll(".card[data-card]")) {
      const card = el.dataset.card;
      shown.add(card);
      const now = el.getBoundingClientRect();
      const was = before.rects.get(card)?.rect || (drew && el.closest(".waste") ? before.stock : null);
      if (!was) continue;
      const dx = was.left - now.left;
      const dy = was.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      el.animate([{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 30 }, { transform: "none", zIndex: 30 }], timing);
      moved += 1;
    }
    if (board.stock.count > previous.stock.count && stockRect) {
      // undone draw or a turned-over waste: the cards that left fly into the stock
      for (const [card, { rect, el }] of before.rects) {
        if (shown.has(card) || !el.closest(".waste")) continue;
        const flyer = h("div", {
          class: "flyer",
          style: `left:${rect.left}px;top:${rect.top}px;--cw:${rect.width}px;--ch:${rect.height}px`,
        });
        el.style.cssText = "left:0;top:0";
        flyer.append(el);
        document.body.append(flyer);
        const anim = flyer.animate(
          [{ transform: "none" }, { transform: `translate(${stockRect.left - rect.left}px, ${stockRect.top - rect.top}px)` }],
          timing,
        );
        anim.onfinish = () => flyer.remove();
        this.flyers.push(flyer);
        moved += 1;
      }
    }
    if (moved) {
      this.animated += 1;
      this.root.dataset.animated = String(this.animated);
    }
  }

  /** Any input finishes what is still moving: the board answers at once. */
  finishAnimations() {
    for (const anim of this.root.getAnimations?.({ subtree: true }) || []) anim.finish();
    for (const flyer of this.flyers) flyer.remove();
    this.flyers = [];
  }

  // ------------------------------------------------------------ screen readers

  /** Say text in the live region (an empty text says nothing). */
  announce(text) {
    if (!text || !this.live) return;
    this.live.textContent = this.live.textContent === text ? `${text}\u00a0` : text;
  }

  /** Our place in the race (from the leaderboard); said when it changes. */
  setRank(rank, of) {
    if (typeof rank !== "number" || !of) return;
    if (this.rank !== null && rank !== this.rank) this.announce(t("rank_now", { rank, n: of }));
    this.rank = rank;
  }

  // ------------------------------------------------------------ hints

  /**
   * Light up a hinted move's card (or the stock) and its target pile for a
   * moment; false when the move names nothing on this board. A re-render
   * (the board changed) drops the marks, as the hint may no longer apply.
   */
  showHint(text) {
    this.clearHint();
    const move = parseMove(text);
    const grid = this.root.firstElementChild;
    if (!move || !grid || !this.board) return false;
    const from = this.hintSource(grid, move.src);
    if (!from) return false;
    const marks = [from];
    if (move.dst === "F") {
      const slot = foundationSlot(this.board.foundations, this.board.start_rank, from.dataset.card, this.baseSuit);
      const piles = [...grid.querySelectorAll(".foundation")];
      marks.push(...(slot >= 0 ? [piles[slot]] : piles));
    } else if (move.dst) {
      marks.push(grid.querySelector(`[data-drop="${move.dst}"]`));
    }
    from.classList.add("hint-from");
    for (const el of marks.slice(1)) el?.classList.add("hint-to");
    this.hintTimer = setTimeout(() => this.clearHint(), HINT_MS);
    return true;
  }

  /** The element a hinted move starts from: the stock, or the card it picks up. */
  hintSource(grid, src) {
    if (src.pile === "S") return grid.querySelector(".stock");
    const pile = {
      R: () => grid.querySelector(".reserve"),
      W: () => grid.querySelector(".waste"),
      F: () => grid.querySelectorAll(".foundation")[src.index],
      T: () => grid.querySelectorAll(".column")[src.index],
    }[src.pile]();
    const cards = pile ? [...pile.querySelectorAll(".card[data-card]")] : [];
    return cards[cards.length - src.count] || null;
  }

  clearHint() {
    clearTimeout(this.hintTimer);
    this.hintTimer = null;
    for (const el of this.root.querySelectorAll(".hint-from, .hint-to")) el.classList.remove("hint-from", "hint-to");
  }
}

// fitting the window, pointer input and the keyboard live in their own modules;
// they are this class's methods all the same (they read and change the board's state)
Object.assign(BoardView.prototype, fitting, pointerInput, keyboardInput);

/**
 * The race page's keys, beside the board's own: Space draws (even right after
 * a click on Undo; Enter still presses a focused button), U or Ctrl+Z undoes,
 * and each of ``more`` (a letter -> what it does). ``active()``: a race is on.
 */
export function raceKeys(active, act, more = {}) {
  document.addEventListener("keydown", (e) => {
    if (!active()) return;
    const tag = e.target.tagName;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    const key = e.key.toLowerCase();
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
    if (e.key === " " && tag !== "SUMMARY" && !(tag === "BUTTON" && !e.target.closest(".race-head"))) {
      e.preventDefault();
      if (tag === "BUTTON") e.target.blur();
      act("move", { move: "S" });
    } else if (key === "z" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      act("undo");
    } else if (key === "u" && plain) {
      act("undo");
    } else if (plain && Object.hasOwn(more, key)) {
      more[key]();
    }
  });
}
