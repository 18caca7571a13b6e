// The player's race board: renders the server's player view and turns pointer
// drags (mouse or touch), taps and keys into move requests. It never changes
// the position itself; the server's reply does (or the drop snaps back).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { backEl, cardEl, slotEl } from "./cards.js";
import { foundationSlot, legalTargets, moveText, parseMove, runLength } from "./rules.js";

const DRAG_THRESHOLD = 6;
const HINT_MS = 2500;

export class BoardView {
  /** handlers: {onMove(text), onTap(card), onDraw()}; all optional for a read-only board. */
  constructor(root, handlers = {}) {
    this.root = root;
    this.handlers = handlers;
    this.board = null;
    this.interactive = Boolean(handlers.onMove);
    this.press = null; // pointer down, not yet a drag
    this.drag = null; // cards being dragged
    this.pending = null; // dropped, waiting for the server
    this.deferred = null; // a board that arrived mid-drag
    this.baseSuit = null; // the suit that owns foundation 1 (learnt from the deal)
    this.hintTimer = null;
    if (this.interactive) {
      root.addEventListener("pointerdown", (e) => this.pointerDown(e));
      root.addEventListener("keydown", (e) => this.keyDown(e));
      window.addEventListener("pointermove", (e) => this.pointerMove(e));
      window.addEventListener("pointerup", (e) => this.pointerUp(e));
      window.addEventListener("pointercancel", () => this.cancelDrag());
      window.addEventListener("blur", () => this.cancelDrag());
    }
    window.addEventListener("resize", () => this.layout());
  }

  render(board) {
    if (this.drag || this.press) {
      this.deferred = board; // never pull the cards from under a finger
      return;
    }
    this.deferred = null;
    this.clearPending();
    if (board && board.foundations[0].length) this.baseSuit = board.foundations[0][0][1];
    this.board = board;
    if (!board) {
      this.root.replaceChildren();
      return;
    }
    const focused = this.root.contains(document.activeElement) ? document.activeElement : null;
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
    if (focused) this.refocus(focused);
  }

