// A best-of-N series tally, from the room's `series` ({best_of, races,
// scores: [{id, name, wins}], winner_id}) and its settings' best_of; shown in
// the lobby and on the results.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The tally as an element, or null in a room of single races. me: our player id. */
export function seriesEl(room, me = null) {
  const series = room?.series || null;
  const bestOf = Number(series?.best_of || room?.settings?.best_of || 1);
  if (bestOf <= 1) return null;
  const need = Math.floor(bestOf / 2) + 1;
  const box = h("div", { class: "series", dataset: { bestOf: String(bestOf) } });
  const decided = series && series.winner_id && series.best_of === bestOf;
  box.append(
    h("h3", {
      class: "series-head",
      text: series?.races ? t("series_head", { n: bestOf, races: series.races }) : `${t("series")}: ${t("best_of")} ${bestOf}`,
    }),
  );
  if (series?.scores?.length) {
    box.append(
      h(
        "ol",
        { class: "series-scores" },
        series.scores.map((score) => {
          const pips = h("span", { class: "pips", "aria-hidden": "true" });
          for (let i = 0; i < need; i += 1) pips.append(h("i", { class: i < score.wins ? "on" : "" }));
          return h(
            "li",
            {
              class: [score.id === me ? "me" : "", score.id === series.winner_id ? "winner" : ""].join(" ").trim(),
              dataset: { id: score.id, wins: String(score.wins) },
            },
            h("span", { class: "who", text: score.name }),
            pips,
            h("b", { class: "wins", text: t("series_wins", { n: score.wins }) }),
          );
        }),
      ),
    );
  }
  if (decided) {
    const winner = series.scores.find((s) => s.id === series.winner_id);
    box.append(h("p", { class: "series-winner", text: t("series_winner", { name: winner?.name || "?" }) }));
  } else {
    box.append(h("p", { class: "hint", text: t("series_first_to", { n: need }) }));
  }
  return box;
}
