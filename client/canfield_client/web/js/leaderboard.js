// The live leaderboard: one table whose rows are kept (keyed by player id) and
// updated in place, so frequent updates never flicker. A finished player shows
// their finish time; the others show the race clock, ticking locally.

import { clock, h, setText, syncKeyed } from "./dom.js";
import { t } from "./i18n.js";
import { DONE_STATUSES as DONE } from "./protocol.js";
import { setSignal, signalIcon } from "./signal.js";

const COLUMNS = ["rank", "player", "score", "cards", "moves", "status", "time"];
/** The results' columns: each racer's median round trip to the server too. */
export const FINAL_COLUMNS = [...COLUMNS, "rtt"];
/** Statuses whose time stands still (the row's own time_ms). */

export class Leaderboard {
  /** raceClock: () => ms since the race started, or null (no race running);
   * remove: {can(row), send(row)} - a "remove" button on the rows it allows (the host's);
   * awayLeft: (row) => seconds an away racer has left to come back, or null;
   * isGhost: (row) => whether the row is a ghost's (a recorded racer the server replays). */
  constructor(root, raceClock = () => null, remove = null, awayLeft = () => null, columns = COLUMNS, isGhost = () => false) {
    this.columns = columns;
    this.isGhost = isGhost;
    this.raceClock = raceClock;
    this.remove = remove;
    this.awayLeft = awayLeft;
    this.rows = new Map();
    this.data = null;
    this.me = null;
    this.head = h("tr");
    this.body = h("tbody");
    this.table = h("table", { class: "leaderboard" }, h("thead", {}, this.head), this.body);
    root.append(this.table);
    this.relabel();
    setInterval(() => this.tick(), 250);
  }

  relabel() {
    this.head.replaceChildren(...this.columns.map((key) => h("th", { class: `c-${key}`, text: t(key) })));
    if (this.data) this.update(this.data, this.me);
  }

  /** rows: the server's leaderboard rows (rank order); me: our player id. */
  update(data, me = this.me) {
    this.data = data;
    this.me = me;
    syncKeyed(this.body, this.rows, data.rows, () => this.makeRow(), (tr, row) => {
      this.fill(tr, row);
      tr.classList.toggle("me", row.id === me);
    });
    this.tick();
  }

  /** Empty the table (a new race starts). */
  clear() {
    this.data = null;
    this.rows.clear();
    this.body.replaceChildren();
  }

  makeRow() {
    const tr = h("tr");
    tr.cells_ = {};
    for (const key of this.columns) {
      const td = h("td", { class: `c-${key}` });
      tr.cells_[key] = td;
      tr.append(td);
    }
    tr.bar = h("span", { class: "fill" });
    tr.count = h("span", { class: "num" });
    tr.cells_.cards.append(h("span", { class: "bar" }, tr.bar), tr.count);
    tr.name = h("span");
    tr.tag = h("span", { class: "ghost-tag", hidden: true }); // a ghost's row, said in words
    tr.cells_.player.append(tr.name, tr.tag);
    if (this.remove) {
      tr.kick = h("button", {
        type: "button",
        class: "quiet kick",
        hidden: true,
        onclick: () => tr.row && this.remove.send(tr.row),
      });
      tr.cells_.player.append(tr.kick);
    }
    return tr;
  }

  fill(tr, row) {
    const c = tr.cells_;
    tr.row = row;
    tr.dataset.status = row.status;
    setText(c.rank, row.rank);
    setText(tr.name, row.name);
    const ghost = Boolean(this.isGhost(row));
    tr.classList.toggle("ghost-row", ghost);
    tr.tag.hidden = !ghost;
    setText(tr.tag, ghost ? t("ghost_tag") : "");
    if (tr.kick) {
      const shown = this.remove.can(row);
      tr.kick.hidden = !shown;
      setText(tr.kick, shown ? t("remove") : ""); // a hidden button adds no text to the cell
      tr.kick.setAttribute("aria-label", t("remove_who", { name: row.name }));
    }
    setText(c.score, row.score);
    setText(tr.count, row.on_foundations);
    const width = `${Math.round((row.on_foundations / 52) * 100)}%`;
    if (tr.bar.style.width !== width) tr.bar.style.width = width;
    setText(c.moves, row.moves);
    if (c.rtt) this.fillRtt(tr, row.rtt_ms);
    this.fillStatus(tr);
  }

  /** The median round trip: its icon and its ms ("-": not measured). */
  fillRtt(tr, ms) {
    if (!tr.signal) {
      tr.signal = signalIcon();
      tr.rtt = h("span", { class: "num" });
      tr.cells_.rtt.append(tr.signal, tr.rtt);
    }
    setSignal(tr.signal, ms);
    setText(tr.rtt, Number.isInteger(ms) ? t("rtt_ms", { ms }) : "\u2013");
  }

  /** The status word; an away racer's counts down the seconds left to come back. */
  fillStatus(tr) {
    const row = tr.row;
    const left = row.status === "disconnected" && !this.data?.final ? this.awayLeft(row) : null;
    setText(tr.cells_.status, left === null ? t(`st_${row.status}`) : t("away_s", { s: left }));
  }

  /** Clocks of players still racing run on between updates. */
  tick() {
    if (!this.data) return;
    const now = this.data.final ? null : this.raceClock();
    for (const tr of this.rows.values()) {
      const row = tr.row;
      setText(tr.cells_.time, clock(DONE.has(row.status) || now === null ? row.time_ms : now));
      if (row.status === "disconnected") this.fillStatus(tr);
    }
  }
}
