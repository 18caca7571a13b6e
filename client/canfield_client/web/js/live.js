// The home page's public races in progress (GET /api/live), each a link to
// watch it, asked again while the home page shows.

import { $, clock, h } from "./dom.js";
import { keepTypedName } from "./home.js";
import { t } from "./i18n.js";
import { Poll } from "./poll.js";

const EVERY_MS = 10000;

export class LiveRaces {
  constructor() {
    this.races = [];
    this.poll = new Poll("/api/live", EVERY_MS);
  }

  /** Ask now and every EVERY_MS while ``showing()`` holds. */
  start(showing) {
    this.poll.start(
      showing,
      (body) => (this.races = body.races || []),
      () => this.render(),
    );
  }

  render() {
    const list = $("#live-list");
    list.replaceChildren(
      ...this.races.map((race) =>
        h(
          "li",
          {},
          h("a", { href: `/r/${race.room}?watch=1`, class: "live-race", onclick: keepTypedName },
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
