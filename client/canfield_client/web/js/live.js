// The home page's public races in progress (GET /api/live), each a link to
// watch it, asked again while the home page shows.

import { $, h } from "./dom.js";
import { t } from "./i18n.js";
import { setName } from "./store.js";

/** A live race's link keeps the name typed so far: the watch page takes its seat with it. */
function keepName() {
  const who = $("#name").value.trim();
  if (who) setName(who);
}

const EVERY_MS = 10000;

/** "m:ss" of a race's elapsed time. */
function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class LiveRaces {
  constructor() {
    this.races = [];
    this.timer = null;
  }

  /** Ask now and every EVERY_MS while ``showing()`` holds. */
  start(showing) {
    const tick = async () => {
      this.timer = null;
      if (!showing()) return;
      try {
        const reply = await fetch("/api/live", { cache: "no-store" });
        if (reply.ok) this.races = (await reply.json()).races || [];
      } catch {
        // offline: keep the last list
      }
      this.render();
      this.timer = setTimeout(tick, EVERY_MS);
    };
    if (this.timer === null) tick();
  }

  render() {
    const list = $("#live-list");
    list.replaceChildren(
      ...this.races.map((race) =>
        h(
          "li",
          {},
          h("a", { href: `/r/${race.room}?watch=1`, class: "live-race", onclick: keepName },
            h("strong", { text: race.draw === 1 ? t("daily_tab1") : t("daily_tab3") }),
            " ",
            h("span", { text: t("live_racers", { n: race.racers }) }),
            " · ",
            h("span", { text: clock(race.elapsed_ms) }),
            race.leader ? h("span", { text: ` · ${t("live_leads", { name: race.leader })}` }) : null,
            h("span", { class: "live-names", text: ` · ${race.names.join(", ")}` }),
          ),
        ),
      ),
    );
    $("#live-none").hidden = this.races.length > 0;
  }
}
