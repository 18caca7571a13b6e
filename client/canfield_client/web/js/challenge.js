// A challenge link's page (/c/<id>): "Beat Ana's 3:12 on this deal". It reads
// GET /api/challenge/<id> (the racer's name and result, the draw mode and the
// standing of everyone who took it; never the deal, which stays hidden until
// the reader's own race is over) and shows the standing, each taker's time or
// cards home, and who beat the racer. The server fills the head with the
// link's preview before any script runs.

import { $, clock, h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { initShell, when } from "./shell.js";
import { getName, setName } from "./store.js";

const ID_OK = /^[A-Za-z0-9_-]{16}$/;

const view = {
  challenge: null, // the /api/challenge/<id> body
  problem: "ch_loading", // the status text's key while nothing is shown
};

/** The challenge's id: the page's path, /c/<id>. */
export function challengeId() {
  const path = location.pathname.match(/^\/c\/([^/]+)$/);
  try {
    return path ? decodeURIComponent(path[1]) : "";
  } catch {
    return "";
  }
}

/** "Beat Ana's 3:12 on this deal" (the cards home when the racer did not win). */
export function challengeTitle(c) {
  return c.won ? t("ch_won", { name: c.name, time: clock(c.time_ms) }) : t("ch_cards", { name: c.name, n: c.cards });
}

/** A result in the standing: the time of a win, else the cards home of 52. */
function result(row) {
  return row.won ? clock(row.time_ms) : t("ch_cards_of", { n: row.cards });
}

async function load() {
  const id = challengeId();
  if (!ID_OK.test(id)) {
    view.problem = "ch_not_found";
    render();
    return;
  }
  try {
    const response = await fetch(`/api/challenge/${encodeURIComponent(id)}`, { cache: "no-store" });
    if (response.ok) {
      view.challenge = await response.json();
      view.problem = null;
    } else {
      view.problem = response.status === 404 ? "ch_not_found" : "ch_unavailable";
    }
  } catch {
    view.problem = "ch_unavailable";
  }
  render();
}

function render() {
  const c = view.challenge;
  $("#ch-status").textContent = view.problem ? t(view.problem) : "";
  $("#ch-title").textContent = c ? challengeTitle(c) : t("challenge");
  $("#ch-what").textContent = c
    ? `${t("ch_draw", { draw: c.draw })} · ${t("ch_open_until", { date: when(c.expires_at, getLang()) })}`
    : "";
  $("#ch-form").hidden = !c;
  if (c) $("#ch-race").textContent = t("ch_race", { name: c.name });
  const rows = c?.standing || [];
  $("#ch-none").hidden = !c || rows.length > 0;
  $("#ch-rows").replaceChildren(
    ...rows.map((row) =>
      h("li", { class: row.beat ? "beat" : null },
        h("span", { class: "rank", text: row.rank }),
        h("span", { class: "who", text: row.name }),
        row.beat ? h("span", { class: "mark", text: t("ch_beat") }) : null,
        h("span", { class: "res", text: result(row) })),
    ),
  );
}

/** "Race Ana's ghost": the race page takes the challenge under this name. */
$("#ch-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const name = $("#ch-name").value.trim();
  if (!name) return;
  setName(name);
  location.href = `/?challenge=${encodeURIComponent(challengeId())}`;
});

$("#ch-name").value = getName();
initShell(render);
load();
