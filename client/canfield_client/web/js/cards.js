// One card as DOM: CSS draws the face, SVG symbols (defined in index.html) the suits.

import { h, icon } from "./dom.js";
import { isRed } from "./rules.js";

const SUIT_CHAR = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };

/** A face-up card; "T" shows as 10. The label reads e.g. "10♠" for screen readers. */
export function cardEl(card) {
  const rank = card[0] === "T" ? "10" : card[0];
  const suit = card[1];
  return h(
    "div",
    {
      class: `card ${isRed(card) ? "red" : "black"}`,
      dataset: { card },
      role: "img",
      "aria-label": rank + SUIT_CHAR[suit],
    },
    h("span", { class: "corner" }, h("b", { text: rank, class: rank === "10" ? "ten" : null }), icon(`#s-${suit}`)),
    icon(`#s-${suit}`, "pip"),
  );
}

/** The back of a card (the stock). */
export const backEl = () => h("div", { class: "card back", "aria-hidden": "true" });

/** An empty place: dashed outline with an optional label (start rank, recycle mark). */
export const slotEl = (label = "", cls = "") =>
  h("div", { class: `card empty ${cls}`.trim() }, label ? h("span", { text: label }) : null);
