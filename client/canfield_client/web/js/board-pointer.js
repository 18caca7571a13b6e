// The race board's pointer input (mouse, touch or pen): a press on the stock
// draws, a tap on a card plays it where it goes, a drag puts it where it is
// dropped (or snaps back). Methods of BoardView (js/board.js): they read and
// change its state, and the server's reply renders the result.

import { h } from "./dom.js";
import { legalTargets, moveText } from "./rules.js";

const DRAG_THRESHOLD = 6;
/** a second tap on the same card this soon is the rest of a double click, not a new move */
const DOUBLE_TAP_MS = 500;

export const pointerInput = {
  pointerDown(e) {
    this.finishAnimations();
    if (e.button > 0 || this.pending || this.drag) return;
    if (this.lifted) this.putDown(false);
    const stock = e.target.closest(".stock");
    const card = e.target.closest(".source");
    if (!stock && !card) return;
    this.press = { x: e.clientX, y: e.clientY, id: e.pointerId, stock, card };
    if (card) e.preventDefault(); // no text selection or native drag
  },

  pointerMove(e) {
    const press = this.press;
    if (this.drag) {
      if (e.pointerId === this.drag.id) this.moveGhost(e.clientX - this.drag.x, e.clientY - this.drag.y);
      return;
    }
    if (!press || e.pointerId !== press.id || !press.card) return;
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) >= DRAG_THRESHOLD) this.startDrag(press);
  },

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
    else if (press.card?.tappable) this.tap(press.card.source.card);
  },

  /** One tap, one move: the second click of a double click on the same card is no new tap. */
  tap(card) {
    const now = Date.now();
    if (this.lastTap && this.lastTap.card === card && now - this.lastTap.at < DOUBLE_TAP_MS) return;
    this.lastTap = { card, at: now };
    this.handlers.onTap?.(card);
  },

  flushDeferred() {
    const board = this.deferred;
    this.deferred = null;
    if (board) this.render(board);
  },

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
  },

  moveGhost(dx, dy) {
    const drag = this.drag;
    drag.dx = dx;
    drag.dy = dy;
    drag.ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    const zone = this.zoneUnder();
    for (const el of this.root.querySelectorAll(".hover")) if (el !== zone) el.classList.remove("hover");
    zone?.classList.add("hover");
  },

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
  },

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
  },

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
  },

  endDragLook() {
    document.body.classList.remove("dragging");
    for (const el of this.root.querySelectorAll(".target, .hover")) el.classList.remove("target", "hover");
  },

  /** The server refused the drop (or it hit nothing): fly the cards home. */
  snapBack() {
    if (this.lifted) this.putDown(false, true);
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
  },

  clearPending() {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    pending.ghost.remove();
    for (const el of pending.lifted) el.classList.remove("lifted");
  }
};
