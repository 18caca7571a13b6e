// What the race view shows besides the board: the moment a player finishes
// (their place from the leaderboard, a short celebration for a win), every
// rival's finish announced to everyone as it happens, and the
// live race chart for everyone who is not playing (spectators, late joiners,
// players who are done) until the race ends.
//
// The chart is drawn from what every page receives: the `leaderboard` rows
// over time (cards home per player, never anyone's cards). A point is taken
// when a player's count changes, at the row's own time_ms (the time of their
// last accepted action), so the line steps where the action happened.

import { $, clock, h } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { RaceChart } from "./chart.js";
import { ordinal, placeText } from "./words.js";
import { DONE_STATUSES as DONE } from "./protocol.js";

/** How long a finish stays announced on screen, and how many show at once. */
const NEWS_MS = 8000;
/** How long your own win owns the screen before it gets out of the way. */
const MOMENT_MS = 2600;
const NEWS_MAX = 3;

const CONFETTI = ["#ffcf3f", "#ff6b6b", "#4dabf7", "#51cf66", "#cc5de8", "#ffa94d"];

export class RaceWatch {
  /** conn: the Connection (its messages are heard here too, after main.js's);
   * read(): the page's race state (js/state.js), what this view shows;
   * onFinish(row, mine): told of each racer's finish as it happens (a sound). */
  constructor(conn, read, onFinish = () => {}) {
    this.conn = conn;
    this.read = read;
    this.onFinish = onFinish;
    this.raceKey = null; // started_at of the race being recorded
    this.series = new Map(); // player id -> {id, name, points: [[ms, cards]], end}
    this.celebrated = null; // the race whose win the moment showed
    this.placed = null; // the race whose win's place and time the moment has
    this.statuses = new Map(); // player id -> last status seen in this race
    // over the board, never pushing it: a finish shows without moving a card
    this.news = h("div", { id: "race-news", class: "race-news", role: "status", "aria-live": "polite" });
    $("#view-race").append(this.news);
    this.finish = h("div", { class: "finish-card", role: "status", hidden: true });
    // your own win, over everything for a moment (the finish card says it to screen readers)
    this.moment = h("div", { id: "moment", class: "moment", hidden: true, "aria-hidden": "true" });
    this.moment.addEventListener("click", () => (this.moment.hidden = true));
    document.body.append(this.moment);
    this.chartTitle = h("h2", { text: t("race_chart") });
    const panel = h("div", { class: "chart-panel" }, this.chartTitle);
    this.box = h("section", { id: "race-watch", class: "race-watch", hidden: true }, this.finish, panel);
    $("#view-race .race-main").prepend(this.box);
    // on the spectator's wide screen the chart fills the height it is given
    const wide = window.matchMedia?.("(min-width: 761px)");
    this.chart = new RaceChart(panel, "time", { fit: () => document.body.classList.contains("spectator") && Boolean(wide?.matches) });
    const later = () => setTimeout(() => this.update(), 0); // after main.js updated the state
    conn.on("started", (msg) => {
      this.restart(msg.started_at);
      later();
    });
    conn.on("progress", (msg) => {
      this.recall(msg);
      later();
    });
    conn.on("leaderboard", (msg) => {
      this.record(msg);
      later();
    });
    for (const type of ["ack", "board", "room", "joined", "finished"]) conn.on(type, later);
    onLangChange(() => {
      for (const item of this.news.children) item.textContent = finishText(item.row);
      this.update();
    });
    setInterval(() => {
      if (!this.box.hidden) this.update(); // the time axis runs on
    }, 1000);
  }

  restart(startedAt) {
    this.raceKey = startedAt;
    this.series.clear();
    this.statuses.clear();
    this.news.replaceChildren();
    this.celebrated = null;
    this.placed = null;
    this.chart.reset();
  }

  /** The race so far (a `progress` message: we came in mid-race): each racer's
   * line from the start, ahead of what the leaderboard rows add from now on. */
  recall(msg) {
    if (!msg.started_at || !Array.isArray(msg.racers)) return;
    if (this.raceKey !== msg.started_at) this.restart(msg.started_at);
    for (const racer of msg.racers) {
      const past = stepsOf(racer.reached || []);
      if (!past.length) continue;
      const line = this.series.get(racer.id) || { id: racer.id, name: "", points: [], end: null };
      const since = line.points.filter(([ms]) => ms > past[past.length - 1][0]);
      line.points = [...past, ...since];
      this.series.set(racer.id, line);
    }
  }

