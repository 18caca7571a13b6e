// The operator console's review queue: every open flagged result with its
// evidence - a chart of the racer's think times, the solver agreement and the
// other signals, the reasons the rule gave, the network and the identities
// seen on it, the replay - and the two decisions, each after a confirmation:
// Clear (the result stands again) and Confirm (the result is removed, the
// identity barred from ranked play, the race's other racers get their points
// back). From /admin/api/reviews, polled with the overview.

import { $, h, svgEl as svg } from "./dom.js";
import { ask } from "./confirm.js";
import { locale, t } from "./i18n.js";

const W = 320;
const H = 72;

/** A small bar chart: one bar per action, its think time (ms), a line at the median. */
function thinkChart(signals) {
  const times = signals.think_ms || [];
  const most = Math.max(1, ...times);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "adm-think", role: "img" });
  const label = t("adm_rv_chart", { n: times.length, median: seconds(signals.think_median_ms), most: seconds(most) });
  chart.setAttribute("aria-label", label);
  const step = W / Math.max(times.length, 1);
  times.forEach((ms, i) => {
    const height = Math.max(1, (ms / most) * (H - 4));
    chart.append(svg("rect", { x: i * step, y: H - height, width: Math.max(1, step - 1), height, class: "bar" }));
  });
  const median = H - (signals.think_median_ms / most) * (H - 4);
  chart.append(svg("line", { x1: 0, x2: W, y1: median, y2: median, class: "median" }));
  return h("figure", { class: "adm-think-fig" }, chart, h("figcaption", { class: "hint", text: label }));
}

const decimal = (n, digits = 2) => new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(n);
const seconds = (ms) => (ms === null || ms === undefined ? "-" : t("adm_rv_s", { n: decimal(ms / 1000) }));
const percent = (share) => (share === null || share === undefined ? "-" : `${Math.round(share * 100)} %`);

function raceOf(c) {
  if (c.kind === "daily") return t("adm_rv_daily", { date: c.date, draw: c.draw });
  return t(c.kind === "public" ? "adm_rv_public" : "adm_rv_room", { code: c.room, n: c.race_no });
}

function facts(c) {
  const s = c.signals;
  const rows = [
    ["adm_rv_agreement", t("adm_rv_agreement_v", { share: percent(s.solver_agreement), n: s.checked_moves })],
    ["adm_rv_pace", t("adm_rv_pace_v", { n: decimal(s.moves_per_s), actions: s.actions })],
    ["adm_rv_median", seconds(s.think_median_ms)],
    ["adm_rv_spread", decimal(s.think_spread)],
    ["adm_rv_decisions", t("adm_rv_decisions_v", { decision: seconds(s.decision_think_ms), forced: seconds(s.forced_think_ms) })],
    ["adm_rv_over_par", s.over_par === null || s.over_par === undefined ? "-" : String(s.over_par)],
    ["adm_rv_network", c.network || "-"],
    ["adm_rv_shares", c.shares.length ? c.shares.join(", ") : t("adm_rv_shares_none")],
  ];
  return h("dl", { class: "adm-facts" }, rows.flatMap(([key, value]) => [h("dt", {}, t(key)), h("dd", {}, value)]));
}

function caseCard(c, act) {
  const decide = async (decision) => {
    const sure = t(`adm_rv_${decision}_sure`, { name: c.name });
    if (await ask(sure, t(`adm_rv_${decision}`))) {
      act(`reviews/${encodeURIComponent(c.result)}/decide`, { decision }, `adm_rv_${decision}ed`);
    }
  };
  const replay = c.replay ? c.replay.replace("/replay/", "/replays/") : null;
  return h(
    "article",
    { class: "adm-case", "data-result": c.result },
    h(
      "h3",
      {},
      h("span", { text: c.name }),
      h("span", { class: "hint", text: ` ${c.public_id || t("adm_rv_guest")} · ${raceOf(c)} · ${new Date(c.at).toLocaleString(locale())}` }),
    ),
    h("ul", { class: "adm-reasons" }, c.reasons.map((reason) => h("li", { text: reason }))),
    thinkChart(c.signals),
    facts(c),
    h(
      "div",
      { class: "row" },
      replay ? h("a", { href: replay, target: "_blank", rel: "noopener", text: t("adm_rv_replay") }) : null,
      h("button", { type: "button", class: "quiet", onclick: () => decide("clear") }, t("adm_rv_clear")),
      h("button", { type: "button", class: "primary", onclick: () => decide("confirm") }, t("adm_rv_confirm")),
    ),
  );
}

/** Draw the queue; ``act(path, body, doneKey)`` does a request and polls again. */
export function renderReviews(reviews, act) {
  const open = reviews ? reviews.open : [];
  $("#adm-reviews-sum").textContent = t("adm_rv_open_n", { n: open.length });
  $("#adm-reviews").replaceChildren(
    ...(open.length ? open.map((c) => caseCard(c, act)) : [h("p", { class: "hint", text: t("adm_rv_none") })]),
  );
  const decided = reviews ? reviews.decided.slice(0, 10) : [];
  $("#adm-decided").replaceChildren(
    ...decided.map((c) =>
      h("li", { text: t(`adm_rv_was_${c.status}`, { name: c.name, race: raceOf(c), by: c.decided_by || "-" }) }),
    ),
  );
}
