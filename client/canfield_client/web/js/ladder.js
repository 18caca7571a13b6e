// The ladder page (/ladder): the best racers of public races per draw mode,
// ordered by the cautious rating and each shown with its estimate ("?" while
// provisional) (GET /api/ladder), and this browser identity's own rating
// (GET /api/rating). ?draw=1 opens the Draw 1 ladder.

import { $, $$, h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { initShell } from "./shell.js";
import { myRatings, ratingSummary, ratingText } from "./rating.js";

let draw = new URLSearchParams(location.search).get("draw") === "1" ? 1 : 3;
let board = null; // the last GET /api/ladder answer
let mine = null; // the last GET /api/rating answer
let failed = false;

async function load() {
  const asked = draw;
  try {
    const response = await fetch(`/api/ladder?draw=${asked}`, { cache: "no-store" });
    if (!response.ok) throw new Error(String(response.status));
    const body = await response.json();
    if (asked !== draw) return; // the other tab was chosen meanwhile
    board = body;
    failed = false;
  } catch {
    failed = true;
  }
  render();
}

function render() {
  for (const tab of $$("#draw-tabs .tab")) tab.setAttribute("aria-pressed", String(Number(tab.dataset.draw) === draw));
  const minRaces = board?.min_races ?? mine?.min_races ?? 5;
  $("#ladder-lead").textContent = t("ladder_lead", { n: minRaces });
  $("#ladder-error").textContent = failed ? t("err_unavailable") : "";
  const own = mine?.ratings?.find((entry) => entry.draw === draw);
  $("#ladder-you").textContent = own ? t("ladder_you", { what: ratingSummary(own, mine.min_races) }) : t("ladder_you_none");
  const rows = board?.draw === draw ? board.rows : [];
  $("#ladder-empty").hidden = !board || failed || rows.length > 0;
  const table = $("#ladder");
  table.hidden = !rows.length;
  const cols = ["ladder_place", "ladder_racer", "ladder_rating", "me_races"];
  table.tHead.replaceChildren(h("tr", {}, ...cols.map((key) => h("th", { text: t(key) }))));
  table.tBodies[0].replaceChildren(
    ...rows.map((row, i) =>
      h(
        "tr",
        {},
        h("td", { class: "c-place", text: i + 1 }),
        h("td", { class: "c-name", text: row.name }),
        h("td", {
          class: "c-rating",
          title: row.rating_provisional ? t("rt_mark_note") : null,
          text: ratingText(row.rating, row.deviation, row.rating_provisional),
        }),
        h("td", { class: "c-races", text: row.races.toLocaleString(getLang()) }),
      ),
    ),
  );
  document.title = `${t("ladder_title")} - ${t("title")}`;
}

for (const tab of $$("#draw-tabs .tab")) {
  tab.addEventListener("click", () => {
    draw = Number(tab.dataset.draw);
    history.replaceState(null, "", draw === 1 ? "?draw=1" : location.pathname);
    render();
    load();
  });
}

initShell(() => render());
load();
myRatings().then((found) => {
  mine = found;
  render();
});