  /** Take a leaderboard message into the lines. */
  record(msg) {
    const state = this.read();
    const startedAt = state.startedAt;
    if (!startedAt || !Array.isArray(msg.rows)) return;
    if (this.raceKey !== startedAt) this.restart(startedAt);
    const now = Math.max(0, (msg.server_time || 0) - startedAt);
    for (const row of msg.rows) {
      let line = this.series.get(row.id);
      if (!line) {
        // everyone starts with the base card home; a page that came in late starts where it came in
        const fresh = now < 3000 || row.on_foundations <= 1;
        line = { id: row.id, name: row.name, points: fresh ? [[0, 1]] : [[now, row.on_foundations]], end: null };
        this.series.set(row.id, line);
      }
      line.name = row.name;
      const lastPoint = line.points[line.points.length - 1];
      if (row.on_foundations !== lastPoint[1]) {
        const at = Math.min(now, Math.max(lastPoint[0], Number(row.time_ms) || now));
        line.points.push([at, row.on_foundations]);
      }
      line.end = DONE.has(row.status) ? Math.max(Number(row.time_ms) || 0, lastPoint[0]) : null;
      const before = this.statuses.get(row.id);
      this.statuses.set(row.id, row.status);
      // a page that comes in late (or reloads) takes what is done as old news
      if (before !== undefined && !DONE.has(before) && DONE.has(row.status)) {
        this.announce(row);
        this.onFinish(row, row.id === state.me?.id);
      }
    }
  }

  /** "Ana finished 1st in 0:39", on every page but the finisher's own (theirs has its moment). */
  announce(row) {
    const state = this.read();
    if (row.id === state.me?.id) return;
    const text = finishText(row);
    if (!text) return; // out of time or stopped: the race is over, the results say it
    const item = h("p", { class: `news ${row.status}`, text });
    item.row = row; // said again in another language, should the reader switch
    this.news.prepend(item);
    while (this.news.children.length > NEWS_MAX) this.news.lastChild.remove();
    setTimeout(() => item.remove(), NEWS_MS);
  }

  myRow() {
    const state = this.read();
    return state.leaderboard?.rows?.find((r) => r.id === state.me?.id) || null;
  }

  isDone() {
    const state = this.read();
    return Boolean(state.board?.won) || DONE.has(this.myRow()?.status);
  }

  update() {
    const state = this.read();
    const me = state.me;
    const racing = state.view === "race" && Boolean(state.startedAt);
    const player = me?.role === "player" && !me?.waiting;
    const done = racing && player && this.isDone();
    document.body.classList.toggle("race-done", done);
    this.box.hidden = !racing || (player && !done);
    this.renderFinish(done);
    if (this.box.hidden) return;
    this.chartTitle.textContent = t("race_chart");
    const rows = state.leaderboard?.rows || [];
    const lines = rows.map((row) => this.series.get(row.id)).filter(Boolean);
    this.chart.order(playerIds(state.roomState));
    this.chart.render(lines, {
      me: me?.id,
      xEnd: Math.max(0, this.conn.serverNow() - state.startedAt),
      note: t("chart_live_note"),
    });
  }

