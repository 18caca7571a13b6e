// What every page shares: the header (chrome.js writes it), the words of the
// page in the chosen language, a toast.

import { mountChrome } from "./chrome.js";
import { $, h } from "./dom.js";
import { LANGUAGES, applyStatic, browserLanguage, locale, onLangChange, setLang, t } from "./i18n.js";
import { getPref, setPref } from "./store.js";

/** Write the header, pick the language (remembered for every page; `?lang=hr` in
 * the link picks it too, for a screen with no header to pick it in: a TV), fill the words. */
export function initShell(relabel = () => {}) {
  mountChrome();
  document.body.classList.toggle("four-colour", Boolean(getPref("four_colour", false)));
  const asked = new URLSearchParams(location.search).get("lang");
  if (LANGUAGES.includes(asked)) setPref("lang", asked);
  const lang = $("#pref-lang");
  lang.value = getPref("lang", browserLanguage());
  lang.addEventListener("change", () => {
    setPref("lang", lang.value);
    setLang(lang.value);
  });
  onLangChange(relabel);
  setLang(lang.value);
  applyStatic(document);
}

let toastTimer = null;

/** A short message at the bottom of the page. */
export function flash(text) {
  const toast = $("#toast");
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toast.hidden = true), 3500);
}

/** "2031-03-14" one UTC day earlier. */
export function dayBefore(date) {
  const at = new Date(`${date}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() - 1);
  return at.toISOString().slice(0, 10);
}

/** The page that shows a replay link ("/replay/<id>" from the server) to people: its own
 * path, which the server fills with the link's preview (a title, a picture). */
/** The page that races a replay's racers as ghosts (`ghost_race`): the room page
 * with the replay's id and, when chosen, the racers' ids in it. */
export function raceThisPage(link, racers = []) {
  const id = String(link || "").split("/").pop();
  const ids = racers.length ? `&racers=${racers.map(encodeURIComponent).join(",")}` : "";
  return `/?ghost=${encodeURIComponent(id)}${ids}`;
}

export function replayPage(link) {
  const id = String(link || "").split("/").pop();
  return `/replays/${encodeURIComponent(id)}`;
}

/** A local date and time for server ms (offset: server minus local clock). */
export function when(serverMs, lang) {
  const at = new Date(serverMs);
  try {
    return at.toLocaleString(locale(lang), { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return at.toISOString().slice(0, 16).replace("T", " ");
  }
}

/** A banner under the header, with a label and a text, until the reader closes
 * it (one at a time: a new one replaces the last). */
export function showBanner(labelKey, text) {
  document.querySelector(".banner.notice")?.remove();
  const close = h("button", { type: "button", class: "quiet", "data-i18n": "close" }, t("close"));
  const banner = h(
    "div",
    { class: text ? "banner notice" : "banner notice bare", role: "status" },
    h("strong", { "data-i18n": labelKey }, t(labelKey)),
    text ? h("span", { class: "notice-text" }, text) : null,
    close,
  );
  close.addEventListener("click", () => banner.remove());
  document.querySelector("header.top").after(banner);
}

/** The operator's notice (a `notice` message, in the operator's words): a banner;
 * each notice shows once. */
export function showNotices(conn) {
  let shown = null;
  conn.on("notice", (msg) => {
    if (msg.id === shown) return;
    shown = msg.id;
    showBanner("notice_label", msg.text);
  });
}
