// An arena's name and a trophy in the reader's language: a public arena (made by
// the server from its timetable) is named by its period and draw mode ("Hourly
// arena · Draw 3 cards"), a private one by its host's words.

import { t } from "./i18n.js";

const PERIODS = { 60: "arena_hourly", 1440: "arena_daily", 10080: "arena_weekly" };

/** The name to show for an arena (`arena`, `arena_history` and `/api/arenas` objects). */
export function arenaName(a) {
  if (!a.public || !a.every) return a.name;
  const period = PERIODS[a.every] ? t(PERIODS[a.every]) : t("arena_every", { n: a.every });
  return `${period} · ${t(a.draw === 1 ? "daily_tab1" : "daily_tab3")}`;
}

const MEDALS = { 1: "🥇", 2: "🥈", 3: "🥉" };

/** A trophy's medal and its words (1st, 2nd or 3rd place in a public arena). */
export function trophy(place) {
  return { medal: MEDALS[place] || "", words: t("arena_trophy", { n: place }) };
}