  /** "2nd of 4", what happened, and confetti the first time we see our win.
   * Our board says won before the leaderboard's row does (its frames are
   * coalesced, and late on a busy server): until the row is the win, its place
   * and time are those of the race before it, so the win shows without them, and
   * they come with the row that says won (the time the race clock stops at). */
  renderFinish(done) {
    const state = this.read();
    const row = this.myRow();
    const boardWon = Boolean(state.board?.won);
    if (!done || (!row && !boardWon)) {
      this.finish.hidden = true;
      return;
    }
    const rows = state.leaderboard?.rows || [];
    const won = row?.status === "won" || boardWon;
    const settled = row && (!won || row.status === "won"); // the row has our finish in it
    // a win's place never changes (later wins rank after it); any other waits for the rest
    const final = won || rows.every((r) => DONE.has(r.status));
    const what = won
      ? t("finish_won")
      : t({ left: "finish_left", timed_out: "finish_timed_out", stopped: "finish_stopped" }[row.status] || "finish_gave_up");
    const detail = !settled ? "" : won ? `${clock(row.time_ms)}` : t("finish_cards", { n: row.on_foundations });
    const tied = settled && rows.filter((r) => r.rank === row.rank).length > 1; // the lanes show the same place twice
    const place = settled ? placeText(row.rank, rows.length, tied) : "";
    this.finish.hidden = false;
    this.finish.classList.toggle("won", won);
    const confetti = this.finish.querySelector(".confetti");
    this.finish.replaceChildren(
      ...(settled
        ? [h("div", { class: "place" },
            h("b", { class: "place-text", text: place }),
            h("span", { class: "hint", text: t(final ? "place_final" : "place_so_far") }))]
        : []),
      h("div", { class: "what" }, h("b", { text: what }), h("span", { text: detail })),
      h("p", { class: "hint", text: t("finish_watch") }),
    );
    if (confetti) this.finish.append(confetti);
    if (!won) return;
    if (this.celebrated !== this.raceKey) {
      this.celebrated = this.raceKey;
      this.placed = null;
      this.showMoment(what);
    }
    if (settled && this.placed !== this.raceKey) {
      this.placed = this.raceKey;
      this.placeMoment(`${place} \u00b7 ${clock(row.time_ms)}`);
    }
  }

  /** "You won!" over the whole screen, with confetti, then out of the way (or on
   * a click); its place and time come with the leaderboard's row (placeMoment). */
  showMoment(title) {
    this.momentDetail = h("span", { class: "moment-detail", hidden: true });
    this.moment.replaceChildren(
      h("div", { class: "moment-card" }, h("b", { class: "moment-title", text: title }), this.momentDetail),
      burst(),
    );
    this.moment.hidden = false;
    this.hideMomentLater();
  }

  /** The win's place and time in the moment; still on screen, it stays a full
   * moment more for them to be read (gone, the finish card says them). */
  placeMoment(detail) {
    this.momentDetail.textContent = detail;
    this.momentDetail.hidden = false;
    if (!this.moment.hidden) this.hideMomentLater();
  }

  hideMomentLater() {
    clearTimeout(this.momentTimer);
    this.momentTimer = setTimeout(() => (this.moment.hidden = true), MOMENT_MS);
  }
}

const NEWS = { won: "news_won", gave_up: "news_gave_up", left: "news_left" };

/** A finish in words ("Ana finished 1st in 0:39", "Bob gave up with 12 cards home"),
 * or null for a row that is not one (still racing, out of time, stopped). */
export function finishText(row) {
  const key = NEWS[row.status];
  return key ? t(key, { name: row.name, place: ordinal(row.rank), time: clock(row.time_ms), n: row.on_foundations }) : null;
}

/** A step line's points from `reached` (reached[n]: ms when n cards were first home). */
function stepsOf(reached) {
  const points = [];
  reached.forEach((ms, cards) => {
    if (!cards) return; // no racer has fewer cards than the base card
    const lastPoint = points[points.length - 1];
    if (lastPoint && lastPoint[0] === ms) lastPoint[1] = cards;
    else points.push([ms, cards]);
  });
  return points;
}

/** The room's players in the order they joined. */
export const playerIds = (room) => (room?.members || []).filter((m) => m.role === "player").map((m) => m.id);

/** A short burst of confetti (CSS animation; none for reduced motion). */
function burst() {
  const box = h("div", { class: "confetti", "aria-hidden": "true" });
  for (let i = 0; i < 36; i += 1) {
    const bit = h("i");
    bit.style.cssText =
      `left:${(i * 37) % 100}%;background:${CONFETTI[i % CONFETTI.length]};` +
      `animation-delay:${(i % 9) * 60}ms;--drift:${((i * 53) % 120) - 60}px;--spin:${(i * 97) % 720}deg`;
    box.append(bit);
  }
  setTimeout(() => box.remove(), 3200);
  return box;
}
