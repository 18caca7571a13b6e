// The race board by keyboard: Tab or the arrows pick a card, Enter lifts it,
// the arrows or 1-4 and F choose where, Enter puts it there, Escape cancels.
// Methods of BoardView (js/board.js): they read and change its state.

import { t } from "./i18n.js";
import { cardName } from "./cards.js";
import { foundationSlot, legalTargets, moveText } from "./rules.js";

const TARGETS = ["F", "T0", "T1", "T2", "T3"];

export const keyboardInput = {
  keyDown(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    this.finishAnimations();
    const key = e.key;
    if (this.lifted) {
      if (this.liftedKey(key)) e.preventDefault();
      return;
    }
    const el = e.target;
    if (key === "Enter") {
      if (el.closest?.(".stock")) this.handlers.onDraw?.();
      else if (el.source) this.lift(el);
      else return;
    } else if (key.startsWith("Arrow")) {
      this.focusToward(el, key);
    } else if (el.source && /^[1-4fF]$/.test(key)) {
      this.lift(el, key.toUpperCase() === "F" ? "F" : `T${Number(key) - 1}`);
    } else {
      return;
    }
    e.preventDefault();
  },

  /** Move focus to the nearest card (or the stock) in the arrow's direction. */
  focusToward(from, key) {
    const items = [...this.root.querySelectorAll('[tabindex="0"]')];
    if (!items.length) return;
    if (!items.includes(from)) {
      items[0].focus();
      return;
    }
    const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
    const a = from.getBoundingClientRect();
    let best = null;
    let bestScore = Infinity;
    for (const el of items) {
      if (el === from) continue;
      const b = el.getBoundingClientRect();
      const along = (b.left - a.left) * dx + (b.top - a.top) * dy;
      const across = Math.abs((b.left - a.left) * dy) + Math.abs((b.top - a.top) * dx);
      if (along <= 2) continue;
      const score = along + across * 2;
      if (score < bestScore) {
        best = el;
        bestScore = score;
      }
    }
    best?.focus();
  },

  /** Lift a focused card: its legal places light up, the first one (where a tap would go) is chosen. */
  lift(el, choice = null) {
    const source = el.source;
    const legal = legalTargets(this.board, source, this.baseSuit);
    const own = source.pile === "T" ? `T${source.index}` : source.pile === "F" ? "F" : null;
    const targets = legal.length ? this.tapOrder(source, legal) : TARGETS.filter((x) => x !== own);
    this.lifted = { source, el, targets, legal: new Set(legal), index: 0 };
    el.classList.add("picked");
    for (const zone of this.root.querySelectorAll("[data-drop]")) zone.classList.toggle("target", this.lifted.legal.has(zone.dataset.drop));
    const what = source.count > 1 ? t("n_cards_from", { card: cardName(source.card), n: source.count }) : cardName(source.card);
    this.announce(legal.length ? t("lifted", { card: what }) : t("no_place", { card: what }));
    this.choose(choice ?? targets[0]);
  },

  /** Legal places in the tap rule's order: the foundation, then the longest column, then the rest. */
  tapOrder(source, legal) {
    const height = (x) => (x === "F" ? 1000 : this.board.tableau[Number(x.slice(1))].length);
    return [...legal].sort((a, b) => height(b) - height(a) || TARGETS.indexOf(a) - TARGETS.indexOf(b));
  },

  /** Choose a place for the lifted card: focus it, so a screen reader names it. */
  choose(target) {
    const lifted = this.lifted;
    if (!lifted || !target) return;
    const i = lifted.targets.indexOf(target);
    if (i >= 0) lifted.index = i;
    lifted.choice = target;
    for (const el of this.root.querySelectorAll(".hover")) el.classList.remove("hover");
    const zone = this.targetEl(target, lifted.source.card);
    if (!zone) return;
    zone.classList.add("hover");
    zone.focus();
  },

  targetEl(target, card) {
    if (target !== "F") return this.root.querySelector(`[data-drop="${target}"]`);
    const slot = foundationSlot(this.board.foundations, this.board.start_rank, card, this.baseSuit);
    return this.root.querySelectorAll(".foundation")[Math.max(slot, 0)];
  },

  /** Keys while a card is lifted; true when the key was used. */
  liftedKey(key) {
    const lifted = this.lifted;
    const n = lifted.targets.length;
    if (key === "Escape") this.putDown(false);
    else if (key === "Enter") this.putDown(true);
    else if (key === "ArrowRight" || key === "ArrowDown") this.choose(lifted.targets[(lifted.index + 1) % n]);
    else if (key === "ArrowLeft" || key === "ArrowUp") this.choose(lifted.targets[(lifted.index + n - 1) % n]);
    else if (/^[1-4]$/.test(key)) this.choose(`T${Number(key) - 1}`);
    else if (key === "f" || key === "F") this.choose("F");
    else return false;
    return true;
  },

  /** Put the lifted card down: on its chosen place (move), or back (cancel). */
  putDown(move, quiet = false) {
    const lifted = this.lifted;
    if (!lifted) return;
    this.lifted = null;
    lifted.el.classList.remove("picked");
    this.endDragLook();
    const ownColumn = lifted.source.pile === "T" && lifted.choice === `T${lifted.source.index}`;
    if (move && lifted.choice && !ownColumn) {
      this.focusCard = lifted.source.card;
      this.handlers.onMove(moveText(lifted.source, lifted.choice));
      return;
    }
    if (!quiet) {
      this.announce(t("put_back"));
      if (lifted.el.isConnected) lifted.el.focus();
    }
  }
};
