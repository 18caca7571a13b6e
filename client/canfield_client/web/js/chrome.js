// What every page wears, written once: the site's header (the product name, the
// site's links, the language), the sprite the cards and the replay buttons
// draw from, the offline banner (offlineBanner: shown while the link is down),
// the toast (shell.js flash) and the confirmation box (confirm.js ask). A page keeps only its own bits in its <header class="top">: the
// race page's room tag (data-slot="start", after the name) and its settings
// menu (the rest, at the end). On a narrow screen the links and the language
// fold into one Menu button so the header stays one row.

import { initConfirm } from "./confirm.js";
import { h } from "./dom.js";

const SYMBOLS = {
  "s-H": ["0 0 100 100", '<path d="M50 90C22 68 5 50 5 30 5 15 16 5 29 5c10 0 17 6 21 14C54 11 61 5 71 5c13 0 24 10 24 25 0 20-17 38-45 60Z"/>'],
  "s-D": ["0 0 100 100", '<path d="M50 3 88 50 50 97 12 50Z"/>'],
  "s-C": ["0 0 100 100", '<circle cx="50" cy="27" r="21"/><circle cx="27" cy="58" r="21"/><circle cx="73" cy="58" r="21"/><path d="M45 40h10l8 55H37Z"/>'],
  "s-S": ["0 0 100 100", '<path d="M50 4C36 24 8 40 8 61c0 13 10 22 22 22 8 0 14-4 17-9l-8 22h22l-8-22c3 5 9 9 17 9 12 0 22-9 22-22C92 40 64 24 50 4Z"/>'],
  "i-first": ["0 0 20 20", '<path d="M2 3h2v14H2zM11 3v14L4 10zM18 3v14l-7-7z"/>'],
  "i-back": ["0 0 20 20", '<path d="M4 3h2v14H4zM16 3v14L7 10z"/>'],
  "i-play": ["0 0 20 20", '<path d="M5 3v14l12-7z"/>'],
  "i-pause": ["0 0 20 20", '<path d="M4 3h4v14H4zM12 3h4v14h-4z"/>'],
  "i-fwd": ["0 0 20 20", '<path d="M14 3h2v14h-2zM4 3v14l9-7z"/>'],
  "i-last": ["0 0 20 20", '<path d="M16 3h2v14h-2zM9 3v14l7-7zM2 3v14l7-7z"/>'],
  // an arena's streak and trophies: drawn, not emoji (a system without a colour-emoji font
  // shows an emoji as an empty box)
  "i-flame": ["0 0 20 20", '<path d="M10 1c1 4 6 6 6 11a6 6 0 0 1-12 0c0-3 2-5 3-7 1 2 1 4 2 5 1-3 2-6 1-9Z"/>'],
  "i-medal": ["0 0 20 20", '<path d="M5 1h3l2 6 2-6h3l-3 8H8Z" opacity=".6"/><circle cx="10" cy="13" r="6"/>'],
};

export const SITE_LINKS = [
  ["/", "nav_race"],
  ["/daily", "nav_daily"],
  ["/me", "nav_me"],
  ["/ladder", "nav_ladder"],
];

function sprite() {
  const symbols = Object.entries(SYMBOLS)
    .map(([id, [box, shape]]) => `<symbol id="${id}" viewBox="${box}">${shape}</symbol>`)
    .join("");
  const holder = document.createElement("div");
  holder.innerHTML = `<svg class="sprite" width="0" height="0" aria-hidden="true">${symbols}</svg>`;
  return holder.firstElementChild;
}

