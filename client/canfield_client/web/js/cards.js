// One card as DOM: CSS draws the face, SVG symbols (defined in index.html) the suits.

import { h, icon } from "./dom.js";
import { SUIT_CHAR } from "./protocol.js";
import { isRed } from "./rules.js";

/** A card as people write it: "TS" is "10♠", "AH" is "A♥". */
export const cardName = (card) => (card[0] === "T" ? "10" : card[0]) + SUIT_CHAR[card[1]];

/** Several cards, bottom first: "7♠ 6♥". */
export const cardNames = (cards) => cards.map(cardName).join(" ");

/** A face-up card; "T" shows as 10. The label reads e.g. "10♠" for screen readers. */
export function cardEl(card) {
  const rank = card[0] === "T" ? "10" : card[0];
  const suit = card[1];
  return h(
    "div",
    {
      class: `card ${isRed(card) ? "red" : "black"} suit-${suit}`,
      dataset: { card },
      role: "img",
      "aria-label": cardName(card),
    },
    h("span", { class: "corner" }, h("b", { text: rank, class: rank === "10" ? "ten" : null }), icon(`#s-${suit}`)),
    icon(`#s-${suit}`, "pip"),
  );
}

/** The back of a card (the stock). */
export const backEl = () => h("div", { class: "card back", "aria-hidden": "true" });

/** An empty place: dashed outline with an optional label (start rank, recycle mark). */
export const slotEl = (label = "", cls = "") =>
  h("div", { class: `card empty ${cls}`.trim(), "aria-hidden": "true" }, label ? h("span", { text: label }) : null);
