// The spectator screen: what someone watching a race sees (a spectator, or a
// late joiner waiting for the rematch). The race page's own parts - the lanes,
// the live race chart, the standings - fill the screen (app.css lays them out);
// this module adds the feed of finishes and the "Big screen" button, which turns
// TV mode on and off (tv.js). Everything here comes from the leaderboard rows
// every page receives: cards home per racer, never anyone's cards.

import { $, clock, h, setText, syncKeyed } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { finishText } from "./racewatch.js";
import { ordinal } from "./words.js";

export class WatchScreen {
  /** conn: the Connection (its messages are heard here too); tv: the page's TvMode. */
  constructor(conn, tv) {
    this.rows = [];
    this.items = new Map(); // player id -> feed item
    this.seen = null; // ids already finished when the feed was first filled (old news)
    this.title = h("h2", { id: "watch-feed-title", text: t("watch_feed") });
    this.list = h("ol", { class: "feed" });
    this.empty = h("p", { class: "hint feed-empty", text: t("watch_feed_empty") });
    // no live region: #race-news says each finish aloud already
    this.panel = h("section", { id: "watch-feed", class: "feed-panel", "aria-labelledby": "watch-feed-title" },
      this.title, this.list, this.empty);
    $("#view-race .race-main").append(this.panel);
    this.toggle = h("button", { type: "button", id: "big-screen", class: "quiet", "aria-pressed": "false", text: t("watch_big") });
    this.toggle.addEventListener("click", () => tv.set(!tv.on));
    $("#leave-race").before(this.toggle);
    const pressed = (on) => this.toggle.setAttribute("aria-pressed", String(on));
    tv.onChange(pressed);
    pressed(tv.on);
    conn.on("started", () => {
      this.seen = null;
      this.show([]);
    });
    conn.on("leaderboard", (msg) => this.show(msg.rows || []));
    onLangChange(() => {
      setText(this.title, t("watch_feed"));
      setText(this.empty, t("watch_feed_empty"));
      setText(this.toggle, t("watch_big"));
      this.show(this.rows);
    });
  }

  /** The feed: every finish and give-up so far, the latest first. */
  show(rows) {
    this.rows = rows;
    const done = rows.filter((row) => finishText(row)).sort((a, b) => b.time_ms - a.time_ms);
    // what was over before this page came in is no news: only later finishes light up
    const fresh = this.seen !== null;
    this.seen ??= new Set(done.map((row) => row.id));
    syncKeyed(this.list, this.items, done, () => this.makeItem(), (item, row) => {
      if (fresh && !this.seen.has(row.id)) {
        this.seen.add(row.id);
        item.classList.add("fresh");
      }
      this.fill(item, row);
    });
    this.empty.hidden = done.length > 0;
  }

  makeItem() {
    const item = h("li", { class: "feed-item" });
    item.place = h("b", { class: "place" });
    item.what = h("span", { class: "what" });
    item.detail = h("span", { class: "detail" });
    item.append(item.place, h("span", { class: "words" }, item.what, item.detail));
    return item;
  }

  fill(item, row) {
    item.dataset.status = row.status;
    item.dataset.id = row.id;
    setText(item.place, ordinal(row.rank));
    setText(item.what, finishText(row));
    setText(item.detail, t("watch_feed_detail", { time: clock(row.time_ms), n: row.on_foundations }));
  }
}
