// An arena's name and a trophy in the reader's language: a public arena (made by
// the server from its timetable) is named by its period and draw mode ("Hourly
// arena · Draw 3 cards"), a private one by its host's words.

import { h, icon } from "./dom.js";
import { t } from "./i18n.js";

const PERIODS = { 60: "arena_hourly", 1440: "arena_daily", 10080: "arena_weekly" };

/** The name to show for an arena (`arena`, `arena_history` and `/api/arenas` objects). */
export function arenaName(a) {
  if (!a.public || !a.every) return a.name;
  const period = PERIODS[a.every] ? t(PERIODS[a.every]) : t("arena_every", { n: a.every });
  return `${period} · ${t(a.draw === 1 ? "daily_tab1" : "daily_tab3")}`;
}

/** A trophy's words (1st, 2nd or 3rd place in a public arena). */
export const trophyWords = (place) => t("arena_trophy", { n: place });

/** A trophy's medal, gold, silver or bronze, labelled `label` (its words by default). */
export function medal(place, label = trophyWords(place)) {
  return h("span", { class: `medal medal-${place}`, role: "img", title: label, "aria-label": label }, icon("#i-medal"));
}
