// Public races' ratings on a page: the estimate with its uncertainty, marked "?"
// while provisional (still uncertain, as lichess shows "1500?"), one's own
// ratings (GET /api/rating, with the identity's token) and the small chart of
// them (/me). The server computes everything; the page only words and draws it.

import { h, svgEl as svg } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { identityToken } from "./identity.js";

/** "1 234 ± 85", "1 000? ± 323": the rating (its estimate), "?" while it is
 * provisional, and its uncertainty. */
export function ratingText(rating, deviation, provisional = false) {
  const n = (value) => Number(value).toLocaleString(getLang());
  return `${n(rating)}${provisional ? "?" : ""} \u00b1 ${n(deviation)}`;
}

/** "+34", "−12", "±0": how much one race moved a rating's estimate. */
export function changeText(change) {
  const n = Math.abs(change).toLocaleString(getLang());
  return change > 0 ? `+${n}` : change < 0 ? `\u2212${n}` : "\u00b10";
}

/** Why a racer was not rated (``RatedRow.unrated``, docs/security.md "Fair play"), in words. */
export function unratedWhy(reason) {
  const key = `rt_why_${String(reason).replaceAll("-", "_")}`;
  const said = t(key);
  return said === key ? t("rt_why_other") : said;
}

/** A public race's identified racers and what the race did to each: "Ann 1 512 ±
 * 210 (+34)", "Bo 1 000? ± 323 (±0)", or why they were not rated ("not rated:
 * same network as another racer"), ours marked, and what the "?" means when one
 * shows; null when nobody was rated nor held out (a room race, or a public race
 * of one human among bots). */
export function raceRatings(rows, me) {
  const rated = rows.filter((row) => row.rating != null || row.unrated != null);
  if (!rated.length) return null;
  const direction = (change) => (change < 0 ? "down" : change > 0 ? "up" : "same");
  return h("div", { class: "series race-ratings", id: "race-ratings" },
    h("h3", { text: t("rt_after_race") }),
    h("ul", { class: "series-scores" },
      ...rated.map((row) => h("li", { class: row.id === me ? "me" : "", dataset: { racer: row.id } },
        h("span", { class: "who", text: row.name }),
        row.rating == null
          ? h("span", { class: "rating-change unrated", dataset: { unrated: row.unrated }, text: t("rt_unrated", { why: unratedWhy(row.unrated) }) })
          : h("span", { class: `rating-change ${direction(row.rating_change)}`,
            title: row.rating_provisional ? t("rt_mark_note") : null,
            text: t("rt_with_change", { rating: ratingText(row.rating, row.rating_deviation, row.rating_provisional), change: changeText(row.rating_change) }) }),
      )),
    ),
    rated.some((row) => row.rating_provisional) ? h("p", { class: "hint rating-mark", text: t("rt_mark_note") }) : null,
  );
}

/** This browser identity's ratings ({min_races, ratings: [...]}), or null (no
 * identity yet, or the server could not say). */
export async function myRatings() {
  const token = identityToken();
  if (!token) return null;
  try {
    const response = await fetch("/api/rating", { headers: { "X-Canfield-Identity": token }, cache: "no-store" });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** One draw mode's rating in a sentence: the number ("?" while provisional), the
 * races, and the races still to run before the ladder lists it. */
export function ratingSummary(entry, minRaces) {
  const rating = ratingText(entry.rating, entry.deviation, entry.rating_provisional);
  const parts = [t("rt_summary", { draw: t(entry.draw === 1 ? "draw1" : "draw3"), rating, n: entry.races })];
  if (entry.rating_provisional) parts.push(t("rt_provisional"));
  if (entry.provisional) parts.push(t("rt_to_ladder", { n: Math.max(1, minRaces - entry.races) }));
  return parts.join(" \u00b7 ");
}

/** The rating after each public race, oldest on the left (``points``: newest first,
 * as the server sends them), drawn ``width`` px wide so its words keep their size. */
export function ratingChart(points, width = 560) {
  const series = [...points].reverse();
  const W = Math.round(Math.max(280, Math.min(720, width)));
  const H = 200;
  const pad = { l: 48, r: 10, t: 12, b: 26 };
  const values = series.map((p) => p.rating);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const margin = Math.max(20, Math.round((hi - lo) * 0.15));
  lo -= margin;
  hi += margin;
  const x = (i) => pad.l + ((W - pad.l - pad.r) * (series.length > 1 ? i / (series.length - 1) : 0.5));
  const y = (v) => pad.t + ((H - pad.t - pad.b) * (hi - v)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg rating-chart", role: "img", "aria-label": t("rt_chart") });
  for (const tick of [lo, (lo + hi) / 2, hi].map(Math.round)) {
    chart.append(
      svg("line", { x1: pad.l, x2: W - pad.r, y1: y(tick), y2: y(tick), class: "tick" }),
      svg("text", { x: pad.l - 6, y: y(tick) + 4, "text-anchor": "end" }, tick.toLocaleString(getLang())),
    );
  }
  const path = series.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(p.rating).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: path, class: "line" }));
  series.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.rating), r: 4, class: p.change >= 0 ? "dot up" : "dot down" });
    const rating = ratingText(p.rating, p.deviation, p.rating_provisional);
    dot.append(svg("title", {}, t("rt_point", { rating, change: changeText(p.change), place: p.rank, n: p.players })));
    chart.append(dot);
  });
  chart.append(svg("text", { x: pad.l + (W - pad.l - pad.r) / 2, y: H - 6, "text-anchor": "middle", class: "axis-label" }, t("me_chart_x")));
  return chart;
}

/** Fill the rating section of /me (``root``): a sentence and a chart per draw
 * mode, or a hint. */
export function renderRatings(root, found) {
  const entries = found?.ratings || [];
  if (!entries.length) {
    root.replaceChildren(h("p", { class: "hint", text: t("rt_none") }));
    return;
  }
  const width = root.clientWidth || 560;
  root.replaceChildren(
    ...entries.flatMap((entry) => [
      h("p", { class: "rating-line", dataset: { draw: entry.draw }, text: ratingSummary(entry, found.min_races) }),
      ratingChart(entry.history, width),
    ]),
  );
}