  /** Keep keyboard focus on the same card (or the stock) across a re-render. */
  refocus(old) {
    const card = old.dataset.card;
    const again = card ? this.root.querySelector(`.card[data-card="${card}"]`) : this.root.querySelector(".stock");
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
        role: this.interactive ? "button" : null,
        "aria-label": count ? `${t("stock")} ${count}` : t("recycle"),
      },
      face,
      h("div", { class: "count", text: count }),
    );
    return pile;
  }

  wasteEl(board) {
    const fan = board.waste.fan;
    const pile = h("div", { class: "pile waste", dataset: { drop: "W" }, "aria-label": t("waste") });
    if (!fan.length) pile.append(slotEl());
    else if (board.waste.count > fan.length) pile.append(slotEl("", "under"));
    fan.forEach((card, i) => {
      const el = cardEl(card);
      el.style.setProperty("--i", i);
      el.classList.add("fanned");
      if (i === fan.length - 1) this.makeSource(el, { pile: "W", index: 0, count: 1, card });
      pile.append(el);
    });
    pile.append(h("div", { class: "count", text: board.waste.count || "" }));
    return pile;
  }

  foundationEl(board, pile, i) {
    const el = h("div", {
      class: "pile foundation",
      dataset: { drop: "F", index: i },
      "aria-label": `${t("foundation")} ${i + 1}`,
    });
    if (pile.length < 2) el.append(slotEl(board.start_rank === "T" ? "10" : board.start_rank, "start"));
    for (const card of pile.slice(-2)) el.append(cardEl(card));
    if (pile.length) {
      const top = el.lastElementChild;
      this.makeSource(top, { pile: "F", index: i, count: 1, card: pile[pile.length - 1] }, false);
    }
    return el;
  }

  reserveEl(board) {
    const { top, count } = board.reserve;
    const el = h("div", { class: "pile reserve", "aria-label": `${t("reserve")} ${count}` });
    if (count > 1) el.append(slotEl("", "under"));
    if (top) {
      const card = cardEl(top);
      this.makeSource(card, { pile: "R", index: 0, count: 1, card: top });
      el.append(card);
    } else {
      el.append(slotEl());
    }
    el.append(h("div", { class: "count", text: count }));
    return el;
  }

  columnEl(column, j) {
    const el = h("div", {
      class: "pile column",
      dataset: { drop: `T${j}` },
      "aria-label": t("column", { n: j + 1 }),
    });
    if (!column.length) el.append(slotEl());
    const movable = column.length - runLength(column);
    column.forEach((card, i) => {
      const c = cardEl(card);
      c.style.setProperty("--i", i);
      if (i >= movable) this.makeSource(c, { pile: "T", index: j, count: column.length - i, card });
      el.append(c);
    });
    el.style.setProperty("--n", Math.max(column.length, 1));
    return el;
  }

  /** Mark a card as something the player can pick up (and tap, unless tappable is false). */
  makeSource(el, source, tappable = true) {
    if (!this.interactive) return;
    el.classList.add("source");
    el.source = source;
    el.tappable = tappable;
    if (tappable) el.tabIndex = 0;
  }

  /** Squeeze long columns so the board fits the window height. */
  layout() {
    const grid = this.root.firstElementChild;
    if (!grid) return;
    const probe = grid.querySelector(".stock .card");
    const ch = probe ? probe.offsetHeight : 100;
    for (const col of grid.querySelectorAll(".column")) {
      const n = Number(col.style.getPropertyValue("--n")) || 1;
      const room = Math.max(window.innerHeight - col.getBoundingClientRect().top - 16, ch * 3);
      const fan = n > 1 ? Math.min(ch * 0.27, Math.max(ch * 0.14, (room - ch) / (n - 1))) : 0;
      col.style.setProperty("--fan", `${fan}px`);
    }
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

  // ------------------------------------------------------------ pointer input

  pointerDown(e) {
    if (e.button > 0 || this.pending || this.drag) return;
    const stock = e.target.closest(".stock");
    const card = e.target.closest(".source");
    if (!stock && !card) return;
    this.press = { x: e.clientX, y: e.clientY, id: e.pointerId, stock, card };
    if (card) e.preventDefault(); // no text selection or native drag
  }

  pointerMove(e) {
    const press = this.press;
    if (this.drag) {
      if (e.pointerId === this.drag.id) this.moveGhost(e.clientX - this.drag.x, e.clientY - this.drag.y);
      return;
    }
    if (!press || e.pointerId !== press.id || !press.card) return;
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) >= DRAG_THRESHOLD) this.startDrag(press);
  }

  pointerUp(e) {
    if (this.drag) {
      if (e.pointerId === this.drag.id) this.drop();
      return;
    }
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    this.press = null;
    this.flushDeferred();
    if (press.stock) this.handlers.onDraw?.();
    else if (press.card?.tappable) this.handlers.onTap?.(press.card.source.card);
  }

  flushDeferred() {
    const board = this.deferred;
    this.deferred = null;
    if (board) this.render(board);
  }

  keyDown(e) {
    if (e.key !== "Enter") return;
    if (e.target.closest?.(".stock")) this.handlers.onDraw?.();
    else if (e.target.tappable) this.handlers.onTap?.(e.target.source.card);
    else return;
    e.preventDefault();
  }

  startDrag(press) {
    const source = press.card.source;
    const pileEl = press.card.parentElement;
    const cards = [...pileEl.querySelectorAll(".card:not(.empty)")];
    const lifted = cards.slice(cards.indexOf(press.card), cards.indexOf(press.card) + source.count);
    const first = lifted[0].getBoundingClientRect();
    const ghost = h("div", {
      class: "ghost",
      style: `left:${first.left}px;top:${first.top}px;--cw:${first.width}px;--ch:${first.height}px`,
    });
    for (const el of lifted) {
      const r = el.getBoundingClientRect();
      const clone = el.cloneNode(true);
      clone.style.cssText = `position:absolute;left:0;top:${r.top - first.top}px;width:${r.width}px;height:${r.height}px`;
      ghost.append(clone);
      el.classList.add("lifted");
    }
    document.body.append(ghost);
    const targets = new Set(legalTargets(this.board, source, this.baseSuit));
    for (const zone of this.root.querySelectorAll("[data-drop]")) {
      zone.classList.toggle("target", targets.has(zone.dataset.drop));
    }
    this.press = null;
    this.drag = { id: press.id, x: press.x, y: press.y, source, lifted, ghost, first, targets, dx: 0, dy: 0 };
    document.body.classList.add("dragging");
  }

  moveGhost(dx, dy) {
    const drag = this.drag;
    drag.dx = dx;
    drag.dy = dy;
    drag.ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    const zone = this.zoneUnder();
    for (const el of this.root.querySelectorAll(".hover")) if (el !== zone) el.classList.remove("hover");
    zone?.classList.add("hover");
  }

  /** The drop zone the dragged card overlaps most, preferring legal ones. */
  zoneUnder() {
    const { first, dx, dy, targets, source } = this.drag;
    const card = { l: first.left + dx, t: first.top + dy, r: first.right + dx, b: first.bottom + dy };
    let best = null;
    let bestScore = 0;
    for (const zone of this.root.querySelectorAll("[data-drop]")) {
      const key = zone.dataset.drop;
      if (key === "W" || (source.pile === "T" && key === `T${source.index}`)) continue;
      if (source.pile === "F" && key === "F") continue;
      const r = zone.getBoundingClientRect();
      const bottom = key[0] === "T" ? Math.max(r.bottom, r.top + first.height * 1.5) : r.bottom;
      const w = Math.min(card.r, r.right) - Math.max(card.l, r.left);
      const hgt = Math.min(card.b, bottom) - Math.max(card.t, r.top);
      if (w <= 0 || hgt <= 0) continue;
      const area = (w * hgt) / (first.width * first.height);
      const score = area + (targets.has(key) ? 1 : 0);
      if (area > 0.15 && score > bestScore) {
        best = zone;
        bestScore = score;
      }
    }
    return best;
  }

  drop() {
    const zone = this.zoneUnder();
    const drag = this.drag;
    this.endDragLook();
    if (!zone) {
      this.drag = null;
      this.pending = drag;
      this.snapBack();
      return;
    }
    this.drag = null;
    this.pending = drag;
    this.handlers.onMove(moveText(drag.source, zone.dataset.drop));
  }

  cancelDrag() {
    this.press = null;
    if (!this.drag) {
      this.flushDeferred();
      return;
    }
    const drag = this.drag;
    this.endDragLook();
    this.drag = null;
    this.pending = drag;
    this.snapBack();
  }

  endDragLook() {
    document.body.classList.remove("dragging");
    for (const el of this.root.querySelectorAll(".target, .hover")) el.classList.remove("target", "hover");
  }

  /** The server refused the drop (or it hit nothing): fly the cards home. */
  snapBack() {
    const pending = this.pending;
    if (!pending) return;
    const { ghost } = pending;
    ghost.classList.add("returning");
    ghost.style.transform = "translate(0px, 0px)";
    const done = () => {
      if (this.pending === pending) this.clearPending();
      this.flushDeferred();
    };
    ghost.addEventListener("transitionend", done, { once: true });
    setTimeout(done, 250);
  }

  clearPending() {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    pending.ghost.remove();
    for (const el of pending.lifted) el.classList.remove("lifted");
  }
}
