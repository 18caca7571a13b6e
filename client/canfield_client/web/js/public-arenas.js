// The home page's announcement of the public arenas (GET /api/arenas): the one
// running now (else the next) with its countdown and one click to race in it,
// and the one after it in a line. Asked again every minute while the home page
// shows; the countdown ticks each second on the server's clock.

import { $, clock, h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { arenaName } from "./arena-words.js";
import { keepTypedName } from "./home.js";
import { Poll } from "./poll.js";

const EVERY_MS = 60000;

export class ArenaAnnouncement {
  constructor() {
    this.arenas = [];
    this.offset = 0; // server time - this clock
    this.poll = new Poll("/api/arenas", EVERY_MS);
    this.ticker = null;
  }

  /** Ask now and every EVERY_MS while ``showing()`` holds; the clock each second. */
  start(showing) {
    const take = (body) => {
      this.arenas = body.arenas || [];
      this.offset = body.server_time - Date.now();
    };
    this.poll.start(showing, take, () => this.render());
    if (this.ticker === null) {
      this.ticker = setInterval(() => (showing() ? this.render() : null), 1000);
    }
  }

  render() {
    const now = Date.now() + this.offset;
    // one in its last minute starts no heat: the next is announced instead
    const live = this.arenas.filter((a) => a.ends_at > now && a.status !== "closing");
    const panel = $("#arena-promo");
    panel.hidden = live.length === 0;
    if (!live.length) return;
    const [first, next] = live;
    const running = first.starts_at <= now;
    $("#arena-promo-title").textContent = arenaName(first);
    $("#arena-promo-kicker").textContent = t(running ? "promo_on_now" : "promo_next");
    $("#arena-promo-when").textContent = running
      ? t("arena_ends_in", { time: clock(first.ends_at - now) })
      : t("arena_starts_in", { time: clock(first.starts_at - now) });
    $("#arena-promo-facts").textContent = [
      t("arena_minutes", { n: first.minutes }),
      t("arena_racers", { n: first.racers }),
      t("promo_rated"),
    ].join(" · ");
    const go = $("#arena-promo-go");
    go.href = `/a/${first.code}?join=1`;
    go.textContent = t(running ? "promo_join" : "promo_join_early");
    go.onclick = keepTypedName;
    const after = $("#arena-promo-after");
    after.hidden = !next;
    if (next) {
      const at = new Date(next.starts_at).toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" });
      after.replaceChildren(h("span", { text: t("promo_after", { name: arenaName(next), at }) }), " ", h("a", { href: `/a/${next.code}`, text: t("promo_see") }));
    }
  }
}
