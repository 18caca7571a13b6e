// "My races" (/me): this browser identity's finished races and simple stats per
// draw mode, a small chart of cards home in the last races, the whole history
// as a JSON download (GET /history with the identity's header) and a delete
// button (after a confirmation; `delete_history`).

import { offlineBanner } from "./chrome.js";
import { $, clock, h, svgEl as svg } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { ask } from "./confirm.js";
import { errorText, identitiesText } from "./errors.js";
import { attachIdentity, identityToken } from "./identity.js";
import { showArenas } from "./me-arenas.js";
import { Connection } from "./net.js";
import { flash, initShell, raceThisPage, replayPage, showNotices, when } from "./shell.js";
import { placeText } from "./words.js";
import { myRatings, renderRatings } from "./rating.js";

const LIMIT = 50;
const CHART_RACES = 20;

const conn = new Connection();
showNotices(conn);
const identity = attachIdentity(conn);
let data = null; // the last `history` message
let ratings = null; // GET /api/rating's answer

async function loadRatings() {
  ratings = await myRatings();
  render();
}

// no identity yet (its network had too many new ones): say why, and until when
identity.onRefused(() => render());

showArenas(conn, identity, $("#me-arenas-panel"));
identity.onReady(() => {
  $("#me-error").textContent = "";
  conn.send({ type: "history", limit: LIMIT });
  render();
  loadRatings();
});
offlineBanner(conn);
conn.on("history", (msg) => {
  data = msg;
  render();
});
conn.on("history_deleted", (msg) => {
  flash(t("me_deleted", { n: msg.removed }));
  conn.send({ type: "history", limit: LIMIT });
});
conn.on("error", (msg) => {
  $("#me-error").textContent = errorText(msg, { offset: conn.offset });
});

function render() {
  if (identity.refused) $("#me-error").textContent = identitiesText(identity.refused.params, conn.offset);
  $("#me-id").textContent = identity.id ? t("me_id", { id: identity.id }) : "";
  const streak = data?.streak ?? identity.streak;
  $("#streak").textContent = streak ? t("daily_streak", { n: streak }) : t("daily_streak_none");
  $("#streak").classList.toggle("on", streak > 0);
  const races = data?.races || [];
  $("#me-empty").hidden = !data || races.length > 0;
  $("#me-delete").disabled = !races.length;
  $("#me-download").disabled = !identityToken();
  renderStats(data?.stats || []);
  renderChart(races.slice(0, CHART_RACES).reverse());
  renderHistory(races);
  renderRatings($("#me-rating"), ratings);
  document.title = `${t("me_title")} - ${t("title")}`;
}

function renderStats(stats) {
  const head = ["draw_mode", "me_races", "me_wins", "me_win_rate", "me_best_time", "me_avg_cards"];
  const table = h(
    "table",
    { class: "leaderboard stats" },
    h("thead", {}, h("tr", {}, ...head.map((key) => h("th", { text: t(key) })))),
    h(
      "tbody",
      {},
      ...stats.map((s) =>
        h(
          "tr",
          { dataset: { draw: s.draw } },
          h("td", { text: t(s.draw === 1 ? "draw1" : "draw3") }),
          h("td", { class: "c-races", text: s.races }),
          h("td", { class: "c-wins", text: s.wins }),
          h("td", { class: "c-rate", text: `${Math.round((s.win_rate || 0) * 100)}%` }),
          h("td", { class: "c-best", text: s.best_time_ms == null ? "-" : clock(s.best_time_ms) }),
          h("td", { class: "c-avg", text: (s.avg_cards || 0).toLocaleString(getLang(), { maximumFractionDigits: 1 }) }),
        ),
      ),
    ),
  );
  $("#me-stats").replaceChildren(stats.length ? table : h("p", { class: "hint", text: t("me_none") }));
}

