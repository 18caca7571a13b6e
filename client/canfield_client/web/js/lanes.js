// Live race lanes: one per racer (place, name, cards home along a 52-card
// track), in place order, always in view: beside the board on a wide screen,
// a compact strip above it on a phone. A racer who passes another slides into
// their place. Built from the `leaderboard` rows every page receives (counts
// per racer, never anyone's cards): the track shows the cards home, and after
// them, lighter, the cards on the racer's tableau, so a lane moves as soon as a
// racer plays a card out of the reserve or the stock (home and tableau together
// are every card in play: the reserve and the stock hold the rest); while they
// race, the lane also says how many cards are left in their reserve. Beside
// the name, a signal icon shows the racer's round trip to the server (signal.js).

import { $, h, setText, syncKeyed } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { STATUS } from "./protocol.js";
import { rttText, setSignal, signalIcon } from "./signal.js";

const SLIDE_MS = 320;
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");

/** A bar `cards` of 52 cards long. */
function widen(bar, cards) {
  const width = `${Math.round((Math.max(0, cards) / 52) * 100)}%`;
  if (bar.style.width !== width) bar.style.width = width;
}

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
    lane.who = h("span", { class: "who" });
    lane.tag = h("span", { class: "ghost-tag", hidden: true });
    lane.signal = signalIcon();
    lane.name = h("span", { class: "name" }, lane.who, lane.tag, lane.signal);
    lane.fillBar = h("span", { class: "fill" });
    lane.playBar = h("span", { class: "play" });
    lane.count = h("b", { class: "count" });
    lane.mark = h("span", { class: "mark" });
    const track = h("span", { class: "track", "aria-hidden": "true" }, lane.fillBar, lane.playBar);
    lane.append(lane.place, lane.name, track, lane.count, lane.mark);
    return lane;
  }

  fill(lane, row) {
    lane.classList.toggle("me", row.id === this.read().me?.id);
    // a ghost: a recorded racer the server replays (counts only, like every lane)
    const ghost = Boolean(this.read().roomState?.members?.find((m) => m.id === row.id)?.ghost);
    lane.classList.toggle("lane-ghost", ghost);
    lane.tag.hidden = !ghost;
    setText(lane.tag, ghost ? t("ghost_tag") : "");
    lane.dataset.status = row.status;
    setText(lane.place, row.rank);
    setText(lane.who, row.name);
    setText(lane.count, row.on_foundations);
    const tableau = Number.isInteger(row.tableau) ? row.tableau : 0; // null from an older server
    widen(lane.fillBar, row.on_foundations);
    widen(lane.playBar, row.status === STATUS.WON ? 0 : Math.min(tableau, 52 - row.on_foundations));
    const reserve = Number.isInteger(row.reserve) ? t("lane_reserve", { n: row.reserve }) : "";
    const status = row.status === STATUS.PLAYING ? "" : t(`st_${row.status}`);
    setText(lane.mark, status || reserve);
    // the label says what the lane shows: the cards home, the cards still in play
    // while the racer is in the race (away too: the lighter bar stays), the mark
    const inPlay = row.status === STATUS.PLAYING || row.status === STATUS.DISCONNECTED;
    const parts = [t("lane_label", { place: row.rank, name: row.name, n: row.on_foundations })];
    if (ghost) parts.push(t("ghost_tag"));
    if (inPlay && Number.isInteger(row.tableau)) parts.push(t("lane_tableau", { n: tableau }));
    if (inPlay && reserve) parts.push(reserve);
    if (status) parts.push(status);
    setSignal(lane.signal, row.rtt_ms);
    if (Number.isInteger(row.rtt_ms)) parts.push(rttText(row.rtt_ms));
    lane.setAttribute("aria-label", parts.join(", "));
  }
}
