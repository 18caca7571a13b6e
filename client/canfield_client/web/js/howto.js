// "How to play": the rules in short (after docs/rules.md, the project's rule
// book), in English and Croatian, with small drawn pictures of the layout.
// It opens over whatever page is on screen at the address's #rules, so a race
// or lobby underneath goes on; Close or Escape brings the page back.

import { h } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { SUIT_CHAR as SUIT } from "./protocol.js";

const NS = "http://www.w3.org/2000/svg";
const CW = 30; // card width in the pictures
const CH = 42;

function s(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== null) el.textContent = text;
  return el;
}

/** A small face-up card ("7H"), a back ("back") or an empty place ("") at x, y. */
function card(x, y, text) {
  const g = s("g", { transform: `translate(${x} ${y})` });
  if (text === "back") {
    g.append(s("rect", { width: CW, height: CH, rx: 3, class: "hw-back" }));
    return g;
  }
  if (!text) {
    g.append(s("rect", { width: CW, height: CH, rx: 3, class: "hw-empty" }));
    return g;
  }
  const red = text[1] === "H" || text[1] === "D";
  const rank = text[0] === "T" ? "10" : text[0];
  g.append(
    s("rect", { width: CW, height: CH, rx: 3, class: "hw-face" }),
    s("text", { x: 3, y: 11, class: `hw-rank${red ? " red" : ""}` }, rank + SUIT[text[1]]),
    s("text", { x: CW / 2, y: 34, "text-anchor": "middle", class: `hw-pip${red ? " red" : ""}` }, SUIT[text[1]]),
  );
  return g;
}

const label = (x, y, text) => s("text", { x, y, "text-anchor": "middle", class: "hw-label" }, text);

function picture(width, height, ...parts) {
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "hw-pic", "aria-hidden": "true" });
  svg.append(s("rect", { width, height, rx: 8, class: "hw-felt" }), ...parts);
  return svg;
}

/** The deal: stock, waste, foundations on top; reserve and columns below. */
function layoutPicture() {
  const col = (i) => 10 + i * 38;
  const parts = [
    card(col(0), 10, "back"),
    card(col(1), 10, "2S"), card(col(1) + 9, 10, "JD"), card(col(1) + 18, 10, "5C"),
    card(col(3), 10, "7H"), card(col(4), 10, ""), card(col(5), 10, ""), card(col(6), 10, ""),
    card(col(0) + 4, 76, "4D"), card(col(0) + 2, 74, "9C"), card(col(0), 72, "QC"),
    card(col(3), 72, "9S"), card(col(3), 86, "8H"),
    card(col(4), 72, "KD"),
    card(col(5), 72, "4C"), card(col(5), 86, "3D"),
    card(col(6), 72, "JH"),
    label(col(0) + CW / 2, 64, t("hw_stock_l")),
    label(col(1) + 24, 64, t("hw_waste_l")),
    label(col(4) + CW + 4, 64, t("hw_found_l")),
    label(col(0) + CW / 2, 146, t("hw_reserve_l")),
    label(col(4) + CW + 4, 146, t("hw_cols_l")),
    s("text", { x: col(0) + CW / 2 + 2, y: 130, "text-anchor": "middle", class: "hw-count" }, "12"),
  ];
  return picture(10 + 7 * 38, 156, ...parts);
}

/** A full foundation with base rank 7: it goes past the king to the ace. */
function foundationPicture() {
  const ranks = "789TJQKA23456";
  return picture(
    20 + 12 * 19 + CW,
    CH + 20,
    ...[...ranks].map((rank, i) => card(10 + i * 19, 10, `${rank}H`)),
  );
}

/** A run in a column, and the card that may go on it. */
function columnPicture() {
  const run = ["QC", "JD", "TS", "9H"];
  const parts = run.map((c, i) => card(20, 10 + i * 16, c));
  parts.push(
    card(110, 58, "8C"),
    s("path", { d: "M104 78 C 88 78, 70 70, 56 64", class: "hw-arrow" }),
    s("path", { d: "M58 58 L52 63 L60 67 Z", class: "hw-arrow-head" }),
  );
  return picture(160, 10 + 3 * 16 + CH + 12, ...parts);
}

const figure = (svg, caption) => h("figure", { class: "hw-fig" }, svg, h("figcaption", { text: t(caption) }));

function section(title, text, fig = null) {
  return h("section", { class: "hw-sec" }, h("h2", { text: t(title) }), h("p", { text: t(text) }), fig);
}

let dialog = null;

/** The page's content, in the current language. */
function build() {
  const close = h("button", { type: "button", class: "primary hw-close", text: t("close"), onclick: () => closeHowTo() });
  dialog.replaceChildren(
    h(
      "div",
      { class: "hw-body" },
      h("div", { class: "hw-top" }, h("h1", { id: "howto-title", text: t("how_to_play") }), close),
      h("p", { class: "lead", text: t("hw_intro") }),
      section("hw_goal_t", "hw_goal"),
      section("hw_layout_t", "hw_layout", figure(layoutPicture(), "hw_fig_layout")),
      section("hw_found_t", "hw_found", figure(foundationPicture(), "hw_fig_found")),
      section("hw_cols_t", "hw_cols", figure(columnPicture(), "hw_fig_cols")),
      section("hw_reserve_t", "hw_reserve"),
      section("hw_stock_t", "hw_stock"),
      section("hw_more_t", "hw_more"),
      section("hw_play_t", "hw_play"),
    ),
  );
}

function openHowTo() {
  build();
  if (!dialog.open) dialog.showModal();
  dialog.scrollTop = 0;
  dialog.querySelector(".hw-close")?.focus();
}

function closeHowTo() {
  if (dialog.open) dialog.close();
  if (location.hash === "#rules") history.replaceState(history.state, "", location.pathname + location.search);
}

/** Create the page once (it opens at #rules). */
export function initHowTo() {
  if (dialog) return;
  dialog = h("dialog", { id: "howto", class: "howto", "aria-labelledby": "howto-title" });
  document.body.append(dialog);
  dialog.addEventListener("close", () => closeHowTo());
  const sync = () => (location.hash === "#rules" ? openHowTo() : dialog.open && dialog.close());
  window.addEventListener("hashchange", sync);
  onLangChange(() => dialog.open && build());
  // the page's own routing may rewrite the address as it starts: read #rules now
  const asked = location.hash === "#rules";
  setTimeout(() => asked && openHowTo(), 0);
}

/** A "How to play" link (home, lobby). */
export const rulesLink = () =>
  h("p", { class: "howto-link" }, h("a", { href: "#rules", "data-i18n": "how_to_play", text: t("how_to_play") }));
