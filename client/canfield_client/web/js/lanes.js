// Live race lanes: one per racer (place, name, cards home along a 52-card
// track), in place order, always in view: beside the board on a wide screen,
// a compact strip above it on a phone. A racer who passes another slides into
// their place. Built from the `leaderboard` rows every page receives (cards
// home per racer, never anyone's cards).

import { $, h, setText, syncKeyed } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { STATUS } from "./protocol.js";

const SLIDE_MS = 320;
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");

export class Lanes {
  /** conn: the Connection (its messages are heard here too); read(): the page's
   * race state (js/state.js), for which racer is this page's. */
  constructor(conn, read) {
    this.read = read;
    this.lanes = new Map(); // player id -> lane element
    this.rows = [];
    this.list = h("ol", { class: "lanes", "aria-label": t("lanes") });
    $("#race-lb").prepend(this.list);
    conn.on("started", () => this.clear());
    conn.on("leaderboard", (msg) => this.update(msg.rows || []));
    onLangChange(() => {
      this.list.setAttribute("aria-label", t("lanes"));
      this.update(this.rows);
    });
  }

  clear() {
    this.lanes.clear();
    this.order = "";
    this.rows = [];
    this.list.replaceChildren();
  }

  update(rows) {
    this.rows = rows;
    const order = rows.map((row) => row.id).join();
    const moved = order !== this.order && !reducedMotion?.matches;
    this.order = order;
    // lanes are measured for the slide only when the order changes (most updates do not)
    const before = moved ? new Map([...this.lanes].map(([id, lane]) => [id, lane.getBoundingClientRect().top])) : null;
    syncKeyed(this.list, this.lanes, rows, () => this.makeLane(), (lane, row) => this.fill(lane, row));
    if (!before) return;
    for (const [id, lane] of this.lanes) {
      const from = before.get(id);
      const dy = from === undefined ? 0 : from - lane.getBoundingClientRect().top;
      if (Math.abs(dy) > 1) {
        lane.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
      }
    }
  }

  makeLane() {
    const lane = h("li", { class: "lane" });
    lane.place = h("b", { class: "place" });
    lane.name = h("span", { class: "name" });
    lane.fillBar = h("span", { class: "fill" });
    lane.count = h("b", { class: "count" });
    lane.mark = h("span", { class: "mark" });
    lane.append(lane.place, lane.name, h("span", { class: "track", "aria-hidden": "true" }, lane.fillBar), lane.count, lane.mark);
    return lane;
  }

  fill(lane, row) {
    lane.classList.toggle("me", row.id === this.read().me?.id);
    lane.dataset.status = row.status;
    setText(lane.place, row.rank);
    setText(lane.name, row.name);
    setText(lane.count, row.on_foundations);
    const width = `${Math.round((row.on_foundations / 52) * 100)}%`;
    if (lane.fillBar.style.width !== width) lane.fillBar.style.width = width;
    setText(lane.mark, row.status === STATUS.PLAYING ? "" : t(`st_${row.status}`));
    lane.setAttribute("aria-label", t("lane_label", { place: row.rank, name: row.name, n: row.on_foundations }));
  }
}