/** Cards home per race, oldest on the left; a win's bar is gold. */
function renderChart(races) {
  const root = $("#me-chart");
  if (!races.length) {
    root.replaceChildren(h("p", { class: "hint", text: t("me_none") }));
    return;
  }
  const W = 560;
  const H = 220;
  const pad = { l: 34, r: 8, t: 10, b: 26 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const slot = iw / Math.max(races.length, 5);
  const y = (cards) => pad.t + ih - (ih * cards) / 52;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg me-chart", role: "img", "aria-label": t("me_chart") });
  for (const tick of [0, 13, 26, 39, 52]) {
    chart.append(
      svg("line", { x1: pad.l, x2: W - pad.r, y1: y(tick), y2: y(tick), class: tick ? "tick" : "axis" }),
      svg("text", { x: pad.l - 6, y: y(tick) + 4, "text-anchor": "end" }, tick),
    );
  }
  races.forEach((race, i) => {
    const x = pad.l + i * slot + slot * 0.15;
    const bar = svg("rect", {
      x,
      y: y(race.cards),
      width: slot * 0.7,
      height: Math.max(1, y(0) - y(race.cards)),
      rx: 2,
      class: race.won ? "bar won" : "bar",
    });
    const what = race.kind === "daily" ? t("me_kind_daily", { date: race.date }) : t("me_kind_room", { room: race.room || "" });
    bar.append(svg("title", {}, `${what}: ${t("daily_cards_n", { n: race.cards })}`));
    chart.append(bar);
  });
  chart.append(svg("text", { x: pad.l + iw / 2, y: H - 6, "text-anchor": "middle", class: "axis-label" }, t("me_chart_x")));
  root.replaceChildren(chart, h("p", { class: "hint", text: t("me_chart_note") }));
}

function renderHistory(races) {
  const table = $("#me-history");
  const cols = ["me_when", "me_race", "draw_mode", "me_place", "status", "cards", "time", "moves", "replay"];
  table.tHead.replaceChildren(h("tr", {}, ...cols.map((key) => h("th", { text: t(key) }))));
  table.hidden = !races.length;
  table.tBodies[0].replaceChildren(
    ...races.map((race) => {
      const what = race.kind === "daily" ? t("me_kind_daily", { date: race.date }) : t("me_kind_room", { room: race.room || "" });
      const link = race.replay
        ? h("span", { class: "replay-links" },
            h("a", { href: replayPage(race.replay), class: "replay-link", text: t("replay") }),
            h("a", { href: raceThisPage(race.replay), class: "race-this", text: t("race_this") }))
        : h("span", { class: "hint", text: t("me_replay_later") });
      // a challenge this race took: its link, where its standing is
      const challenge = race.challenge
        ? h("a", { href: race.challenge, class: "challenge-link", text: t("ch_history") })
        : null;
      return h(
        "tr",
        { class: race.won ? "won" : null, dataset: { kind: race.kind, status: race.status } },
        h("td", { class: "c-when", text: when(race.at, getLang()) }),
        h("td", { class: "c-race", text: what }),
        h("td", { "data-label": t("draw_mode"), text: race.draw }),
        h("td", { "data-label": t("me_place"), text: race.place ? placeText(race.place, race.players, race.tied) : "-" }),
        h("td", { class: "c-status", text: t(`st_${race.status}`) }),
        h("td", { class: "c-cards", "data-label": t("cards"), text: race.cards }),
        h("td", { "data-label": t("time"), text: clock(race.time_ms) }),
        h("td", { "data-label": t("moves"), text: race.moves }),
        h("td", { class: "c-link" }, link, challenge ? " · " : null, challenge),
      );
    }),
  );
}

async function download() {
  $("#me-error").textContent = "";
  let body;
  try {
    const response = await fetch("/history", { headers: { "X-Canfield-Identity": identityToken() }, cache: "no-store" });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      $("#me-error").textContent = problem.code ? errorText(problem) : t("err_unavailable");
      return;
    }
    body = await response.blob();
  } catch {
    $("#me-error").textContent = t("err_unavailable");
    return;
  }
  const url = URL.createObjectURL(new Blob([body], { type: "application/json" }));
  const a = h("a", { href: url, download: "canfield-history.json", hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

$("#me-download").addEventListener("click", download);
$("#me-delete").addEventListener("click", async () => {
  if (!(await ask(t("me_sure_delete"), t("me_delete_yes")))) return;
  $("#me-error").textContent = "";
  if (!conn.send({ type: "delete_history" })) $("#me-error").textContent = t("reconnecting");
});

let resized = null;
addEventListener("resize", () => {
  clearTimeout(resized);
  resized = setTimeout(() => renderRatings($("#me-rating"), ratings), 150);
});

initShell(() => render());
conn.connect();