function siteMenu() {
  const toggle = h(
    "button",
    { type: "button", class: "fold-toggle site-toggle", "aria-expanded": "false", "aria-controls": "site-panel" },
    h("span", { "aria-hidden": "true", class: "burger" }, "\u2630"),
    h("span", { class: "toggle-label", "data-i18n": "menu" }, "Menu"),
  );
  const nav = h("nav", { class: "site-nav", "data-i18n-label": "site_links" });
  for (const [href, key] of SITE_LINKS) {
    const link = h("a", { href, "data-i18n": key });
    const here = location.pathname === href || (href === "/" && location.pathname.startsWith("/r/"));
    if (here) link.setAttribute("aria-current", "page");
    nav.append(link);
  }
  const select = h("select", { id: "pref-lang" });
  select.append(h("option", { value: "en" }, "English"), h("option", { value: "hr" }, "Hrvatski"));
  const lang = h("label", { class: "lang-pick" }, h("span", { class: "sr-only", "data-i18n": "language" }, "Language"), select);
  const panel = h("div", { class: "fold-panel site-panel", id: "site-panel" }, nav, lang);
  fold(toggle, panel);
  return [toggle, panel];
}

/** A row of controls that folds behind one button on a narrow screen (CSS shows
 * the button and hides the row there): the button opens it as a drop-down. */
export function fold(toggle, panel) {
  const setOpen = (open) => {
    toggle.setAttribute("aria-expanded", String(open));
    panel.classList.toggle("open", open);
  };
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    setOpen(open);
    if (open) panel.querySelector("a, button:not([hidden]), select")?.focus();
  });
  dismissable(
    [toggle, panel],
    () => panel.classList.contains("open"),
    (byKey) => {
      setOpen(false);
      if (byKey) toggle.focus();
    },
  );
  return setOpen;
}

/** Close a pop-up (a menu) on a tap outside its parts or on Escape inside them. */
export function dismissable(parts, isOpen, close) {
  document.addEventListener("pointerdown", (e) => {
    if (isOpen() && !parts.some((part) => part.contains(e.target))) close(false);
  });
  for (const part of parts) {
    part.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || !isOpen()) return;
      e.preventDefault();
      close(true);
    });
  }
}

/** Remember how the reader last acted (html[data-input]): a focus ring belongs to
 * keyboard use; after a tap or a click it would only look like a selection. */
function trackInput() {
  const root = document.documentElement;
  if (matchMedia("(pointer: coarse)").matches) root.dataset.input = "pointer";
  addEventListener("pointerdown", () => (root.dataset.input = "pointer"), true);
  addEventListener(
    "keydown",
    (e) => {
      if (!e.ctrlKey && !e.metaKey) root.dataset.input = "keyboard";
    },
    true,
  );
}

/** Write the header and the sprite into the page (once). */
export function mountChrome() {
  if (document.querySelector(".sprite")) return;
  trackInput();
  document.body.prepend(sprite());
  let top = document.querySelector("header.top");
  if (!top) {
    top = h("header", { class: "top" });
    document.querySelector(".sprite").after(top);
  }
  const own = [...top.children];
  const start = own.filter((el) => el.dataset.slot === "start");
  const end = own.filter((el) => el.dataset.slot !== "start");
  const brand = h("a", { class: "brand", href: "/", "data-i18n": "title" }, "Canfield Race");
  top.replaceChildren(brand, ...start, ...siteMenu(), ...end);
  top.after(h("div", { id: "offline", class: "banner", role: "status", hidden: true, "data-i18n": "reconnecting" }));
  const yes = h("button", { type: "button", id: "confirm-yes", class: "primary" });
  const no = h("button", { type: "button", id: "confirm-no", class: "quiet" });
  document.body.append(
    h("div", { id: "toast", class: "toast", role: "alert", hidden: true }),
    h("dialog", { id: "confirm", class: "confirm", "aria-labelledby": "confirm-text" }, h("p", { id: "confirm-text" }), h("div", { class: "row" }, yes, no)),
  );
  initConfirm();
}

/** The offline banner follows the connection: shown while the link is down (and
 * `when()` holds: the room page only while it is in a room), gone once it is back. */
export function offlineBanner(conn, when = () => true) {
  const banner = () => document.getElementById("offline"); // written by mountChrome
  conn.on("open", () => (banner().hidden = true));
  conn.on("close", () => {
    if (when()) banner().hidden = false;
  });
}
