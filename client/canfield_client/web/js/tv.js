// TV mode: the room page as a screen across a room. No site header, big type
// (readable from the sofa), and in a corner the room's code with a QR code of
// its link, so anyone in the room joins with a phone's camera. `?tv=1` in the
// link turns it on (a TV opens /r/CODE?tv=1 and watches with no name typed),
// `?tv=0` off; the spectator screen's "Big screen" button does the same, and the
// link keeps it (a reload stays a TV). The QR code is a picture the server makes
// (`/r/CODE/qr.svg`): nothing loads from another site.

import { $, h, setText } from "./dom.js";
import { onLangChange, t } from "./i18n.js";

/** Where the join box sits in each view: after the race's head row, beside the
 * lobby's players, under the results' title. */
const SLOTS = {
  race: (box) => $("#view-race .race-head").append(box),
  lobby: (box) => $("#view-lobby .lobby-grid").append(box),
  results: (box) => $("#view-results h1").after(box),
};

/** TV mode asked for by the page's link: true, false, or null (not said). */
export function tvAsked(search = location.search) {
  const params = new URLSearchParams(search);
  const asked = params.get("tv") ?? params.get("big"); // `?big=1`: the older link
  return asked === null ? null : asked === "1";
}

export class TvMode {
  constructor() {
    this.room = null;
    this.code = h("b", { class: "tv-code" });
    this.link = h("span", { class: "tv-link" });
    this.qr = h("img", { class: "tv-qr", alt: "", width: "33", height: "33", decoding: "async" });
    this.label = h("span", { class: "tv-label" });
    this.exit = h("button", { type: "button", class: "quiet tv-exit", text: t("tv_exit"), onclick: () => this.set(false) });
    this.box = h("aside", { id: "tv-join", class: "tv-join", hidden: true },
      this.qr, h("div", { class: "tv-words" }, this.label, this.code, this.link), this.exit);
    this.listeners = new Set();
    this.set(tvAsked() === true);
    onLangChange(() => this.words());
  }

  /** Call `fn(on)` whenever TV mode turns on or off. */
  onChange(fn) {
    this.listeners.add(fn);
  }

  /** TV mode on or off, kept in the link (a reload of a TV's page stays a TV). */
  set(on) {
    this.on = on;
    document.body.classList.toggle("tv", on);
    document.body.classList.toggle("big-screen", on);
    const url = new URL(location.href);
    url.searchParams.delete("big");
    if (on) url.searchParams.set("tv", "1");
    else url.searchParams.delete("tv");
    if (url.href !== location.href) history.replaceState(history.state, "", url);
    this.box.hidden = !on || !this.room;
    for (const fn of this.listeners) fn(on);
  }

  /** Show the join box of `room` (a code, or null: no room) in `view`'s slot. */
  show(view, room) {
    if (room !== this.room) {
      this.room = room;
      if (room) {
        this.qr.src = `/r/${encodeURIComponent(room)}/qr.svg`;
        this.words();
      }
    }
    const slot = SLOTS[view];
    if (slot && room && this.box.dataset.view !== view) {
      slot(this.box);
      this.box.dataset.view = view;
    }
    this.box.hidden = !this.on || !room || !slot;
  }

  words() {
    setText(this.label, t("tv_join"));
    setText(this.exit, t("tv_exit"));
    if (!this.room) return;
    setText(this.code, this.room);
    setText(this.link, `${location.host}/r/${this.room}`);
    this.qr.alt = t("tv_qr", { code: this.room });
  }
}
